"""The staleness rule for catalog claims (catalog.freshness): pure, no database."""

from datetime import date

import pytest

from catalog.freshness import STALE, UNSOURCED, checked_on, claim_staleness, months_before

DAY = date(2027, 3, 1)


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (["SchedMD/slurm commit of 2026-08-20 (tag 26.05.3)"], date(2026, 8, 20)),
        (["page dated 2025-08-19", "undated (read 2026)"], date(2026, 12, 31)),
        (["docs as of 2024-05"], date(2024, 5, 31)),
        (["v1.15.1", "26.05.3", "Kubernetes 1.28-1.34", "docs version 22.9.2"], None),
        (["", "latest docs"], None),
        (["commit of 2026-13-40"], None),
    ],
)
def test_checked_on_reads_the_newest_written_date(texts, expected):
    assert checked_on(texts) == expected


@pytest.mark.parametrize(
    ("day", "months", "expected"),
    [
        (date(2027, 3, 1), 12, date(2026, 3, 1)),
        (date(2027, 3, 31), 1, date(2027, 2, 28)),
        (date(2027, 1, 15), 1, date(2026, 12, 15)),
    ],
)
def test_months_before(day, months, expected):
    assert months_before(day, months) == expected


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        # Unknown claims are listed as unknown, never as stale.
        (dict(level="unknown", as_of_version="", source_as_of=[], has_sources=False), None),
        # Neither a source nor a version: unsourced, whatever the day.
        (dict(level="native", as_of_version="", source_as_of=[], has_sources=False), UNSOURCED),
        (dict(level="partial", as_of_version="  ", source_as_of=[], has_sources=False), UNSOURCED),
        # Checked more than 12 months before the report: stale.
        (
            dict(
                level="native",
                as_of_version="",
                source_as_of=["dated 2025-08-19"],
                has_sources=True,
            ),
            STALE,
        ),
        # Within 12 months, or only a year that is not over a year old: fine.
        (
            dict(
                level="native",
                as_of_version="",
                source_as_of=["dated 2026-03-02"],
                has_sources=True,
            ),
            None,
        ),
        (dict(level="add-on", as_of_version="read 2026", source_as_of=[], has_sources=False), None),
        # A version without a date says what was read: not judged stale.
        (dict(level="native", as_of_version="v1.15.1", source_as_of=[], has_sources=False), None),
        # The newest date counts: an old source does not outweigh a recent version date.
        (
            dict(
                level="none",
                as_of_version="commit of 2026-12-01",
                source_as_of=["dated 2019-01-01"],
                has_sources=True,
            ),
            None,
        ),
    ],
)
def test_claim_staleness(claim, expected):
    finding = claim_staleness(**claim, on=DAY)
    assert (finding.reason if finding else None) == expected
    if finding and finding.reason == STALE:
        assert finding.checked == date(2025, 8, 19)


def test_without_a_report_day_only_the_unsourced_rule_applies():
    old = dict(level="native", as_of_version="", source_as_of=["2001-01-01"], has_sources=True)
    assert claim_staleness(**old, on=None) is None
    bare = dict(level="native", as_of_version="", source_as_of=[], has_sources=False)
    assert claim_staleness(**bare, on=None).reason == UNSOURCED


@pytest.mark.parametrize(
    ("described", "latest", "behind"),
    [
        ("v1.15.1", "v1.16.0", "v1.16.0"),  # a minor release ahead: stale
        ("v1.15.1", "v2.0.0", "v2.0.0"),  # a major one too
        ("26.05.3", "26.11.0", "26.11.0"),  # Slurm's year.month numbering
        ("v1.15.1", "v1.15.4", ""),  # a patch release only: fine
        ("v1.15.1", "v1.15.1", ""),
        ("v1.16.0", "v1.15.1", ""),  # the claim is newer than the latest recorded
        ("Kueue v0.19.2", "v0.20.0", ""),  # not a plain version number: not compared
        ("v1.15.1", "device plugin v0.20.0", ""),
        ("v1.15.1", "", ""),
    ],
)
def test_a_claim_about_an_older_minor_release_is_stale(described, latest, behind):
    claim = dict(level="native", as_of_version=described, source_as_of=[], has_sources=True)
    for day in (DAY, None):  # the version rule needs no report day
        finding = claim_staleness(**claim, on=day, latest_version=latest)
        assert (finding.behind if finding else "") == behind
        assert finding is None or finding.reason == STALE
