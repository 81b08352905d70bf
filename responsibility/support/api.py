"""Support terms in the API, under the evaluation (members only, 404 otherwise): the comparison,
and one candidate's term to read, save (create or update) or delete.

A term carries `version` and answers with `ETag: "<n>"` (0 before it is saved); a write names
the version it edited as If-Match (stale: 412) or as `version` in the body (stale: 409), and
changing a saved term without either is refused with 428, as everywhere in the API."""

from __future__ import annotations

from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from common.http import (
    READ_ERRORS,
    VERSIONED_WRITE_ERRORS,
    DecimalField,
    ModelSerializer,
    VersionField,
    precondition,
    precondition_errors,
    with_etag,
)
from evaluations.scoped import CandidateScopedView, EvaluationScopedView

from . import services
from .models import SourceKind, SupportTerm
from .rows import comparison_values
from .selectors import comparison, term_get
from .terms import BY_KEY, TERMS

VALUE_SCHEMA = {
    "type": "object",
    "properties": {
        "amount": {
            "type": "string",
            "nullable": True,
            "description": "A decimal, in the term's unit.",
        },
        "text": {"type": "string"},
        "source_kind": {"enum": list(SourceKind.values)},
        "source_kind_label": {"type": "string"},
        "source": {"type": "string"},
        "source_url": {"type": "string"},
        "best": {"type": "boolean", "description": "The best value of its row (shown with ★)."},
        "version": {"type": "integer"},
    },
    "required": [
        "amount",
        "text",
        "source_kind",
        "source_kind_label",
        "source",
        "source_url",
        "best",
        "version",
    ],
}


@extend_schema_field({"type": "array", "items": {**VALUE_SCHEMA, "nullable": True}})
class SupportValuesField(serializers.ListField):
    """Each candidate's value of a term, in order; null where none is recorded."""


class SupportLineSerializer(serializers.Serializer):
    key = serializers.ChoiceField(choices=[t.key for t in TERMS])
    label = serializers.CharField()
    unit = serializers.CharField(help_text='hours, days, weeks, months; "" for a text term.')
    unit_label = serializers.CharField()
    better = serializers.CharField(help_text='lower, higher, or "" when no value is marked.')
    values = SupportValuesField(help_text="One per candidate, in order; null: none recorded.")


class SupportCandidateSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    slug = serializers.CharField()
    missing = serializers.ListField(child=serializers.CharField(), help_text="Term keys.")


class SupportComparisonSerializer(serializers.Serializer):
    candidates = SupportCandidateSerializer(many=True)
    terms = SupportLineSerializer(many=True)


class SupportTermSerializer(ModelSerializer):
    candidate = serializers.IntegerField(source="candidate_id", read_only=True)

    class Meta:
        model = SupportTerm
        fields = (
            "candidate",
            "term",
            "amount",
            "text",
            "source_kind",
            "source",
            "source_url",
            "version",
        )
        read_only_fields = fields


class SupportTermWriteSerializer(serializers.Serializer):
    amount = DecimalField(
        max_digits=6,
        decimal_places=1,
        required=False,
        allow_null=True,
        help_text="For a term with a unit: hours, days, weeks or months, within the term's bounds.",
    )
    text = serializers.CharField(
        required=False, allow_blank=True, max_length=300, help_text="For a term in words."
    )
    source_kind = serializers.ChoiceField(choices=SourceKind.choices, required=False)
    source = serializers.CharField(required=False, allow_blank=True, max_length=300)
    source_url = serializers.URLField(required=False, allow_blank=True, max_length=500)
    version = VersionField()


def term_key(key: str) -> str:
    if key not in BY_KEY:
        raise NotFound(
            gettext("Unknown support term %(key)s. Use one of: %(known)s.")
            % {"key": key, "known": ", ".join(t.key for t in TERMS)}
        )
    return key


class SupportComparisonView(EvaluationScopedView):
    @extend_schema(
        operation_id="evaluations_support_terms_list",
        summary="Every shortlisted candidate's support terms side by side",
        responses={200: SupportComparisonSerializer, **READ_ERRORS},
    )
    def get(self, request, evaluation_pk):
        return Response(comparison_values(comparison(self.get_evaluation())))


class SupportTermView(CandidateScopedView):
    serializer_class = SupportTermSerializer
    candidate_url_kwarg = "candidate_pk"

    def current_serializer(self, row: SupportTerm) -> dict:
        return self.out(SupportTermSerializer, row)

    @extend_schema(
        summary="One support term of the candidate (404 until it is recorded)",
        responses={200: SupportTermSerializer, **READ_ERRORS},
    )
    def get(self, request, evaluation_pk, candidate_pk, term):
        row = term_get(self.get_candidate(), term_key(term))
        if row is None:
            raise NotFound(gettext("This term is not recorded for this candidate yet."))
        return with_etag(Response(self.out(SupportTermSerializer, row)), row.version)

    @extend_schema(
        summary="Record or change one support term of the candidate",
        description="A term with a unit takes `amount` (positive and bounded; on-site and "
        "training days may be 0); a term in words takes `text`. `source` says where it is "
        "written; a published page (`source_kind` link) needs `source_url`.",
        request=SupportTermWriteSerializer,
        responses={200: SupportTermSerializer, 201: SupportTermSerializer} | VERSIONED_WRITE_ERRORS,
    )
    def put(self, request, evaluation_pk, candidate_pk, term):
        candidate = self.get_candidate()
        key = term_key(term)
        values = self.parse(SupportTermWriteSerializer)
        exists = SupportTerm.objects.filter(candidate=candidate, term=key).exists()
        pre = precondition(request, values.pop("version", None), exists=exists)
        with precondition_errors(pre):
            row = services.support_term_save(
                user=request.user,
                candidate=candidate,
                term=key,
                expected_version=pre.version,
                **values,
            )
        code = status.HTTP_200_OK if exists else status.HTTP_201_CREATED
        return with_etag(Response(self.out(SupportTermSerializer, row), status=code), row.version)

    @extend_schema(
        summary="Delete one support term of the candidate",
        responses={204: None} | VERSIONED_WRITE_ERRORS,
    )
    def delete(self, request, evaluation_pk, candidate_pk, term):
        candidate = self.get_candidate()
        row = term_get(candidate, term_key(term))
        if row is None:
            raise NotFound(gettext("This term is not recorded for this candidate yet."))
        pre = precondition(request, _body_version(request), exists=True)
        with precondition_errors(pre):
            services.support_term_delete(user=request.user, row=row, expected_version=pre.version)
        return Response(status=status.HTTP_204_NO_CONTENT)


def _body_version(request):
    value = request.data.get("version") if hasattr(request.data, "get") else None
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        raise serializers.ValidationError(
            {"version": gettext("Send the version as a whole number.")}
        ) from None
