"""Addresses that can never be evidence: the names reserved for documentation and testing.

RFC 2606 and RFC 6761 reserve example.com, example.net and example.org (and their subdomains)
and the top-level names .example, .invalid, .localhost and .test; `localhost` names the machine
itself. A link to one of them is a placeholder someone left in, so a report prints it as
"placeholder — not evidence" rather than as a link a reader could follow.
"""

from __future__ import annotations

from urllib.parse import urlsplit

RESERVED_DOMAINS = ("example.com", "example.net", "example.org")
RESERVED_TLDS = ("example", "invalid", "localhost", "test")


def is_placeholder_url(url: str) -> bool:
    """True when `url` points at a reserved documentation/testing name (see the module
    docstring); False for an empty value, a real host or something that is not a URL."""
    text = (url or "").strip()
    if not text:
        return False
    try:
        host = urlsplit(text if "//" in text else f"//{text}").hostname
    except ValueError:
        return False
    if not host:
        return False
    host = host.rstrip(".").lower()
    if host == "localhost" or host.rsplit(".", 1)[-1] in RESERVED_TLDS:
        return True
    return any(host == d or host.endswith(f".{d}") for d in RESERVED_DOMAINS)
