"""Evaluation API: stacks (a candidate of several catalog solutions, each in a layer) and the
capability profile of any candidate, combined over a stack's layers (evaluations.stacks)."""

from __future__ import annotations

from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.response import Response

from catalog.models import Solution, SupportLevel
from common.fields import text_limit
from common.http import READ_ERRORS, WRITE_ERRORS, with_etag

from .. import services
from ..models import Candidate, LayerRole
from ..scoped import CandidateScopedView, EvaluationScopedView
from ..stack_controls import overlap_by_capability, stack_overlaps
from ..stacks import stack_profile
from . import serializers as s


class LayerWriteSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=LayerRole.choices)
    solution = serializers.SlugField(help_text="The catalog solution's slug.")


class StackWriteSerializer(serializers.Serializer):
    name = serializers.CharField(
        allow_blank=True, max_length=Candidate._meta.get_field("stack_name").max_length
    )
    reason = serializers.CharField(allow_blank=True, max_length=text_limit(Candidate, "reason"))
    main = serializers.ChoiceField(
        choices=LayerRole.choices,
        help_text="The layer whose type carries the main responsibility.",
    )
    layers = LayerWriteSerializer(many=True, help_text="At least two, one solution per layer.")


class DuplicatedBySerializer(serializers.Serializer):
    layer = serializers.ChoiceField(choices=LayerRole.choices)
    solution = serializers.SlugField(help_text="The catalog solution's slug.")


class ProfileRowSerializer(serializers.Serializer):
    capability = serializers.SlugField(source="capability.slug")
    name = serializers.CharField(source="capability.name")
    group = serializers.CharField(source="capability.group.name")
    level = serializers.ChoiceField(choices=SupportLevel.choices)
    missing = serializers.BooleanField(help_text="No layer provides it (none or unknown).")
    layer = serializers.SerializerMethodField(help_text="The layer that provides it (a stack).")
    solution = serializers.SerializerMethodField(help_text="The solution whose claim this is.")
    as_of_version = serializers.SerializerMethodField()

    duplicated_control = serializers.SerializerMethodField(
        help_text="The control (quota, tenancy, monitoring, rbac) this capability belongs to, "
        "when two or more of the stack's layers claim that control natively; else null."
    )
    duplicated_by = serializers.SerializerMethodField(
        help_text="The layers that claim the duplicated control natively, bottom to top."
    )

    def _overlap(self, row):
        return self.context.get("overlaps", {}).get(row.capability.slug)

    def get_duplicated_control(self, row) -> str | None:
        overlap = self._overlap(row)
        return overlap.key if overlap else None

    @extend_schema_field(DuplicatedBySerializer(many=True))
    def get_duplicated_by(self, row) -> list[dict]:
        overlap = self._overlap(row)
        if overlap is None:
            return []
        return [{"layer": x.role, "solution": x.solution.slug} for x in overlap.layers]

    def get_layer(self, row) -> str | None:
        return row.layer.role if row.layer else None

    def get_solution(self, row) -> str | None:
        return row.claim.solution.slug if row.claim else None

    def get_as_of_version(self, row) -> str:
        return row.claim.as_of_version if row.claim else ""


class StackCreateView(EvaluationScopedView):
    serializer_class = s.CandidateSerializer

    @extend_schema(
        summary="Compose a stack: several catalog solutions, each in a layer, as one candidate",
        request=StackWriteSerializer,
        responses={201: s.CandidateSerializer, **WRITE_ERRORS},
    )
    def post(self, request, evaluation_pk):
        evaluation = self.get_evaluation()
        values = self.parse(StackWriteSerializer)
        slugs = [layer["solution"] for layer in values["layers"]]
        found = {x.slug: x for x in Solution.objects.filter(slug__in=slugs)}
        unknown = [slug for slug in slugs if slug not in found]
        if unknown:
            raise serializers.ValidationError(
                {
                    "layers": gettext("Unknown solution(s): %(slugs)s.")
                    % {"slugs": ", ".join(unknown)}
                }
            )
        roles = [layer["role"] for layer in values["layers"]]
        if len(set(roles)) != len(roles):
            raise serializers.ValidationError(
                {"layers": gettext("Each layer can hold one solution only.")}
            )
        candidate = services.candidate_compose_stack(
            user=request.user,
            evaluation=evaluation,
            name=values["name"],
            reason=values["reason"],
            layers={layer["role"]: found[layer["solution"]] for layer in values["layers"]},
            main=values["main"],
        )
        candidate = (
            evaluation.candidates.select_related("solution__solution_type", "added_by")
            .prefetch_related("layers__solution__solution_type")
            .get(pk=candidate.pk)
        )
        body = self.out(s.CandidateSerializer, candidate)
        response = Response(body, status=status.HTTP_201_CREATED, headers={"Location": body["url"]})
        return with_etag(response, candidate.version)


class CandidateProfileView(CandidateScopedView):
    serializer_class = ProfileRowSerializer
    candidate_url_kwarg = "candidate_pk"

    @extend_schema(
        summary="A candidate's capability profile; a stack's combines its layers",
        description="For each catalog capability, the best claim of the candidate's layers and "
        "the layer that makes it; `missing` where no layer provides it. Where two or more "
        "layers claim the same control natively (queueing and quota, multi-tenancy, GPU "
        "monitoring, RBAC), its rows name the control and those layers.",
        responses={200: ProfileRowSerializer(many=True), **READ_ERRORS},
    )
    def get(self, request, evaluation_pk, candidate_pk):
        candidate = self.get_candidate()
        overlaps = overlap_by_capability(stack_overlaps(candidate))
        rows = ProfileRowSerializer(
            stack_profile(candidate),
            many=True,
            context={**self.get_serializer_context(), "overlaps": overlaps},
        )
        return Response(rows.data)
