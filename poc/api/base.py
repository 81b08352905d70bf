"""What the POC API's views share: the base view of an evaluation's POC, a plan case looked
up within the evaluation, and the candidates' totals (scorecard and results)."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext
from rest_framework.exceptions import NotFound

from evaluations.models import Candidate, Evaluation
from evaluations.scoped import EvaluationScopedView

from .. import scoring
from ..models import PlanCase
from ..selectors import Scorecard, plan_cases
from ..verification import CASE_CAPABILITIES


class PocView(EvaluationScopedView):
    """A view about one evaluation's POC; evidence links need the evaluation's id."""

    def get_serializer_context(self):
        context = super().get_serializer_context()
        context["evaluation_pk"] = self.kwargs[self.evaluation_url_kwarg]
        return context


def plan_case_for(evaluation: Evaluation, pk) -> PlanCase:
    case = plan_cases(evaluation).prefetch_related(*CASE_CAPABILITIES).filter(pk=pk).first()
    if case is None:
        raise NotFound(gettext("This evaluation's POC plan has no case %(id)s.") % {"id": pk})
    case.evaluation = evaluation  # the services read it; its member roles are cached
    return case


@dataclass
class CandidateTotal:
    candidate: Candidate
    overall: scoring.Overall


def candidate_totals(card: Scorecard, overall: dict[int, scoring.Overall] | None = None) -> list:
    return [
        CandidateTotal(c, card.overall(c) if overall is None else overall[c.pk])
        for c in card.candidates
    ]
