"""POC API: the test-case library for any signed-in user; inside an evaluation (members only,
others get 404) its one plan for every candidate, the blind scorecard, consensus, evidence,
results and the .xlsx export (the scorecard, scores, consensus and evidence are in cells.py).

Views parse input, look rows up within the evaluation (a case of another evaluation's plan is
404) and call the same services the pages use; the services enforce permissions (403), sealing
(409), the rubric and versions. Everything about other people's scores is read through
`selectors.scorecard(evaluation, user)`, so blind scoring holds here as on the pages: a reviewer
or editor sees other reviewers' scores and evidence for a cell only after submitting their own;
the owner and viewers see every submitted score; drafts are shown to their author only.
Concurrency over HTTP works as in the evaluations API: plan cases and groups, my score and the
consensus carry `version` and answer with `ETag: "<n>"` (0 before the first save); a write names
the version it edited as If-Match (stale: 412) or as `version` in the body (stale: 409), and
updating a saved row without either is refused with 428.
"""

from __future__ import annotations

from dataclasses import dataclass

import django_filters
from django.db.models import Prefetch
from django.http import HttpResponse
from django.urls import reverse
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from catalog.models import Capability
from common.http import (
    READ_ERRORS,
    VERSIONED_WRITE_ERRORS,
    WRITE_ERRORS,
    error_responses,
    precondition,
    precondition_errors,
    with_etag,
)
from evaluations.models import Candidate, Evaluation
from evaluations.scoped import EvaluationScopedView

from .. import scoring, services
from ..export import scorecard_workbook
from ..models import (
    PlanCase,
    PlanGroup,
    ProfileWeight,
    ScenarioProfile,
    TestCase,
    TestGroup,
)
from ..selectors import (
    Scorecard,
    plan_cases,
    plan_default_profile,
    plan_groups,
    results,
    scorecard,
)
from ..thin import thin_note
from ..verification import CASE_CAPABILITIES
from . import serializers as s

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"


# --- the library -----------------------------------------------------------------------------


@extend_schema_view(get=extend_schema(summary="The test groups of the case library"))
class GroupLibraryView(generics.ListAPIView):
    serializer_class = s.TestGroupSerializer
    pagination_class = None
    filter_backends: list = []
    queryset = TestGroup.objects.all()


class CaseLibraryFilterSet(django_filters.FilterSet):
    group = django_filters.CharFilter(field_name="group__key", help_text="A test group's key.")

    class Meta:
        model = TestCase
        fields: list = []


@extend_schema_view(get=extend_schema(summary="The active cases of the library, in order"))
class CaseLibraryView(generics.ListAPIView):
    serializer_class = s.TestCaseSerializer
    pagination_class = None
    filterset_class = CaseLibraryFilterSet

    def get_queryset(self):
        return TestCase.objects.filter(is_active=True).select_related("group")


@extend_schema_view(get=extend_schema(summary="Scenario profiles and their group weights"))
class ProfileLibraryView(generics.ListAPIView):
    serializer_class = s.ScenarioProfileSerializer
    pagination_class = None
    filter_backends: list = []

    def get_queryset(self):
        weights = ProfileWeight.objects.select_related("group").order_by("group__order", "pk")
        return ScenarioProfile.objects.prefetch_related(
            Prefetch("weights", queryset=weights), "scenarios"
        )


# --- shared plumbing -------------------------------------------------------------------------


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


def _plan_group(evaluation: Evaluation, key: str) -> PlanGroup:
    group = evaluation.poc_groups.select_related("group").filter(group__key=key).first()
    if group is None:
        raise NotFound(gettext("This evaluation's POC plan has no group '%(key)s'.") % {"key": key})
    group.evaluation = evaluation
    return group


def _plan(evaluation: Evaluation) -> dict:
    return {
        "groups": plan_groups(evaluation),
        "cases": list(plan_cases(evaluation).prefetch_related(*CASE_CAPABILITIES)),
        "default_profile": plan_default_profile(evaluation),
    }


# --- the plan --------------------------------------------------------------------------------


class PlanView(PocView):
    serializer_class = s.PlanSerializer

    @extend_schema(
        summary="The plan: group weights and the cases every candidate is tested on",
        responses={200: s.PlanSerializer, **READ_ERRORS},
    )
    def get(self, request, evaluation_pk):
        return Response(self.out(s.PlanSerializer, _plan(self.get_evaluation())))


class PlanInitView(PocView):
    serializer_class = s.PlanInitSerializer

    @extend_schema(
        summary="Add every group and every active library case not in the plan yet",
        request=None,
        responses={200: s.PlanInitSerializer, **error_responses(403, 404, 409)},
    )
    def post(self, request, evaluation_pk):
        evaluation = self.get_evaluation()
        added = services.plan_init(user=request.user, evaluation=evaluation)
        return Response(self.out(s.PlanInitSerializer, {**_plan(evaluation), "added": added}))


class PlanProfileView(PocView):
    serializer_class = s.ProfileApplySerializer

    @extend_schema(
        summary="Set the plan's group weights to a scenario profile's",
        request=s.ProfileApplySerializer,
        responses={200: s.PlanSerializer, **WRITE_ERRORS},
    )
    def post(self, request, evaluation_pk):
        evaluation = self.get_evaluation()
        profile = self.parse(s.ProfileApplySerializer)["profile"]
        services.plan_apply_profile(user=request.user, evaluation=evaluation, profile=profile)
        return Response(self.out(s.PlanSerializer, _plan(evaluation)))


class PlanCaseListView(PocView):
    serializer_class = s.PlanCaseAddSerializer

    @extend_schema(
        summary="Add a case to the plan: a library case, or an own case",
        description="Every plan case applies to every candidate; a body naming a candidate "
        "is refused with 400.",
        request=s.PlanCaseAddSerializer,
        responses={201: s.PlanCaseSerializer, **WRITE_ERRORS},
    )
    def post(self, request, evaluation_pk):
        evaluation = self.get_evaluation()
        values = self.parse(s.PlanCaseAddSerializer)
        if "library_case" in values:
            case = services.plan_case_add_library(
                user=request.user, evaluation=evaluation, case=values["library_case"]
            )
        else:
            case = services.plan_case_add_custom(
                user=request.user,
                evaluation=evaluation,
                group=values["group"],
                title=values["title"],
                acceptance=values["acceptance"],
                steps=values["steps"],
                weight=values["weight"],
                metric_name=values["metric_name"],
                metric_unit=values["metric_unit"],
                metric_direction=values["metric_direction"],
                metric_threshold=values["metric_threshold"],
                metric_good=values["metric_good"],
                metric_excellent=values["metric_excellent"],
                verifies=values["verifies"],
            )
        case = plan_case_for(evaluation, case.pk)
        response = Response(self.out(s.PlanCaseSerializer, case), status=status.HTTP_201_CREATED)
        response["Location"] = reverse(
            "poc-api:plan_case", kwargs={"evaluation_pk": evaluation.pk, "case_pk": case.pk}
        )
        return with_etag(response, case.version)


class VerifyCapabilitySerializer(serializers.Serializer):
    capability = serializers.SlugRelatedField(
        slug_field="slug",
        queryset=Capability.objects.all(),
        help_text="The catalog capability a hard constraint left unverified.",
    )


class PlanVerifyView(PocView):
    serializer_class = VerifyCapabilitySerializer

    @extend_schema(
        summary="Add the case that verifies a capability: a library case, else an own case",
        request=VerifyCapabilitySerializer,
        responses={201: s.PlanCaseSerializer, **WRITE_ERRORS},
    )
    def post(self, request, evaluation_pk):
        evaluation = self.get_evaluation()
        values = self.parse(VerifyCapabilitySerializer)
        case = services.plan_case_verify(
            user=request.user, evaluation=evaluation, capability=values["capability"]
        )
        case = plan_case_for(evaluation, case.pk)
        response = Response(self.out(s.PlanCaseSerializer, case), status=status.HTTP_201_CREATED)
        response["Location"] = reverse(
            "poc-api:plan_case", kwargs={"evaluation_pk": evaluation.pk, "case_pk": case.pk}
        )
        return with_etag(response, case.version)


class PlanCaseDetailView(PocView):
    serializer_class = s.PlanCaseSerializer

    def current_serializer(self, case: PlanCase) -> dict:
        return self.out(s.PlanCaseSerializer, case)

    def respond(self, case: PlanCase) -> Response:
        return with_etag(Response(self.out(s.PlanCaseSerializer, case)), case.version)

    @extend_schema(summary="One plan case", responses={200: s.PlanCaseSerializer, **READ_ERRORS})
    def get(self, request, evaluation_pk, case_pk):
        return self.respond(plan_case_for(self.get_evaluation(), case_pk))

    @extend_schema(
        summary="Change a case's weight (the same for every candidate)",
        request=s.WeightWriteSerializer,
        responses={200: s.PlanCaseSerializer, **VERSIONED_WRITE_ERRORS},
    )
    def patch(self, request, evaluation_pk, case_pk):
        evaluation = self.get_evaluation()
        case = plan_case_for(evaluation, case_pk)
        values = self.parse(s.WeightWriteSerializer)
        pre = precondition(request, values.get("version"), exists=True)
        with precondition_errors(pre):
            services.plan_weight_set(
                user=request.user, obj=case, weight=values["weight"], expected_version=pre.version
            )
        return self.respond(plan_case_for(evaluation, case_pk))

    @extend_schema(
        summary="Remove a case from the plan, for every candidate (its scores too)",
        responses={204: None, **error_responses(403, 404, 409)},
    )
    def delete(self, request, evaluation_pk, case_pk):
        case = plan_case_for(self.get_evaluation(), case_pk)
        services.plan_case_remove(user=request.user, case=case)
        return Response(status=status.HTTP_204_NO_CONTENT)


class PlanGroupDetailView(PocView):
    serializer_class = s.PlanGroupSerializer

    def current_serializer(self, group: PlanGroup) -> dict:
        return self.out(s.PlanGroupSerializer, group)

    def respond(self, group: PlanGroup) -> Response:
        return with_etag(Response(self.out(s.PlanGroupSerializer, group)), group.version)

    @extend_schema(
        summary="One group of the plan", responses={200: s.PlanGroupSerializer, **READ_ERRORS}
    )
    def get(self, request, evaluation_pk, group_key):
        return self.respond(_plan_group(self.get_evaluation(), group_key))

    @extend_schema(
        summary="Change a group's weight (the same for every candidate)",
        request=s.WeightWriteSerializer,
        responses={200: s.PlanGroupSerializer, **VERSIONED_WRITE_ERRORS},
    )
    def patch(self, request, evaluation_pk, group_key):
        evaluation = self.get_evaluation()
        group = _plan_group(evaluation, group_key)
        values = self.parse(s.WeightWriteSerializer)
        pre = precondition(request, values.get("version"), exists=True)
        with precondition_errors(pre):
            services.plan_weight_set(
                user=request.user, obj=group, weight=values["weight"], expected_version=pre.version
            )
        return self.respond(_plan_group(evaluation, group_key))


@dataclass
class CandidateTotal:
    candidate: Candidate
    overall: scoring.Overall


def candidate_totals(card: Scorecard, overall: dict[int, scoring.Overall] | None = None) -> list:
    return [
        CandidateTotal(c, card.overall(c) if overall is None else overall[c.pk])
        for c in card.candidates
    ]


# --- results and export ----------------------------------------------------------------------


def _ids(keys) -> list[int]:
    return [int(key) for key in keys]


def _overall(candidate_pk: int, overall: scoring.Overall) -> dict:
    return {
        "candidate": candidate_pk,
        "score": overall.score,
        "percent": overall.percent,
        "completeness": overall.completeness,
    }


def _sensitivity(sens: scoring.Sensitivity | None) -> dict | None:
    if sens is None:
        return None
    return {
        "leader": _ids(sens.leader),
        "total_weight": sens.total_weight,
        "by_group": {
            group: None
            if flip is None
            else {
                "change": flip.change,
                "new_weight": flip.new_weight,
                "new_leader": _ids(flip.new_leader),
            }
            for group, flip in sens.by_group.items()
        },
        "min_change": sens.min_change,
        "group": sens.group,
        "new_leader": None if sens.new_leader is None else _ids(sens.new_leader),
    }


def _win_shares(wins) -> list[dict]:
    return [{"candidate": int(key), "share": share} for key, share in (wins or {}).items()]


def _sufficiency(res, sufficiency: scoring.Sufficiency) -> dict:
    names = {str(c.pk): c.name for c in res.card.candidates}
    group_names = {b.plan_group.group.key: b.plan_group.group.name for b in res.card.groups}
    return {
        "enough": sufficiency.enough,
        "minimum_completeness": sufficiency.minimum,
        "thin": [
            {"candidate": int(key), "completeness": share, "groups_without_score": list(groups)}
            for key, share, groups in sufficiency.thin
        ],
        "note": thin_note(sufficiency, names, group_names),
    }


def _by_type(res) -> list[dict]:
    return [
        {
            "type": t.solution_type,
            "outside_main_type": t.outside,
            "ranking": [{"candidate": c.pk, "rank": rank} for c, rank in t.ranked],
            "leaders": _ids(t.leaders),
            "profiles": [
                {"key": profile.key, "leaders": _ids(leaders)}
                for profile, _fit, leaders in t.by_profile
            ],
            "sensitivity": _sensitivity(t.sensitivity),
            "win_shares": _win_shares(t.wins),
            "data_sufficiency": _sufficiency(res, t.sufficiency),
        }
        for t in res.by_type
    ]


class ResultsView(PocView):
    serializer_class = s.ResultsSerializer

    @extend_schema(
        summary="Overall scores, scenario fit by solution type, robustness and agreement",
        description="From submitted scores and consensus only (missing cells are left out, "
        "not counted as zero). `by_type` is the scenario fit within the type context: "
        "candidates are ranked, led and tested for robustness only against candidates of "
        "their own solution type, the type chosen to carry the main responsibility first. "
        "Sensitivity: the smallest change of one group's weight that changes the leader. "
        "Win shares: how often each candidate leads under random re-weightings. Both name no "
        "leader (null / empty) below 60 % of the weighted cells scored for any candidate or "
        "when one has no score in a weighted group (`data_sufficiency`). Agreement: "
        "Krippendorff's alpha (null: not applicable).",
        responses={200: s.ResultsSerializer, **READ_ERRORS},
    )
    def get(self, request, evaluation_pk):
        res = results(self.get_evaluation(), request.user)
        body = {
            "candidates": candidate_totals(res.card, res.overall),
            "hidden_cells": res.card.hidden_cells,
            "profiles": [
                {
                    "key": profile.key,
                    "name": profile.name,
                    "leaders": _ids(leaders),
                    "fit": [_overall(pk, overall) for pk, overall in fit.items()],
                }
                for profile, fit, leaders in res.by_profile
            ],
            "by_type": _by_type(res),
            "sensitivity": _sensitivity(res.sensitivity),
            "win_shares": _win_shares(res.wins),
            "data_sufficiency": _sufficiency(res, res.sufficiency),
            "agreement": {"overall": res.agreement, "by_group": res.agreement_by_group},
        }
        return Response(self.out(s.ResultsSerializer, body))


class ScorecardExportView(PocView):
    serializer_class = None

    @extend_schema(
        summary="The scorecard as an .xlsx workbook",
        description="A Summary sheet with group weights and weighted totals as formulas, and "
        "one sheet per group with its cases and each candidate's score. Cells hidden from you "
        "on the scorecard are empty here too.",
        responses={(200, XLSX): OpenApiResponse(OpenApiTypes.BINARY), **READ_ERRORS},
    )
    def get(self, request, evaluation_pk):
        evaluation = self.get_evaluation()
        card = scorecard(evaluation, request.user)
        for cell in card.cells():
            if cell.hidden_count:
                cell.value = None  # blind: the workbook shows no more than the scorecard
        response = HttpResponse(scorecard_workbook(card), content_type=XLSX)
        response["Content-Disposition"] = f'attachment; filename="scorecard-{evaluation.pk}.xlsx"'
        response["X-Content-Type-Options"] = "nosniff"
        return response
