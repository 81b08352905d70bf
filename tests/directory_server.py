"""A throwaway OpenLDAP directory (Debian's slapd) for the company sign-in tests: its own
configuration, database and port in a temporary folder, filled with a few people and groups,
stopped and removed afterwards."""

from __future__ import annotations

import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import ldap
import ldap.modlist

from tests.embedded import free_port, stop_process

SLAPD = "/usr/sbin/slapd"
SUFFIX = "dc=shortlist,dc=test"
ROOT_DN = f"cn=admin,{SUFFIX}"
ROOT_PASSWORD = "root-secret"
SERVICE_DN = f"cn=shortlist-svc,ou=services,{SUFFIX}"
SERVICE_PASSWORD = "service-secret"
PEOPLE = f"ou=people,{SUFFIX}"
GROUPS = f"ou=groups,{SUFFIX}"

CONFIG = """\
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include /etc/ldap/schema/nis.schema
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile {folder}/slapd.pid
database mdb
maxsize 10485760
suffix "{suffix}"
rootdn "{root_dn}"
rootpw {root_password}
directory {folder}/data
access to attrs=userPassword by anonymous auth by self write by * none
access to * by users read by * none
"""
TLS_CONFIG = """\
TLSCACertificateFile {folder}/ca.pem
TLSCertificateFile {folder}/server.pem
TLSCertificateKeyFile {folder}/server.key
"""

# uid → (given name, surname, password, groups). "dora" is in the deny group (a disabled
# account); "noah" is only in a group that gives no role; "breakglass" shares its name with
# the local admin account the tests make.
PERSONS = {
    "lena": ("Lena", "Wang", "lena-pass-1", ["shortlist-tech-leads"]),
    "ravi": ("Ravi", "Iyer", "ravi-pass-1", ["shortlist-reviewers"]),
    "pia": ("Pia", "Keller", "pia-pass-1", ["shortlist-procurement"]),
    "ada": ("Ada", "Lovelace", "ada-pass-1", ["shortlist-admins", "shortlist-tech-leads"]),
    "noah": ("Noah", "Berg", "noah-pass-1", ["all-staff"]),
    "dora": ("Dora", "Lind", "dora-pass-1", ["shortlist-tech-leads", "disabled-accounts"]),
    "breakglass": ("Break", "Glass", "directory-pass-1", ["shortlist-admins"]),
}
PLACEHOLDER = f"cn=placeholder,{SUFFIX}"
GROUP_NAMES = [
    "shortlist-admins",
    "shortlist-tech-leads",
    "shortlist-reviewers",
    "shortlist-procurement",
    "all-staff",
    "disabled-accounts",
]


def person_dn(uid: str) -> str:
    return f"uid={uid},{PEOPLE}"


def group_dn(name: str) -> str:
    return f"cn={name},{GROUPS}"


@dataclass
class Directory:
    uri: str
    folder: Path
    process: subprocess.Popen
    ldaps_uri: str = ""  # with TLS: the ldaps:// address (uri then also takes StartTLS)

    @property
    def ca_file(self) -> str:
        return str(self.folder / "ca.pem")

    def environ(self, **extra) -> dict[str, str]:
        """The environment variables an operator would set for this directory."""
        return {
            "LDAP_SERVER_URI": self.uri,
            "LDAP_BIND_DN": SERVICE_DN,
            "LDAP_BIND_PASSWORD": SERVICE_PASSWORD,
            "LDAP_USER_SEARCH_BASE": PEOPLE,
            "LDAP_GROUP_SEARCH_BASE": GROUPS,
            "LDAP_ADMIN_GROUP": group_dn("shortlist-admins"),
            "LDAP_TECH_LEAD_GROUP": group_dn("shortlist-tech-leads"),
            "LDAP_REVIEWER_GROUP": group_dn("shortlist-reviewers"),
            "LDAP_PROCUREMENT_GROUP": group_dn("shortlist-procurement"),
            "LDAP_DENY_GROUP": group_dn("disabled-accounts"),
            "LDAP_TIMEOUT": "3",
            **extra,
        }

    def admin(self):
        conn = ldap.initialize(self.uri)
        conn.simple_bind_s(ROOT_DN, ROOT_PASSWORD)
        return conn

    def move(self, uid: str, *, leave: str, join: str) -> None:
        """Take a person out of one group and into another, as a directory admin would."""
        conn = self.admin()
        member = person_dn(uid).encode()
        conn.modify_s(group_dn(join), [(ldap.MOD_ADD, "member", [member])])
        conn.modify_s(group_dn(leave), [(ldap.MOD_DELETE, "member", [member])])
        conn.unbind_s()

    def stop(self) -> None:
        stop_process(self.process)


def available() -> bool:
    return Path(SLAPD).exists()


def make_certificates(folder: Path, name: str = "ca") -> None:
    """A throwaway certificate authority `name`.pem and, signed by it, a certificate for
    127.0.0.1 (server.pem, server.key), with openssl."""

    def run(*args):
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True)

    run(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "2",
        "-subj",
        f"/CN=Shortlist test {name}",
        "-keyout",
        f"{name}.key",
        "-out",
        f"{name}.pem",
    )
    run(
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=127.0.0.1",
        "-keyout",
        "server.key",
        "-out",
        "server.csr",
    )
    (folder / "san.cnf").write_text("subjectAltName=IP:127.0.0.1\n")
    run(
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        f"{name}.pem",
        "-CAkey",
        f"{name}.key",
        "-CAcreateserial",
        "-days",
        "2",
        "-extfile",
        "san.cnf",
        "-out",
        "server.pem",
    )


def start(folder: Path, *, tls: bool = False) -> Directory:
    """Start slapd on a free port with the people and groups above; with `tls`, a certificate
    from a throwaway authority, StartTLS on the ldap:// port and an ldaps:// port."""
    (folder / "data").mkdir(parents=True)
    config = folder / "slapd.conf"
    text = CONFIG.format(folder=folder, suffix=SUFFIX, root_dn=ROOT_DN, root_password=ROOT_PASSWORD)
    uri, ldaps_uri = f"ldap://127.0.0.1:{free_port()}", ""
    listen = f"{uri}/"
    if tls:
        make_certificates(folder)
        text = TLS_CONFIG.format(folder=folder) + text
        ldaps_uri = f"ldaps://127.0.0.1:{free_port()}"
        listen += f" {ldaps_uri}/"
    config.write_text(text)
    # -d 0: stay in the foreground (so the test owns the process) without debug output.
    process = subprocess.Popen(
        [SLAPD, "-f", str(config), "-h", listen, "-d", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    directory = Directory(uri, folder, process, ldaps_uri)
    deadline = time.monotonic() + 15
    while True:
        try:
            conn = directory.admin()
            break
        except ldap.SERVER_DOWN as exc:
            if process.poll() is not None or time.monotonic() > deadline:
                directory.stop()
                why = process.stderr.read().decode()
                raise RuntimeError(f"slapd did not start: {why}") from exc
            time.sleep(0.05)
    _fill(conn)
    conn.unbind_s()
    return directory


def _add(conn, dn: str, attrs: dict) -> None:
    encoded = {
        k: [v.encode() for v in (vs if isinstance(vs, list) else [vs])] for k, vs in attrs.items()
    }
    conn.add_s(dn, ldap.modlist.addModlist(encoded))


def _fill(conn) -> None:
    _add(
        conn,
        SUFFIX,
        {"objectClass": ["dcObject", "organization"], "o": "Shortlist", "dc": "shortlist"},
    )
    for ou in ("people", "groups", "services"):
        _add(conn, f"ou={ou},{SUFFIX}", {"objectClass": "organizationalUnit", "ou": ou})
    _add(
        conn,
        SERVICE_DN,
        {
            "objectClass": ["organizationalRole", "simpleSecurityObject"],
            "cn": "shortlist-svc",
            "userPassword": SERVICE_PASSWORD,
        },
    )
    for uid, (given, surname, password, _groups) in PERSONS.items():
        _add(
            conn,
            person_dn(uid),
            {
                "objectClass": "inetOrgPerson",
                "uid": uid,
                "cn": f"{given} {surname}",
                "givenName": given,
                "sn": surname,
                "mail": f"{uid}@corp.example",
                "userPassword": password,
            },
        )
    for name in GROUP_NAMES:
        members = [person_dn(uid) for uid, person in PERSONS.items() if name in person[3]]
        members.append(PLACEHOLDER)  # groupOfNames needs a member, even when all have left
        _add(conn, group_dn(name), {"objectClass": "groupOfNames", "cn": name, "member": members})


def remove(directory: Directory) -> None:
    directory.stop()
    shutil.rmtree(directory.folder, ignore_errors=True)
