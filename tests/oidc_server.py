"""A throwaway OpenID provider for the company sign-in tests: the OpenID-certified
`oidc-provider` package under node (tests/oidc_provider, installed by `make test`), on a free
port, with one client and a few accounts. Its development sign-in pages accept any password for
a known account."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from tests.embedded import free_port, stop_process

FOLDER = Path(__file__).resolve().parent / "oidc_provider"
CLIENT_ID = "shortlist"
CLIENT_SECRET = "a-client-secret-for-tests-only"

# account id → claims. "noah" is only in a group that gives no role; "breakglass" shares its
# name with the local admin account the tests make.
ACCOUNTS = {
    "lena": {
        "email": "lena@corp.example",
        "given_name": "Lena",
        "family_name": "Wang",
        "groups": ["gpu-platform-leads", "all-staff"],
    },
    "pia": {
        "email": "pia@corp.example",
        "given_name": "Pia",
        "family_name": "Keller",
        "groups": ["it-procurement"],
    },
    "noah": {"email": "noah@corp.example", "groups": ["all-staff"]},
    "breakglass": {"email": "bg@corp.example", "groups": ["shortlist-admins"]},
}


@dataclass
class Provider:
    issuer: str
    process: subprocess.Popen

    def environ(self, **extra) -> dict[str, str]:
        """The environment variables an operator would set for this provider."""
        return {
            "OIDC_DISCOVERY_URL": f"{self.issuer}/.well-known/openid-configuration",
            "OIDC_CLIENT_ID": CLIENT_ID,
            "OIDC_CLIENT_SECRET": CLIENT_SECRET,
            "OIDC_ADMIN_GROUP": "shortlist-admins",
            "OIDC_TECH_LEAD_GROUP": "gpu-platform-leads",
            "OIDC_PROCUREMENT_GROUP": "it-procurement",
            "OIDC_TIMEOUT": "3",
            **extra,
        }

    def stop(self) -> None:
        stop_process(self.process)


def available() -> bool:
    return bool(shutil.which("node")) and (FOLDER / "node_modules" / "oidc-provider").is_dir()


def start(app_url: str) -> Provider:
    """Start the provider for the app at `app_url` (its callback and sign-out return)."""
    port = free_port()
    env = {
        **os.environ,
        "PORT": str(port),
        "CLIENT_ID": CLIENT_ID,
        "CLIENT_SECRET": CLIENT_SECRET,
        "REDIRECT_URI": f"{app_url}/oidc/callback/",
        "POST_LOGOUT_REDIRECT_URI": f"{app_url}/accounts/login/",
        "ACCOUNTS": json.dumps(ACCOUNTS),
    }
    process = subprocess.Popen(
        ["node", "provider.mjs"],
        cwd=FOLDER,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    provider = Provider(f"http://127.0.0.1:{port}", process)
    deadline = time.monotonic() + 20
    while True:
        try:
            with urllib.request.urlopen(f"{provider.issuer}/.well-known/openid-configuration"):
                return provider
        except OSError as exc:
            if process.poll() is not None or time.monotonic() > deadline:
                provider.stop()
                why = process.stderr.read().decode()[-2000:]
                raise RuntimeError(f"the OpenID provider did not start: {why}") from exc
            time.sleep(0.1)
