"""When a catalog claim is too old or too thin to lean on.

A claim's as-of texts (its `as_of_version` and each source's `as_of`) are free text such as
"SchedMD/slurm commit of 2026-08-20", "page dated 2025-08-19", "docs as of 2026" or "v1.15.1".
The rule, in one place (`claim_staleness`):

* a claim whose level is unknown is not "stale": it says nothing, and is listed as unknown;
* a claim with neither a source nor an as-of version is **unsourced**;
* otherwise the newest date found in its as-of texts is when it was last checked: a full date
  (2026-08-20) or month (2026-08) as written, a bare year (2026) read as the end of that year so
  a year alone never makes a claim look older than it may be. If that date is more than
  `STALE_AFTER_MONTHS` months before the reference day (the report's date), the claim is
  **stale**. A claim with a version or source but no date at all is not judged stale: a version
  number says what was read, even if not when;
* a claim is also **stale** when its as-of version and the solution's latest known version (its
  recorded latest release, else the free-text latest version seen) are both plain version
  numbers (26.05.3, v1.15.1) and the latest is a minor release or more ahead
  (v1.16.0 against a claim about v1.15.1): the claim describes a release that is no longer the
  current one. Versions written any other way ("Kueue v0.19.2", "docs v3.0") are not compared.

An entry's latest known release looks ahead the other way: once it is older than
`RELEASE_REVIEW_MONTHS`, a newer release may be out, and the review queue lists the entry.

Stdlib only, so it can be tested without a database.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from django.conf import settings

# settings.CATALOG_STALE_AFTER_MONTHS (environment variable of the same name), 12 by default.
STALE_AFTER_MONTHS = getattr(settings, "CATALOG_STALE_AFTER_MONTHS", 12)
# settings.CATALOG_RELEASE_REVIEW_MONTHS: an entry whose latest known release came out longer
# ago than this may have a newer one nobody recorded, so the review queue lists it (6 by default).
RELEASE_REVIEW_MONTHS = getattr(settings, "CATALOG_RELEASE_REVIEW_MONTHS", 6)

UNSOURCED = "unsourced"
STALE = "stale"

_FULL = re.compile(r"(?<!\d)((?:19|20)\d{2})-(\d{2})(?:-(\d{2}))?(?!\d)")
_YEAR = re.compile(r"(?<![\d.\-v])((?:19|20)\d{2})(?![\d.\-])")
_VERSION = re.compile(r"^\s*v?(\d+)\.(\d+)(?:\.\d+)?\s*$")


@dataclass(frozen=True)
class Staleness:
    reason: str  # UNSOURCED or STALE
    checked: date | None = None  # the newest date found, for STALE
    behind: str = ""  # for STALE by version: the solution's latest version, which is ahead


def freshness_day() -> date:
    """The day freshness is judged on for what the app shows and reminds of: today, or the
    fixed day settings.CATALOG_FRESHNESS_DAY names (the test suite pins it, so that its
    reminders do not change as the calendar moves past the seeded sources' dates)."""
    from django.utils import timezone

    fixed = getattr(settings, "CATALOG_FRESHNESS_DAY", None)
    return date.fromisoformat(fixed) if fixed else timezone.localdate()


def _end_of_month(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def checked_on(texts: Iterable[str]) -> date | None:
    """The newest date written in `texts` (see the module docstring), or None."""
    found = checked_as_written(texts)
    return found[0] if found else None


def checked_as_written(texts: Iterable[str]) -> tuple[date, str] | None:
    """The newest date written in `texts` and how it was written: as "YYYY-MM-DD", "YYYY-MM"
    or "YYYY" (so a page can show "2026" rather than the 31 December it is read as)."""
    found: list[tuple[date, str]] = []
    for text in texts:
        text = text or ""
        for year, month, day in _FULL.findall(text):
            y, m = int(year), int(month)
            if not 1 <= m <= 12:
                continue
            try:
                if day:
                    found.append((date(y, m, int(day)), f"{year}-{month}-{day}"))
                else:
                    found.append((_end_of_month(y, m), f"{year}-{month}"))
            except ValueError:
                continue
        for year in _YEAR.findall(_FULL.sub(" ", text)):
            found.append((date(int(year), 12, 31), year))
    return max(found, default=None, key=lambda pair: pair[0])


def day_texts(days: Iterable[date | str | None]) -> list[str]:
    """Checked-on days as texts the date reader reads ("YYYY-MM-DD")."""
    return [d if isinstance(d, str) else d.isoformat() for d in days if d]


def months_before(day: date, months: int) -> date:
    """The same day `months` months earlier, clamped to that month's last day."""
    year, month0 = divmod(day.year * 12 + day.month - 1 - months, 12)
    return date(year, month0 + 1, min(day.day, _end_of_month(year, month0 + 1).day))


def minor_release(text: str) -> tuple[int, int] | None:
    """(major, minor) of a plain version number such as "v1.15.1" or "26.05", else None."""
    match = _VERSION.match(text or "")
    return (int(match.group(1)), int(match.group(2))) if match else None


def release_outdated(released: date | None, *, on: date, months: int = RELEASE_REVIEW_MONTHS):
    """Whether a latest known release of `released` is older than `months` on `on`."""
    return released is not None and released < months_before(on, months)


def claim_staleness(
    *,
    level: str,
    as_of_version: str,
    source_as_of: list[str],
    has_sources: bool,
    on: date | None,
    months: int = STALE_AFTER_MONTHS,
    latest_version: str = "",
    checked: Iterable[date | None] = (),
) -> Staleness | None:
    """Why a claim should not be leaned on without checking, or None when it may be.

    `source_as_of` are the as-of texts of its sources; `on` is the reference day (None: no
    date rule, e.g. when the report's date is not known); `latest_version` is the solution's
    latest known version; `checked` are the days the claim and its sources were last read
    (their checked-on fields), which count like dates written in the texts."""
    if level == "unknown":
        return None
    if not has_sources and not (as_of_version or "").strip():
        return Staleness(UNSOURCED)
    checked = checked_on([as_of_version, *source_as_of, *day_texts(checked)])
    described, latest = minor_release(as_of_version), minor_release(latest_version)
    if described is not None and latest is not None and latest > described:
        return Staleness(STALE, checked, behind=latest_version.strip())
    if on is None:
        return None
    if checked is not None and checked < months_before(on, months):
        return Staleness(STALE, checked)
    return None
