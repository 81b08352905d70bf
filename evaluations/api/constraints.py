"""Evaluation API: hard constraints checked against the catalog (evaluations.constraints), and
the owner's waivers. Members read; only the owner waives, while the evaluation is open."""

from __future__ import annotations

from dataclasses import dataclass

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from common.fields import text_limit
from common.http import READ_ERRORS, WRITE_ERRORS

from .. import services
from ..constraints import Verdict, constraint_checks
from ..models import Constraint, ConstraintWaiver
from ..scoped import CandidateScopedView, EvaluationScopedView
from ..selectors import evaluation_data
from .serializers import SolutionBriefSerializer, UsernameField

VERDICTS = "met, partial, unverified or violates (the worst of the capabilities)."


class SourceBriefSerializer(serializers.Serializer):
    title = serializers.CharField()
    url = serializers.CharField(help_text="Empty when the source has no address.")


class CapabilityCheckSerializer(serializers.Serializer):
    kind = serializers.SerializerMethodField(
        help_text="capability: a catalog capability the constraint needs; accelerator_family: "
        "an accelerator family the evaluation's context answers name (localisation)."
    )
    capability = serializers.SlugField(source="capability.slug")
    name = serializers.CharField(source="capability.name")
    level = serializers.SerializerMethodField(help_text="The catalog claim's support level.")
    verdict = serializers.ChoiceField(choices=Verdict.ORDER)
    note = serializers.SerializerMethodField()
    as_of_version = serializers.SerializerMethodField()
    sources = serializers.SerializerMethodField()

    def get_kind(self, check) -> str:
        return "accelerator_family" if check.is_family else "capability"

    def get_level(self, check) -> str:
        return check.claim.level if check.claim else "unknown"

    def get_note(self, check) -> str:
        return check.claim.note if check.claim else ""

    def get_as_of_version(self, check) -> str:
        return check.claim.as_of_version if check.claim else ""

    @staticmethod
    def _sources(check) -> list:
        return list(check.claim.sources.all()) if check.claim else []

    def get_sources(self, check) -> list[dict]:
        return SourceBriefSerializer(self._sources(check), many=True).data


class WaiverSerializer(serializers.Serializer):
    constraint = serializers.SlugField(source="constraint.key")
    reason = serializers.CharField()
    waived_by = UsernameField()
    waived_at = serializers.DateTimeField()


class ConstraintCheckSerializer(serializers.Serializer):
    constraint = serializers.SlugField(source="constraint.key")
    name = serializers.CharField(source="constraint.name")
    verdict = serializers.ChoiceField(choices=Verdict.ORDER, help_text=VERDICTS)
    blocks_decision = serializers.BooleanField(
        help_text="Violated and not waived: a decision choosing this candidate is refused."
    )
    waiver = WaiverSerializer(allow_null=True)
    capabilities = CapabilityCheckSerializer(many=True)


@dataclass
class CandidateChecks:
    candidate: object
    checks: list


class CandidateChecksSerializer(serializers.Serializer):
    candidate = serializers.IntegerField(source="candidate.pk")
    solution = SolutionBriefSerializer(source="candidate.solution")
    checks = ConstraintCheckSerializer(many=True)


class WaiveSerializer(serializers.Serializer):
    constraint = serializers.SlugRelatedField(
        slug_field="key",
        queryset=Constraint.objects.filter(is_active=True),
        help_text="The key of a constraint this candidate violates.",
    )
    reason = serializers.CharField(
        allow_blank=True, max_length=text_limit(ConstraintWaiver, "reason")
    )


class ConstraintCheckListView(EvaluationScopedView):
    serializer_class = CandidateChecksSerializer

    @extend_schema(
        summary="Hard constraints checked against each shortlisted candidate's catalog claims",
        responses={200: CandidateChecksSerializer(many=True), **READ_ERRORS},
    )
    def get(self, request, evaluation_pk):
        data = evaluation_data(self.get_evaluation(), viewer=request.user)
        checks = constraint_checks(data)
        rows = [CandidateChecks(c, checks[c.pk]) for c in data.shortlisted]
        return Response(self.out(CandidateChecksSerializer, rows, many=True))


class WaiverListView(CandidateScopedView):
    serializer_class = WaiveSerializer
    candidate_url_kwarg = "candidate_pk"

    @extend_schema(
        summary="Waive a violated hard constraint for this candidate (owner, with a reason)",
        request=WaiveSerializer,
        responses={201: WaiverSerializer, **WRITE_ERRORS},
    )
    def post(self, request, evaluation_pk, candidate_pk):
        candidate = self.get_candidate()
        values = self.parse(WaiveSerializer)
        waiver = services.constraint_waive(
            user=request.user,
            candidate=candidate,
            constraint=values["constraint"],
            reason=values["reason"],
        )
        return Response(self.out(WaiverSerializer, waiver), status=status.HTTP_201_CREATED)


class WaiverDetailView(CandidateScopedView):
    serializer_class = WaiverSerializer
    candidate_url_kwarg = "candidate_pk"

    def get_constraint(self) -> Constraint:
        constraint = Constraint.objects.filter(key=self.kwargs["constraint_key"]).first()
        if constraint is None:
            raise NotFound
        return constraint

    @extend_schema(
        summary="Withdraw a waiver (owner)",
        responses={204: None, **WRITE_ERRORS},
    )
    def delete(self, request, evaluation_pk, candidate_pk, constraint_key):
        services.constraint_waiver_withdraw(
            user=request.user, candidate=self.get_candidate(), constraint=self.get_constraint()
        )
        return Response(status=status.HTTP_204_NO_CONTENT)
