"""POC API: an evaluation's one plan for every candidate: its groups and cases, their weights,
the scenario profile's weights, and the case that verifies a capability."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
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
from evaluations.models import Evaluation

from .. import services
from ..models import PlanCase, PlanGroup
from ..selectors import plan_cases, plan_default_profile, plan_groups
from ..verification import CASE_CAPABILITIES
from . import serializers as s
from .base import PocView, plan_case_for


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
