"""Reads from the catalog, shaped for pages, the API and (later) reports."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from django.db.models import Prefetch, QuerySet

from .freshness import (
    RELEASE_REVIEW_MONTHS,
    STALE,
    UNSOURCED,
    Staleness,
    checked_as_written,
    claim_staleness,
    day_texts,
    release_outdated,
)
from .models import (
    AcceleratorSupport,
    Capability,
    CapabilityClaim,
    CapabilityGroup,
    Solution,
    SupportLevel,
)

MIN_COMPARE = 2
MAX_COMPARE = 8


def solution_queryset() -> QuerySet[Solution]:
    return Solution.objects.select_related("solution_type", "release_source").prefetch_related(
        "scenarios"
    )


def chosen_solutions(*, slugs: list[str]) -> list[Solution]:
    """The solutions ticked for comparison, in the order given, once each; unknown slugs are
    left out. One query (none when nothing is ticked)."""
    wanted = list(dict.fromkeys(s.strip() for s in slugs if s.strip()))
    if not wanted:
        return []
    by_slug = {s.slug: s for s in Solution.objects.filter(slug__in=wanted)}
    return [by_slug[slug] for slug in wanted if slug in by_slug]


def solution_detail_queryset() -> QuerySet[Solution]:
    claims = CapabilityClaim.objects.select_related("capability__group").prefetch_related("sources")
    support = AcceleratorSupport.objects.select_related("family").prefetch_related("sources")
    return solution_queryset().prefetch_related(
        Prefetch("claims", queryset=claims),
        Prefetch("accelerator_support", queryset=support),
        "shortlist_rules",
    )


@dataclass
class ComparisonRow:
    capability: Capability
    claims: list[CapabilityClaim | None]

    @property
    def differs(self) -> bool:
        """True when the compared solutions do not all have the same level."""
        return len({c.level if c else SupportLevel.UNKNOWN for c in self.claims}) > 1


@dataclass
class ComparisonGroup:
    group: CapabilityGroup
    rows: list[ComparisonRow] = field(default_factory=list)


@dataclass
class Comparison:
    solutions: list[Solution]
    groups: list[ComparisonGroup]

    def level_counts(self) -> list[dict[str, int]]:
        """Per solution, how many capabilities sit at each support level.

        Keys use underscores ("add_on") so templates can read them.
        """
        counts = [{v.replace("-", "_"): 0 for v in SupportLevel.values} for _ in self.solutions]
        for group in self.groups:
            for row in group.rows:
                for i, claim in enumerate(row.claims):
                    level = claim.level if claim else SupportLevel.UNKNOWN
                    counts[i][level.replace("-", "_")] += 1
        return counts


def solution_comparison(*, solutions: list[Solution]) -> Comparison:
    """Build the capability matrix for the given solutions, in the given order.

    Four queries whatever the number of solutions: groups, capabilities, claims, claim sources.
    """
    ids = [s.pk for s in solutions]
    claims = CapabilityClaim.objects.filter(solution_id__in=ids).prefetch_related("sources")
    by_key = {(c.solution_id, c.capability_id): c for c in claims}
    groups = []
    capabilities = Capability.objects.order_by("order", "pk")
    for group in CapabilityGroup.objects.prefetch_related(
        Prefetch("capabilities", queryset=capabilities)
    ):
        rows = [
            ComparisonRow(capability=cap, claims=[by_key.get((sid, cap.pk)) for sid in ids])
            for cap in group.capabilities.all()
        ]
        if rows:
            groups.append(ComparisonGroup(group=group, rows=rows))
    return Comparison(solutions=solutions, groups=groups)


@dataclass(frozen=True)
class Freshness:
    """When a claim was last checked (the newest date in its as-of texts) and why it should
    not be leaned on without checking (catalog.freshness), as of a day."""

    checked: date | None
    checked_text: str  # the date as it was written ("2026-08-20", "2026-08", "2026"), or ""
    staleness: Staleness | None

    @property
    def stale(self) -> bool:
        return self.staleness is not None and self.staleness.reason == STALE

    @property
    def unsourced(self) -> bool:
        return self.staleness is not None and self.staleness.reason == UNSOURCED


@dataclass(frozen=True)
class ReleaseReview:
    """Active entries to look at for a newer release: `outdated` have a latest known release
    older than the review period, `unrecorded` have none recorded."""

    outdated: list[Solution]
    unrecorded: list[Solution]
    months: int


def releases_to_review(on: date, *, months: int = RELEASE_REVIEW_MONTHS) -> ReleaseReview:
    """One query: the entries whose latest release is older than `months` on `on` (oldest
    first), and those with no release recorded."""
    solutions = list(
        Solution.objects.filter(is_active=True)
        .select_related("release_source")
        .order_by("release_date", "name")
    )
    return ReleaseReview(
        outdated=[s for s in solutions if release_outdated(s.release_date, on=on, months=months)],
        unrecorded=sorted((s for s in solutions if not s.release_version), key=lambda s: s.name),
        months=months,
    )


def row_staleness(row, *, on: date | None, latest_version: str) -> Staleness | None:
    """The staleness rule for a claim or an accelerator support row (its prefetched sources,
    its checked-on day and theirs), given the latest version of the solution it describes."""
    sources = list(row.sources.all())
    return claim_staleness(
        level=row.level,
        as_of_version=row.as_of_version,
        source_as_of=[source.as_of for source in sources],
        has_sources=bool(sources),
        on=on,
        latest_version=latest_version,
        checked=[row.checked_on, *(source.checked_on for source in sources)],
    )


def claim_freshness(claim: CapabilityClaim, *, on: date) -> Freshness:
    """Reads the claim's prefetched sources and its solution (loaded with it)."""
    sources = list(claim.sources.all())
    staleness = row_staleness(claim, on=on, latest_version=claim.solution.known_version())
    days = [claim.checked_on, *(source.checked_on for source in sources)]
    written = checked_as_written(
        [claim.as_of_version, *(s.as_of for s in sources), *day_texts(days)]
    )
    checked, text = written if written else (None, "")
    return Freshness(checked, text, staleness)


@dataclass(frozen=True)
class EntryCounts:
    """How much of one catalog entry's claims can be leaned on (catalog_summary)."""

    solution: Solution
    claims: int
    sourced: int  # a level other than unknown, with a source
    none: int  # of the sourced: read in the documentation, not offered
    unknown: int
    stale: int  # catalog.freshness: checked more than STALE_AFTER_MONTHS before `on`
    unsourced: int  # a level other than unknown with neither a source nor a version


def catalog_counts(*, on: date) -> list[EntryCounts]:
    """Per active catalog entry, in catalog order: its claims by how they are backed, as of
    `on` (three queries)."""
    claims = CapabilityClaim.objects.prefetch_related("sources").only(
        "solution_id", "level", "as_of_version", "checked_on"
    )
    solutions = (
        Solution.objects.filter(is_active=True)
        .select_related("solution_type")
        .prefetch_related(Prefetch("claims", queryset=claims))
    )
    out = []
    for solution in solutions:
        found = list(solution.claims.all())
        known = [c for c in found if c.level != SupportLevel.UNKNOWN]
        sourced = [c for c in known if c.sources.all()]
        freshness = [claim_freshness(c, on=on) for c in known]
        out.append(
            EntryCounts(
                solution=solution,
                claims=len(found),
                sourced=len(sourced),
                none=sum(1 for c in sourced if c.level == SupportLevel.NONE),
                unknown=len(found) - len(known),
                stale=sum(1 for f in freshness if f.stale),
                unsourced=sum(1 for f in freshness if f.unsourced),
            )
        )
    return out
