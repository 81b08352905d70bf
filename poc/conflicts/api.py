"""POC API: declared conflicts of interest. Members who score declare, per candidate, any
relationship with its vendor(s) before scoring it; the owner reads every declaration and allows
scoring despite a declared conflict (with a reason) or revokes that. The rules live in
poc/conflicts/services.py, as for the pages; score writes ask them too (poc.services.score_save).

Versioned like the scores: my declaration and the owner's decision carry `version` and answer
with `ETag: "<n>"`; a write names the version it edited as If-Match (stale: 412) or `version`
in the body (stale: 409); updating a saved row without either is refused with 428."""

from __future__ import annotations

from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from common.fields import text_limit
from common.http import (
    READ_ERRORS,
    VERSIONED_WRITE_ERRORS,
    VersionField,
    precondition,
    precondition_errors,
    with_etag,
)
from evaluations.api.serializers import UsernameField

from ..api.base import PocView
from . import services
from .models import ConflictDeclaration


class DeclarationSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    candidate = serializers.IntegerField(source="candidate_id")
    candidate_name = serializers.CharField(source="candidate.name")
    member = UsernameField()
    vendors = serializers.CharField(help_text="The vendor(s) as the catalog named them.")
    has_conflict = serializers.BooleanField()
    description = serializers.CharField(help_text="The relationship declared (empty: none).")
    declared_at = serializers.DateTimeField()
    allowed = serializers.BooleanField(help_text="The owner allows scoring despite the conflict.")
    allowance_reason = serializers.CharField()
    decided_by = UsernameField()
    decided_at = serializers.DateTimeField(allow_null=True)
    blocks_scoring = serializers.BooleanField()
    version = serializers.IntegerField()


class PendingSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="pk")
    name = serializers.CharField()
    vendors = serializers.CharField()


class DeclarationsSerializer(serializers.Serializer):
    can_declare = serializers.BooleanField()
    can_decide = serializers.BooleanField()
    sees_all = serializers.BooleanField(help_text="False: only your own declarations are listed.")
    pending = PendingSerializer(
        many=True, help_text="Shortlisted candidates you have not declared for yet."
    )
    declarations = DeclarationSerializer(many=True)


class MyDeclarationSerializer(serializers.Serializer):
    candidate = serializers.IntegerField(source="pk")
    vendors = serializers.CharField()
    scoring_block = serializers.CharField(help_text="Why you may not score it (empty: you may).")
    declaration = DeclarationSerializer(allow_null=True)


class DeclarationWriteSerializer(serializers.Serializer):
    has_conflict = serializers.BooleanField(help_text="False: no relationship with the vendor.")
    description = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=text_limit(ConflictDeclaration, "description"),
        help_text="Required with a conflict: the relationship (e.g. former employee).",
    )
    version = VersionField()


class AllowanceWriteSerializer(serializers.Serializer):
    reason = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=text_limit(ConflictDeclaration, "allowance_reason"),
        help_text="Required: why this member may score despite the conflict.",
    )
    version = VersionField()


class RevokeWriteSerializer(serializers.Serializer):
    version = VersionField()


class DeclarationsView(PocView):
    serializer_class = DeclarationsSerializer

    @extend_schema(
        summary="Declared conflicts of interest (the owner and viewers: everyone's; else mine)",
        operation_id="evaluations_poc_conflicts_list",
        responses={200: DeclarationsSerializer, **READ_ERRORS},
    )
    def get(self, request, evaluation_pk):
        evaluation = self.get_evaluation()
        candidates = services.shortlisted(evaluation)
        pending = services.mark_candidates(candidates, evaluation, request.user)
        can_declare = request.user.has_perm("poc.declare_conflict", evaluation)
        body = {
            "can_declare": can_declare,
            "can_decide": request.user.has_perm("poc.decide_conflict", evaluation),
            "sees_all": request.user.has_perm("poc.see_all_declarations", evaluation),
            "pending": pending if can_declare else [],
            "declarations": services.declarations(evaluation, request.user),
        }
        return Response(self.out(DeclarationsSerializer, body))


class MyDeclarationView(PocView):
    serializer_class = DeclarationWriteSerializer

    def candidate(self):
        evaluation = self.get_evaluation()
        candidates = services.shortlisted(evaluation)
        found = next((c for c in candidates if c.pk == self.kwargs["candidate_pk"]), None)
        if found is None:
            raise Http404
        services.mark_candidates([found], evaluation, self.request.user)
        found.evaluation = evaluation
        return found

    def current_serializer(self, row: ConflictDeclaration) -> dict:
        return self.out(DeclarationSerializer, row)

    @extend_schema(
        summary="My declaration for a shortlisted candidate (ETag: its version, 0 before one)",
        responses={200: MyDeclarationSerializer, **READ_ERRORS},
    )
    def get(self, request, evaluation_pk, candidate_pk):
        candidate = self.candidate()
        version = candidate.declaration.version if candidate.declaration else 0
        return with_etag(Response(self.out(MyDeclarationSerializer, candidate)), version)

    @extend_schema(
        summary="Declare my relationship with a candidate's vendor(s): none, or what it is",
        description="Needed before your first score of the candidate. A declared conflict "
        "blocks your scoring of it until the owner allows it; changing a declaration "
        "withdraws an allowance.",
        request=DeclarationWriteSerializer,
        responses={200: DeclarationSerializer, 201: DeclarationSerializer} | VERSIONED_WRITE_ERRORS,
    )
    def put(self, request, evaluation_pk, candidate_pk):
        candidate = self.candidate()
        values = self.parse(DeclarationWriteSerializer)
        exists = candidate.declaration is not None
        pre = precondition(request, values.get("version"), exists=exists)
        with precondition_errors(pre):
            row = services.declaration_save(
                user=request.user,
                candidate=candidate,
                has_conflict=values["has_conflict"],
                description=values["description"],
                expected_version=pre.version,
            )
        code = status.HTTP_200_OK if exists else status.HTTP_201_CREATED
        return with_etag(Response(self.out(DeclarationSerializer, row), status=code), row.version)


class DecisionBaseView(PocView):
    def declaration(self) -> ConflictDeclaration:
        return services.declaration_get(
            self.get_evaluation(), self.request.user, self.kwargs["declaration_pk"]
        )

    def current_serializer(self, row: ConflictDeclaration) -> dict:
        return self.out(DeclarationSerializer, row)

    def respond(self, row: ConflictDeclaration) -> Response:
        return with_etag(Response(self.out(DeclarationSerializer, row)), row.version)


class DeclarationDetailView(DecisionBaseView):
    serializer_class = DeclarationSerializer

    @extend_schema(
        summary="One declaration (yours; any member's for the owner and viewers)",
        description="ETag: its version, for the owner's allow and revoke.",
        responses={200: DeclarationSerializer, **READ_ERRORS},
    )
    def get(self, request, evaluation_pk, declaration_pk):
        return self.respond(self.declaration())


class AllowView(DecisionBaseView):
    serializer_class = AllowanceWriteSerializer

    @extend_schema(
        summary="Allow a member to score despite their declared conflict (owner only)",
        description="With the reason; not for the owner's own conflict.",
        request=AllowanceWriteSerializer,
        responses={200: DeclarationSerializer} | VERSIONED_WRITE_ERRORS,
    )
    def post(self, request, evaluation_pk, declaration_pk):
        declaration = self.declaration()
        values = self.parse(AllowanceWriteSerializer)
        pre = precondition(request, values.get("version"), exists=True)
        with precondition_errors(pre):
            row = services.allowance_grant(
                user=request.user,
                declaration=declaration,
                reason=values["reason"],
                expected_version=pre.version,
            )
        return self.respond(row)


class RevokeView(DecisionBaseView):
    serializer_class = RevokeWriteSerializer

    @extend_schema(
        summary="Revoke an allowance: the conflict blocks scoring again (owner only)",
        request=RevokeWriteSerializer,
        responses={200: DeclarationSerializer} | VERSIONED_WRITE_ERRORS,
    )
    def post(self, request, evaluation_pk, declaration_pk):
        declaration = self.declaration()
        values = self.parse(RevokeWriteSerializer)
        pre = precondition(request, values.get("version"), exists=True)
        with precondition_errors(pre):
            row = services.allowance_revoke(
                user=request.user, declaration=declaration, expected_version=pre.version
            )
        return self.respond(row)
