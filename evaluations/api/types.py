"""Evaluation API: the type that carries the main responsibility (evaluations.types), with the
context answers that point to each type. Members read; editors record it, with a reason."""

from __future__ import annotations

from dataclasses import dataclass

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from catalog.models import SolutionType
from common.fields import text_limit
from common.http import (
    READ_ERRORS,
    VERSIONED_WRITE_ERRORS,
    VersionField,
    precondition,
    precondition_errors,
    with_etag,
)

from .. import services
from ..models import Evaluation
from ..scoped import EvaluationScopedView
from ..selectors import evaluation_data
from ..types import type_options


class TypeOptionSerializer(serializers.Serializer):
    type = serializers.SlugField(source="solution_type.slug")
    name = serializers.CharField(source="solution_type.name")
    fits = serializers.CharField(source="solution_type.fits")
    boundary = serializers.CharField(source="solution_type.boundary")
    signals = serializers.ListField(
        child=serializers.CharField(), help_text="Context answers that point to this type."
    )
    candidates = serializers.SerializerMethodField(help_text="Shortlisted candidate ids.")
    chosen = serializers.BooleanField()

    def get_candidates(self, option) -> list[int]:
        return [c.pk for c in option.candidates]


@dataclass
class TypeStep:
    evaluation: Evaluation
    options: list


class TypeStepSerializer(serializers.Serializer):
    type = serializers.SlugField(source="evaluation.main_type.slug", allow_null=True)
    reason = serializers.CharField(source="evaluation.main_type_reason")
    version = serializers.IntegerField(source="evaluation.version")
    options = TypeOptionSerializer(many=True)


class TypeDecideSerializer(serializers.Serializer):
    type = serializers.SlugRelatedField(
        slug_field="slug",
        queryset=SolutionType.objects.all(),
        allow_null=True,
        help_text="A solution type's slug; null clears the choice.",
    )
    reason = serializers.CharField(
        allow_blank=True,
        required=False,
        default="",
        max_length=text_limit(Evaluation, "main_type_reason"),
    )
    version = VersionField()


class TypeStepView(EvaluationScopedView):
    serializer_class = TypeStepSerializer

    def step(self, evaluation) -> Response:
        data = evaluation_data(evaluation, viewer=self.request.user)
        body = self.out(TypeStepSerializer, TypeStep(data.evaluation, type_options(data)))
        return with_etag(Response(body), data.evaluation.version)

    @extend_schema(
        summary="The type that carries the main responsibility, and every type's signals",
        responses={200: TypeStepSerializer, **READ_ERRORS},
    )
    def get(self, request, evaluation_pk):
        return self.step(self.get_evaluation())

    @extend_schema(
        summary="Record the type that carries the main responsibility (editors, with a reason)",
        request=TypeDecideSerializer,
        responses={200: TypeStepSerializer, **VERSIONED_WRITE_ERRORS},
    )
    def put(self, request, evaluation_pk):
        evaluation = self.get_evaluation()
        values = self.parse(TypeDecideSerializer)
        pre = precondition(request, values.get("version"), exists=True)
        with precondition_errors(pre):
            evaluation = services.evaluation_type_decide(
                user=request.user,
                evaluation=evaluation,
                solution_type=values["type"],
                reason=values["reason"],
                expected_version=pre.version,
            )
        return self.step(evaluation)
