"""The settings of company sign-in against LDAP / Active Directory (django-auth-ldap), built from
environment variables. Off (no settings, no backend) unless LDAP_SERVER_URI is set.

A function rather than module code, so that tests can build the same settings for a directory
they start themselves."""

from __future__ import annotations

from collections.abc import Mapping

from django.core.exceptions import ImproperlyConfigured

BACKEND = "common.directory.DirectoryBackend"
ROLE_VARIABLES = {
    "admin": "LDAP_ADMIN_GROUP",
    "tech_lead": "LDAP_TECH_LEAD_GROUP",
    "reviewer": "LDAP_REVIEWER_GROUP",
    "procurement": "LDAP_PROCUREMENT_GROUP",
}
GROUP_TYPES = ("groupOfNames", "groupOfUniqueNames", "posixGroup", "activeDirectory")
TRUE = {"1", "true", "yes", "on"}


def required(environ: Mapping[str, str], name: str, because: str) -> str:
    value = environ.get(name, "").strip()
    if not value:
        raise ImproperlyConfigured(f"{name} must be set when {because} is.")
    return value


def seconds(environ: Mapping[str, str], name: str, default: str = "5") -> float:
    try:
        return float(environ.get(name, default))
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number of seconds.") from None


def role_groups(environ: Mapping[str, str], variables: dict[str, str], what: str) -> dict:
    """Role key → the group (from the variable named for it) that gives the role; at least one."""
    groups = {role: environ.get(name, "").strip() for role, name in variables.items()}
    if not any(groups.values()):
        raise ImproperlyConfigured(
            f"Name at least one {what} that gives a role: {', '.join(variables.values())}."
        )
    return groups


def directory_settings(environ: Mapping[str, str]) -> dict:
    """AUTH_LDAP_* settings for the directory `environ` describes ({} when it names none)."""
    uri = environ.get("LDAP_SERVER_URI", "").strip()
    if not uri:
        return {}
    import ldap
    from django_auth_ldap import config

    def need(name: str) -> str:
        return required(environ, name, "LDAP_SERVER_URI")

    group_type = environ.get("LDAP_GROUP_TYPE", "groupOfNames").strip()
    types = {
        "groupOfNames": (config.GroupOfNamesType, "(objectClass=groupOfNames)"),
        "groupOfUniqueNames": (config.GroupOfUniqueNamesType, "(objectClass=groupOfUniqueNames)"),
        "posixGroup": (config.PosixGroupType, "(objectClass=posixGroup)"),
        "activeDirectory": (config.NestedActiveDirectoryGroupType, "(objectClass=group)"),
    }
    if group_type not in types:
        raise ImproperlyConfigured(
            f"LDAP_GROUP_TYPE must be one of {', '.join(GROUP_TYPES)}, not {group_type!r}."
        )
    group_class, group_filter = types[group_type]
    groups = role_groups(environ, ROLE_VARIABLES, "directory group")
    timeout = seconds(environ, "LDAP_TIMEOUT")
    options = {
        ldap.OPT_REFERRALS: 0,  # Active Directory's referrals need credentials we do not pass on
        ldap.OPT_NETWORK_TIMEOUT: timeout,
        ldap.OPT_TIMEOUT: timeout,
    }
    ca_file = environ.get("LDAP_CA_CERT_FILE", "").strip()
    if ca_file:
        options[ldap.OPT_X_TLS_CACERTFILE] = ca_file
        options[ldap.OPT_X_TLS_REQUIRE_CERT] = ldap.OPT_X_TLS_DEMAND
        options[ldap.OPT_X_TLS_NEWCTX] = 0  # last: applies the TLS options above
    return {
        "AUTH_LDAP_SERVER_URI": uri,
        "AUTH_LDAP_BIND_DN": environ.get("LDAP_BIND_DN", ""),
        "AUTH_LDAP_BIND_PASSWORD": environ.get("LDAP_BIND_PASSWORD", ""),
        "AUTH_LDAP_START_TLS": environ.get("LDAP_START_TLS", "").strip().lower() in TRUE,
        "AUTH_LDAP_CONNECTION_OPTIONS": options,
        "AUTH_LDAP_USER_SEARCH": config.LDAPSearch(
            need("LDAP_USER_SEARCH_BASE"),
            ldap.SCOPE_SUBTREE,
            environ.get("LDAP_USER_FILTER", "").strip() or "(uid=%(user)s)",
        ),
        "AUTH_LDAP_GROUP_SEARCH": config.LDAPSearch(
            need("LDAP_GROUP_SEARCH_BASE"), ldap.SCOPE_SUBTREE, group_filter
        ),
        "AUTH_LDAP_GROUP_TYPE": group_class(),
        "AUTH_LDAP_DENY_GROUP": environ.get("LDAP_DENY_GROUP", "").strip() or None,
        "AUTH_LDAP_USER_ATTR_MAP": {"first_name": "givenName", "last_name": "sn", "email": "mail"},
        "AUTH_LDAP_ALWAYS_UPDATE_USER": True,
        "LDAP_SERVER_URI": uri,
        "LDAP_ROLE_GROUPS": groups,
    }


def before_local_accounts(backends: list[str], backend: str, enabled: bool) -> list[str]:
    """`backends` with `backend` after django-axes' (which must refuse a locked-out sign-in
    first) and before ModelBackend (local accounts), or without it when not `enabled`."""
    backends = [b for b in backends if b != backend]
    if not enabled:
        return backends
    model = backends.index("django.contrib.auth.backends.ModelBackend")
    return [*backends[:model], backend, *backends[model:]]


def with_directory(backends: list[str], settings: Mapping) -> list[str]:
    """The authentication backends with the directory's, when it is configured."""
    return before_local_accounts(backends, BACKEND, bool(settings.get("AUTH_LDAP_SERVER_URI")))
