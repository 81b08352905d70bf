"""POC API: the capabilities this evaluation's POC verified or contradicted, per candidate (blind
like the scorecard). Members only."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from catalog.models import SupportLevel
from common.http import READ_ERRORS

from ..api.base import PocView
from .findings import poc_verification


class FindingSerializer(serializers.Serializer):
    capability = serializers.CharField(source="capability.slug")
    capability_name = serializers.CharField(source="capability.name")
    status = serializers.ChoiceField(
        source="finding.status",
        choices=["verified", "contradicted"],
        help_text="verified: a verifying case met its acceptance criteria (agreed score 3 or "
        "more); contradicted: one did not.",
    )
    passed_cases = serializers.SerializerMethodField()
    failed_cases = serializers.SerializerMethodField()
    catalog_level = serializers.SerializerMethodField()

    def get_passed_cases(self, f) -> list[int]:
        return [c.pk for c in f.passed_cases]

    def get_failed_cases(self, f) -> list[int]:
        return [c.pk for c in f.failed_cases]

    def get_catalog_level(self, f) -> str:
        return f.claim.level if f.claim else SupportLevel.UNKNOWN


class CandidateFindingsSerializer(serializers.Serializer):
    candidate = serializers.IntegerField(source="candidate.pk")
    name = serializers.CharField(source="candidate.name")
    version_tested = serializers.CharField(source="version")
    findings = FindingSerializer(many=True)


class VerificationSerializer(serializers.Serializer):
    candidates = CandidateFindingsSerializer(many=True)
    hidden = serializers.IntegerField(
        help_text="Verifying cells left out until you submit your own score (blind scoring)."
    )


class VerificationView(PocView):
    serializer_class = VerificationSerializer

    @extend_schema(
        summary="Capabilities this POC verified or contradicted, per candidate",
        description="Read from the agreed scores you may see (blind scoring holds). The catalog "
        "is not changed; administrators review the findings.",
        responses={200: VerificationSerializer, **READ_ERRORS},
    )
    def get(self, request, evaluation_pk):
        verification = poc_verification(self.get_evaluation(), request.user)
        return Response(self.out(VerificationSerializer, verification))
