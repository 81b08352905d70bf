"""The administrators' review list: every capability a POC verified or contradicted, across
evaluations, with the version tested and the catalog's claim, so they can update the catalog.
Nothing here writes to the catalog. A page holds the findings of a few evaluations (the most
recently changed first), so its cost does not grow with the number of evaluations."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import PermissionDenied
from django.core.paginator import Page, Paginator
from django.db.models import Q
from django.shortcuts import render
from django.views import View

from evaluations.models import Evaluation
from evaluations.selectors import evaluations_for_user

from ..models import PlanCase
from .findings import CandidateFindings, CapabilityFinding, poc_verification


@dataclass
class ReviewRow:
    evaluation: Evaluation
    candidate: CandidateFindings
    finding: CapabilityFinding
    # Whether the reader is a member of the evaluation: only a member sees which evaluation it
    # is and its cases (membership rule); every administrator sees the finding and the claim.
    member: bool = False


# Evaluations per page: each one's findings are read with all its scores.
EVALUATIONS_PER_PAGE = 10


def evaluations_with_findings():
    """Evaluations with a scored case that verifies a capability, most recently changed first."""
    verifying = PlanCase.objects.filter(
        Q(verifies__isnull=False) | Q(source_case__verifies__isnull=False)
    ).filter(Q(scores__submitted_at__isnull=False) | Q(consensus__isnull=False))
    return Evaluation.objects.filter(pk__in=verifying.values("evaluation_id")).order_by(
        "-updated_at", "-pk"
    )


def findings_page(user, number) -> tuple[Page, list[ReviewRow]]:
    """One page of `evaluations_with_findings` and their findings (contradictions first), read
    with every score (the reader is an administrator; nothing is shown to members through
    this)."""
    page = Paginator(evaluations_with_findings(), EVALUATIONS_PER_PAGE).get_page(number)
    evaluations = list(page)
    mine = set(
        evaluations_for_user(user)
        .filter(pk__in=[e.pk for e in evaluations])
        .values_list("pk", flat=True)
    )
    rows = []
    for evaluation in evaluations:
        verification = poc_verification(evaluation, user, see_all=True)
        member = evaluation.pk in mine
        for cf in verification.candidates:
            rows.extend(ReviewRow(evaluation, cf, f, member) for f in cf.findings)
    rows.sort(key=lambda r: (r.finding.verified, r.finding.capability.name, r.evaluation.pk))
    return page, rows


class VerificationReviewView(LoginRequiredMixin, View):
    def get(self, request):
        if not request.user.has_perm("poc.review_verifications"):
            raise PermissionDenied
        page, rows = findings_page(request.user, request.GET.get("page"))
        return render(request, "poc/verification_review.html", {"page": page, "rows": rows})
