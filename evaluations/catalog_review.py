"""The administrators' queue of catalog claims to check again: claims that are stale or have
nothing behind them (catalog.freshness), those that open evaluations lean on first. It shows
how many evaluations use a claim, never which: administrators are not members of them all.
Above them, the entries whose latest known release is older than the review period (a newer
release may be out, which would make their claims stale) and those with none recorded.
Nothing here writes to the catalog."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Count, IntegerField, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce
from django.shortcuts import render
from django.utils import timezone
from django.views import View

from catalog.freshness import STALE_AFTER_MONTHS, freshness_day
from catalog.models import CapabilityClaim, Solution, SupportLevel
from catalog.selectors import Freshness, claim_freshness, releases_to_review

from .models import CandidateStatus, Evaluation, Status

OPEN = (Status.DRAFT, Status.POC)
PAGE_SIZE = 50


@dataclass
class ClaimToReview:
    claim: CapabilityClaim  # with `freshness` set, as the catalog's partials read it
    open_evaluations: int  # open evaluations with the claim's solution shortlisted, or a layer

    @property
    def freshness(self) -> Freshness:
        return self.claim.freshness


def open_evaluations_by_solution(solution_ids) -> dict[int, int]:
    """Solution pk -> how many open evaluations have it shortlisted, alone or as a stack layer
    (one aggregate query, whatever the number of evaluations)."""
    shortlisted = Q(candidates__status=CandidateStatus.SHORTLISTED)
    using = (
        Evaluation.objects.filter(status__in=OPEN)
        .filter(
            shortlisted & Q(candidates__solution=OuterRef("pk"))
            | shortlisted & Q(candidates__layers__solution=OuterRef("pk"))
        )
        .order_by()
        .values(group=Value(1))
        .annotate(n=Count("pk", distinct=True))
        .values("n")
    )
    solutions = Solution.objects.filter(pk__in=solution_ids).annotate(
        n=Coalesce(Subquery(using, output_field=IntegerField()), 0)
    )
    return dict(solutions.values_list("pk", "n"))


def claims_to_review(on: date) -> list[ClaimToReview]:
    """Every stale or unsourced claim as of `on`, the most used first."""
    claims = (
        CapabilityClaim.objects.exclude(level=SupportLevel.UNKNOWN)
        .filter(solution__is_active=True)
        .select_related("solution", "capability__group")
        .prefetch_related("sources")
    )
    flagged = []
    for claim in claims:
        claim.freshness = claim_freshness(claim, on=on)
        if claim.freshness.staleness:
            flagged.append(claim)
    used = open_evaluations_by_solution({c.solution_id for c in flagged})
    rows = [ClaimToReview(c, used.get(c.solution_id, 0)) for c in flagged]
    rows.sort(
        key=lambda r: (
            -r.open_evaluations,
            r.claim.solution.name,
            r.claim.capability.group.order,
            r.claim.capability.order,
        )
    )
    return rows


class CatalogReviewView(LoginRequiredMixin, View):
    def get(self, request):
        if not request.user.has_perm("catalog.change_capabilityclaim"):
            raise PermissionDenied
        today = timezone.localdate()
        rows = claims_to_review(today)
        page = Paginator(rows, PAGE_SIZE).get_page(request.GET.get("page"))
        context = {
            "page": page,
            "total": len(rows),
            "stale_after": STALE_AFTER_MONTHS,
            "releases": releases_to_review(freshness_day()),
        }
        return render(request, "evaluations/catalog_review.html", context)
