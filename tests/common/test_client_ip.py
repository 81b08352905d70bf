"""The client's address behind trusted proxies (common/client_ip.py, TRUSTED_PROXIES)."""

import os
import subprocess
import sys

import pytest
from django.test import RequestFactory, override_settings

from common.client_ip import client_ip


def address(remote: str, forwarded: str | None = None) -> str:
    headers = {} if forwarded is None else {"HTTP_X_FORWARDED_FOR": forwarded}
    return client_ip(RequestFactory().get("/", REMOTE_ADDR=remote, **headers))


@override_settings(TRUSTED_PROXIES=[])
def test_without_trusted_proxies_the_connection_is_the_client():
    assert address("203.0.113.9", "198.51.100.7") == "203.0.113.9"


@override_settings(TRUSTED_PROXIES=["10.0.0.0/8", "2001:db8::/32"])
@pytest.mark.parametrize(
    ("remote", "forwarded", "client"),
    [
        ("10.0.0.2", "203.0.113.9", "203.0.113.9"),
        ("10.0.0.2", "198.51.100.7, 203.0.113.9", "203.0.113.9"),  # the left one is forged
        ("10.0.0.2", "203.0.113.9, 10.1.1.1", "203.0.113.9"),  # two proxies
        ("10.0.0.2", "203.0.113.9:51234", "203.0.113.9"),
        ("2001:db8::5", "[2001:db8:ffff::1]:443, 2001:db8::9", "2001:db8:ffff::1"),  # all trusted
        ("2001:db8::5", "2a00:1450::1", "2a00:1450::1"),
        ("10.0.0.2", "", "10.0.0.2"),
        ("10.0.0.2", None, "10.0.0.2"),
        ("10.0.0.2", "unknown, 10.1.1.1", "10.1.1.1"),  # garbage: the last trusted hop
        ("203.0.113.9", "198.51.100.7", "203.0.113.9"),  # not from a proxy: not believed
    ],
)
def test_the_client_is_the_rightmost_entry_that_is_not_a_trusted_proxy(remote, forwarded, client):
    assert address(remote, forwarded) == client


def test_an_invalid_trusted_proxy_stops_the_settings_from_loading():
    env = {
        "TRUSTED_PROXIES": "10.0.0.0/8,proxy.example",
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
    }
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0 and "proxy.example" in result.stderr
