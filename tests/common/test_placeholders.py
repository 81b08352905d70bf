"""Placeholder addresses (RFC 2606 / RFC 6761 names) are never evidence."""

import pytest

from common.placeholders import is_placeholder_url


@pytest.mark.parametrize(
    "url",
    [
        "https://example.com/poc/slurm-accounting-report",
        "http://www.example.org/x",
        "https://EXAMPLE.NET",
        "https://docs.example/page",
        "https://nothing.invalid/",
        "https://example.test/runbook",
        "http://localhost:8000/evidence",
        "http://app.localhost/",
        "example.com/no-scheme",
        "https://example.com./trailing-dot",
    ],
)
def test_reserved_names_are_placeholders(url):
    assert is_placeholder_url(url)


@pytest.mark.parametrize(
    "url",
    [
        "",
        None,
        "https://github.com/SchedMD/slurm",
        "https://myexample.com/x",
        "https://example.com.cn/real",
        "https://testing.io/",
        "https://intranet.corp/evidence/42",
        "not a url at all",
        "http://[::1",
    ],
)
def test_real_or_unparseable_addresses_are_not(url):
    assert not is_placeholder_url(url)
