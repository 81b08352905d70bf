"""Company sign-in against a real OpenLDAP directory (slapd) the tests start: first sign-in
creates the user, directory groups decide roles at every sign-in, refusals say why, an outage
leaves local accounts working, and a directory entry cannot take over a local account."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.test import Client

from common import roles
from config.settings.directory import BACKEND, directory_settings, with_directory
from tests import directory_server
from tests.conftest import make_user, require_service

User = get_user_model()
pytestmark = pytest.mark.django_db

WRONG = "Please enter a correct username and password"
UNREACHABLE = "The company directory cannot be reached"
NO_ROLE = "it is in none of the directory groups that give a role"


@pytest.fixture
def directory(tmp_path):
    if not directory_server.available():
        require_service("slapd", "install Debian's slapd (bin/install-system-deps --test)")
    server = directory_server.start(tmp_path / "slapd")
    yield server
    directory_server.remove(server)


def use_directory(settings, environ: dict) -> None:
    """Settings as the environment `environ` would give them (config/settings/base.py)."""
    built = directory_settings(environ)
    for name, value in built.items():
        setattr(settings, name, value)
    settings.AUTHENTICATION_BACKENDS = with_directory(list(settings.AUTHENTICATION_BACKENDS), built)


@pytest.fixture
def signed_in_through(directory, settings):
    use_directory(settings, directory.environ())
    return directory


def sign_in(username: str, password: str) -> tuple[Client, str]:
    client = Client()
    response = client.post("/accounts/login/", {"username": username, "password": password})
    return client, response.content.decode() if response.status_code == 200 else ""


def is_signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def test_first_sign_in_creates_the_user_with_the_role_their_group_gives(signed_in_through):
    assert not User.objects.filter(username="lena").exists()
    client, _ = sign_in("lena", "lena-pass-1")
    assert is_signed_in(client)
    lena = User.objects.get(username="lena")
    assert (lena.first_name, lena.last_name, lena.email) == ("Lena", "Wang", "lena@corp.example")
    assert roles.user_roles(lena) == [roles.TECH_LEAD]
    assert not lena.is_staff
    assert not lena.has_usable_password()  # the directory holds the password, not the app
    assert client.get("/evaluations/new/").status_code == 200  # a tech lead may create


def test_roles_follow_the_directory_at_every_sign_in(signed_in_through):
    directory = signed_in_through
    client, _ = sign_in("ravi", "ravi-pass-1")
    assert roles.user_roles(User.objects.get(username="ravi")) == [roles.REVIEWER]
    directory.move("ravi", leave="shortlist-reviewers", join="shortlist-admins")
    client, _ = sign_in("ravi", "ravi-pass-1")
    ravi = User.objects.get(username="ravi")
    assert roles.user_roles(ravi) == [roles.ADMIN]  # the reviewer role was taken away
    assert ravi.is_staff
    assert client.get("/admin/").status_code == 200
    directory.move("ravi", leave="shortlist-admins", join="shortlist-procurement")
    sign_in("ravi", "ravi-pass-1")
    ravi = User.objects.get(username="ravi")
    assert roles.user_roles(ravi) == [roles.PROCUREMENT] and not ravi.is_staff


def test_several_groups_give_several_roles_and_other_groups_are_kept(signed_in_through):
    from django.contrib.auth.models import Group

    ada = make_user(None, username="ada")
    ada.set_unusable_password()  # made by an earlier directory sign-in
    ada.save()
    ada.groups.add(Group.objects.create(name="newsletter"))
    client, _ = sign_in("ada", "ada-pass-1")
    assert is_signed_in(client)
    ada = User.objects.get(username="ada")
    assert roles.user_roles(ada) == [roles.ADMIN, roles.TECH_LEAD]
    assert set(ada.groups.values_list("name", flat=True)) == {"admin", "tech_lead", "newsletter"}


def test_a_directory_user_in_no_role_group_is_refused_saying_why(signed_in_through):
    client, page = sign_in("noah", "noah-pass-1")
    assert not is_signed_in(client)
    assert NO_ROLE in page


def test_a_disabled_account_and_a_wrong_password_are_refused(signed_in_through):
    for username, password in (("dora", "dora-pass-1"), ("lena", "not-her-password")):
        client, page = sign_in(username, password)
        assert not is_signed_in(client), username
        assert WRONG in page and UNREACHABLE not in page, username
    assert not User.objects.filter(username="dora").exists()


def test_a_directory_entry_cannot_take_over_a_local_account(signed_in_through):
    make_user(roles.ADMIN, username="breakglass", password="local-pass-1")
    client, page = sign_in("breakglass", "directory-pass-1")
    assert not is_signed_in(client) and WRONG in page
    client, _ = sign_in("breakglass", "local-pass-1")
    assert is_signed_in(client)


def test_an_outage_says_so_and_local_accounts_still_sign_in(directory, settings):
    make_user(roles.ADMIN, username="breakglass", password="local-pass-1")
    use_directory(settings, directory.environ())
    client, _ = sign_in("lena", "lena-pass-1")
    assert is_signed_in(client)  # a directory user who signed in before the outage
    directory.stop()  # the directory goes down: a real refused connection
    client, page = sign_in("lena", "lena-pass-1")
    assert not is_signed_in(client)
    assert UNREACHABLE in page
    client, page = sign_in("breakglass", "local-pass-1")
    assert is_signed_in(client)


def test_the_sign_in_page_tells_the_outage_in_chinese(directory, settings):
    use_directory(settings, directory.environ())
    directory.stop()
    client = Client(HTTP_ACCEPT_LANGUAGE="zh-hans")
    client.cookies["django_language"] = "zh-hans"
    page = client.post("/accounts/login/", {"username": "lena", "password": "x1"}).content
    assert UNREACHABLE.encode() not in page
    assert "目录".encode() in page


def test_guessing_a_directory_password_locks_the_account_as_for_local_ones(
    signed_in_through, settings
):
    settings.AXES_FAILURE_LIMIT = 3
    for _ in range(3):
        sign_in("lena", "wrong-guess")
    client, _ = sign_in("lena", "lena-pass-1")
    assert not is_signed_in(client)  # django-axes refuses before the directory is asked


# --- configuration ---------------------------------------------------------------------------


def test_off_unless_a_server_is_named():
    assert directory_settings({}) == {}
    backends = ["axes.backends.AxesStandaloneBackend", "django.contrib.auth.backends.ModelBackend"]
    assert with_directory(backends, {}) == backends


def test_on_the_directory_backend_comes_after_axes_and_before_local_accounts(directory):
    built = directory_settings(directory.environ())
    backends = with_directory(
        [
            "axes.backends.AxesStandaloneBackend",
            "rules.permissions.ObjectPermissionBackend",
            "django.contrib.auth.backends.ModelBackend",
        ],
        built,
    )
    assert backends.index(BACKEND) == 2
    assert backends[0] == "axes.backends.AxesStandaloneBackend"
    assert backends[-1] == "django.contrib.auth.backends.ModelBackend"


@pytest.mark.parametrize(
    "change, message",
    [
        ({"LDAP_USER_SEARCH_BASE": ""}, "LDAP_USER_SEARCH_BASE must be set"),
        ({"LDAP_GROUP_TYPE": "nestedFoo"}, "LDAP_GROUP_TYPE must be one of"),
        ({"LDAP_TIMEOUT": "soon"}, "LDAP_TIMEOUT must be a number"),
        (
            {
                "LDAP_ADMIN_GROUP": "",
                "LDAP_TECH_LEAD_GROUP": "",
                "LDAP_REVIEWER_GROUP": "",
                "LDAP_PROCUREMENT_GROUP": "",
            },
            "Name at least one directory group",
        ),
    ],
)
def test_a_half_configured_directory_is_refused_at_startup(change, message):
    environ = {
        "LDAP_SERVER_URI": "ldap://127.0.0.1:1",
        "LDAP_USER_SEARCH_BASE": "ou=people,dc=x",
        "LDAP_GROUP_SEARCH_BASE": "ou=groups,dc=x",
        "LDAP_TECH_LEAD_GROUP": "cn=leads,ou=groups,dc=x",
        **change,
    }
    with pytest.raises(ImproperlyConfigured, match=message):
        directory_settings(environ)


# --- TLS -------------------------------------------------------------------------------------


@pytest.fixture
def tls_directory(tmp_path):
    if not directory_server.available():
        require_service("slapd", "install Debian's slapd (bin/install-system-deps --test)")
    server = directory_server.start(tmp_path / "slapd", tls=True)
    yield server
    directory_server.remove(server)


def test_sign_in_over_ldaps_and_starttls_trusting_the_company_ca(tls_directory, settings):
    over_ldaps = tls_directory.environ(
        LDAP_SERVER_URI=tls_directory.ldaps_uri, LDAP_CA_CERT_FILE=tls_directory.ca_file
    )
    use_directory(settings, over_ldaps)
    assert is_signed_in(sign_in("lena", "lena-pass-1")[0])
    starttls = tls_directory.environ(LDAP_START_TLS="true", LDAP_CA_CERT_FILE=tls_directory.ca_file)
    use_directory(settings, starttls)
    assert is_signed_in(sign_in("ravi", "ravi-pass-1")[0])


def test_a_directory_certificate_from_another_authority_is_not_trusted(tls_directory, settings):
    other = tls_directory.folder / "other"
    other.mkdir()
    directory_server.make_certificates(other, "other-ca")
    environ = tls_directory.environ(
        LDAP_SERVER_URI=tls_directory.ldaps_uri, LDAP_CA_CERT_FILE=str(other / "other-ca.pem")
    )
    use_directory(settings, environ)
    client, page = sign_in("lena", "lena-pass-1")
    assert not is_signed_in(client)
    assert UNREACHABLE in page  # the connection is refused before any password is sent
