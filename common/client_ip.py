"""The address of the client behind the proxies this installation trusts (TRUSTED_PROXIES).

Behind a reverse proxy, REMOTE_ADDR is the proxy's address, the same for every user: counting
wrong passwords per address would then let anyone who knows a username lock its owner out. Each
proxy appends the address that called it to X-Forwarded-For, so the entries on the right were
written by proxies we trust, and the first entry that, read from the right, is not one of them
is the client. What is to the left of it was sent by the client and is never believed. Without
TRUSTED_PROXIES, or for a connection that does not come from one of them, the client is
REMOTE_ADDR, and X-Forwarded-For is ignored.

django-axes reads the address through AXES_CLIENT_IP_CALLABLE (config/settings/base.py).
"""

from __future__ import annotations

import ipaddress

from django.conf import settings


def networks(entries) -> tuple:
    """Addresses or CIDR networks (e.g. `10.0.0.0/8,192.0.2.7`) as networks; a value that is
    neither raises ValueError (the settings check them when they load)."""
    return tuple(ipaddress.ip_network(e.strip(), strict=False) for e in entries if e.strip())


def _address(text: str):
    """An IP address from one X-Forwarded-For entry (a port or IPv6 brackets allowed), else
    None."""
    text = text.strip()
    if text.startswith("["):  # [2001:db8::1]:443
        text = text[1:].split("]", 1)[0]
    elif text.count(":") == 1:  # 192.0.2.7:443
        text = text.split(":", 1)[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _trusted(address, trusted: tuple) -> bool:
    return address is not None and any(address in network for network in trusted)


def client_ip(request) -> str:
    """The client's address: REMOTE_ADDR, or, when that is a trusted proxy, the rightmost
    X-Forwarded-For entry that is not a trusted proxy (the last trusted hop when the entry
    there is not an address)."""
    remote = request.META.get("REMOTE_ADDR", "")
    trusted = networks(settings.TRUSTED_PROXIES)
    if not trusted or not _trusted(_address(remote), trusted):
        return remote
    client = remote
    for entry in reversed(request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")):
        address = _address(entry)
        if address is None:
            break
        client = str(address)
        if not _trusted(address, trusted):
            break
    return client
