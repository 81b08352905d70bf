"""POC API: the scorecard, my scores and their submission, the owner's consensus, and evidence
files. Blind like the page: a cell others scored shows nothing of theirs until I submit mine."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.files import File
from django.http import Http404
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import FormParser
from rest_framework.response import Response

from common.drf import MultiPartParser
from common.exceptions import Conflict, Forbidden
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
from evaluations.selectors import candidate_get

from .. import services
from ..models import (
    Consensus,
    PlanCase,
    Score,
)
from ..selectors import (
    Cell,
    evidence_for_download,
    scorecard,
)
from ..services.evidence import EVIDENCE_TYPES
from ..views import evidence_response
from . import serializers as s
from .base import PocView, candidate_totals, plan_case_for

# --- scorecard -------------------------------------------------------------------------------


class ScorecardView(PocView):
    serializer_class = s.ScorecardSerializer

    @extend_schema(
        summary="The scorecard: every case × shortlisted candidate, as you may see it",
        description="Blind scoring: until you submit your own score for a cell, other "
        "reviewers' scores, evidence, the cell's value, disagreement and consensus stay "
        "hidden (hidden_count says how many). The owner and viewers see every submitted "
        "score. Drafts are shown to their author only.",
        responses={200: s.ScorecardSerializer, **READ_ERRORS},
    )
    def get(self, request, evaluation_pk):
        evaluation = self.get_evaluation()
        card = scorecard(evaluation, request.user)
        body = {
            "can_score": request.user.has_perm("poc.score", evaluation),
            "can_record_consensus": request.user.has_perm("poc.record_consensus", evaluation),
            "groups": [block.plan_group for block in card.groups],
            "cases": card.cases,
            "candidates": candidate_totals(card),
            "hidden_cells": card.hidden_cells,
            "cells": card.cells(),
        }
        return Response(self.out(s.ScorecardSerializer, body))


class ScoresSubmitView(PocView):
    serializer_class = s.ScoresSubmitSerializer

    @extend_schema(
        summary="Submit all my draft scores that have a value (for one candidate, or all)",
        request=s.ScoresSubmitSerializer,
        responses={200: s.ScoresSubmittedSerializer, **WRITE_ERRORS},
    )
    def post(self, request, evaluation_pk):
        evaluation = self.get_evaluation()
        values = self.parse(s.ScoresSubmitSerializer)
        candidate = None
        if values.get("candidate") is not None:
            try:
                candidate = candidate_get(evaluation, values["candidate"])
            except Http404:
                raise serializers.ValidationError(
                    {
                        "candidate": gettext("Not a candidate of this evaluation: %(ids)s.")
                        % {"ids": values["candidate"]}
                    }
                ) from None
        count = services.scores_submit(
            user=request.user, evaluation=evaluation, candidate=candidate
        )
        return Response(self.out(s.ScoresSubmittedSerializer, {"submitted": count}))


class CellBaseView(PocView):
    """Base for views about one (case, candidate) cell of the evaluation's scorecard."""

    serializer_class = s.CellSerializer

    def get_case_and_candidate(self) -> tuple[PlanCase, Candidate]:
        evaluation = self.get_evaluation()
        case = plan_case_for(evaluation, self.kwargs["case_pk"])
        candidate = candidate_get(evaluation, self.kwargs["candidate_pk"])
        candidate.evaluation = evaluation
        return case, candidate

    def cell(self, case: PlanCase, candidate: Candidate) -> Cell:
        """The cell as the requesting user may see it (only shortlisted candidates have one)."""
        card = scorecard(self.get_evaluation(), self.request.user)
        for cell in card.cells():
            if cell.case.pk == case.pk and cell.candidate.pk == candidate.pk:
                return cell
        raise Conflict(
            gettext("%(s)s is eliminated; it is not scored.") % {"s": candidate.solution}
        )

    def respond(self, cell: Cell, version: int, *, created: bool = False) -> Response:
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return with_etag(Response(self.out(s.CellSerializer, cell), status=code), version)


class ScoreView(CellBaseView):
    def current_serializer(self, score: Score) -> dict:
        return self.out(s.MyScoreSerializer, score)

    @extend_schema(
        summary="The cell with my score (ETag: my score's version, 0 before I saved one)",
        responses={200: s.CellSerializer, **error_responses(404, 409)},
    )
    def get(self, request, evaluation_pk, case_pk, candidate_pk):
        cell = self.cell(*self.get_case_and_candidate())
        return self.respond(cell, cell.mine.version if cell.mine else 0)

    @extend_schema(
        summary="Save my score for the cell (a draft unless submit is true)",
        description="Always the requesting user's own score. Scores are 0–5 in whole or half "
        "points; a measured value needs a case with a metric and, without a score, is judged "
        "against its threshold. A submitted score is final (409).",
        request=s.ScoreWriteSerializer,
        responses={200: s.CellSerializer, 201: s.CellSerializer} | VERSIONED_WRITE_ERRORS,
    )
    def put(self, request, evaluation_pk, case_pk, candidate_pk):
        case, candidate = self.get_case_and_candidate()
        values = self.parse(s.ScoreWriteSerializer)
        mine = Score.objects.filter(case=case, candidate=candidate, reviewer=request.user)
        exists = mine.exists()
        pre = precondition(request, values.get("version"), exists=exists)
        with precondition_errors(pre):
            row = services.score_save(
                user=request.user,
                case=case,
                candidate=candidate,
                score=values["score"],
                measured_value=values["measured_value"],
                outcome=values["outcome"],
                notes=values["notes"],
                submit=values["submit"],
                expected_version=pre.version,
            )
        return self.respond(self.cell(case, candidate), row.version, created=not exists)


class ConsensusView(CellBaseView):
    serializer_class = s.ConsensusWriteSerializer

    def current_serializer(self, consensus: Consensus) -> dict:
        return self.out(s.ConsensusSerializer, consensus)

    @extend_schema(
        summary="The cell with its consensus (ETag: the consensus version, 0 before one)",
        responses={200: s.CellSerializer, **error_responses(404, 409)},
    )
    def get(self, request, evaluation_pk, case_pk, candidate_pk):
        cell = self.cell(*self.get_case_and_candidate())
        visible = cell.consensus is not None and not cell.hidden_count
        return self.respond(cell, cell.consensus.version if visible else 0)

    @extend_schema(
        summary="Record the agreed score for the cell, with the reason (owner only)",
        description="The consensus is what counts for the cell; the reviewers' scores stay "
        "visible. Needs at least one submitted score.",
        request=s.ConsensusWriteSerializer,
        responses={200: s.CellSerializer, 201: s.CellSerializer} | VERSIONED_WRITE_ERRORS,
    )
    def put(self, request, evaluation_pk, case_pk, candidate_pk):
        case, candidate = self.get_case_and_candidate()
        values = self.parse(s.ConsensusWriteSerializer)
        exists = Consensus.objects.filter(case=case, candidate=candidate).exists()
        pre = precondition(request, values.get("version"), exists=exists)
        with precondition_errors(pre):
            row = services.consensus_record(
                user=request.user,
                case=case,
                candidate=candidate,
                score=values["score"],
                reason=values["reason"],
                expected_version=pre.version,
            )
        return self.respond(self.cell(case, candidate), row.version, created=not exists)


# --- evidence --------------------------------------------------------------------------------


def _refuse_scoring(user, evaluation: Evaluation) -> None:
    """For a request that cannot reach a scoring service: the error that service would give."""
    if user.has_perm("poc.score", evaluation):
        return
    if evaluation.is_sealed:
        raise Conflict(
            gettext("This evaluation is sealed: it is read-only until its owner reopens it.")
        )
    raise Forbidden(gettext("Your role in this evaluation does not allow this."))


class EvidenceUploadView(CellBaseView):
    serializer_class = s.EvidenceUploadSerializer
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        summary="Attach a file to my score for the cell (multipart: file, optional name)",
        description="Save a score for the cell first. The file is limited in size and type "
        "and its SHA-256 is recorded; `name`, when given, is the name recorded (no paths).",
        request={"multipart/form-data": s.EvidenceUploadSerializer},
        responses={201: s.EvidenceSerializer, **WRITE_ERRORS},
    )
    def post(self, request, evaluation_pk, case_pk, candidate_pk):
        case, candidate = self.get_case_and_candidate()
        _body = request.data  # parse first: the size limit may have stopped the upload
        if refusal := services.upload_refusal(request):
            raise ValidationError({"file": refusal})
        values = self.parse(s.EvidenceUploadSerializer)
        upload = values["file"]
        if "name" in values:
            # Django's upload handling keeps only the last part of a multipart file name;
            # a name given here is taken as sent, so the service can refuse a path in it.
            upload = File(upload, name=values["name"])
        score = Score.objects.filter(case=case, candidate=candidate, reviewer=request.user).first()
        if score is None:
            _refuse_scoring(request.user, case.evaluation)
            raise ValidationError(
                {"file": gettext("Save your score for this cell before attaching evidence.")}
            )
        score.case = case
        try:
            evidence = services.evidence_add(user=request.user, score=score, upload=upload)
        except ValidationError as exc:
            if "name" in values and "file" in getattr(exc, "error_dict", {}):
                # A name given in `name` is the one refused (its type, its characters).
                errors = dict(exc.error_dict)
                raise ValidationError({"name": errors.pop("file"), **errors}) from exc
            raise
        return Response(self.out(s.EvidenceSerializer, evidence), status=status.HTTP_201_CREATED)


class EvidenceDownloadView(PocView):
    serializer_class = None

    @extend_schema(
        summary="Download an evidence file",
        description="Your own evidence, or evidence behind a score you may see: another "
        "reviewer's only after you submitted your score for that cell (owner and viewers: "
        "any submitted score's). Served as an attachment.",
        responses={
            **{(200, kind): OpenApiResponse(OpenApiTypes.BINARY) for kind in EVIDENCE_TYPES},
            **error_responses(403, 404),
        },
    )
    def get(self, request, evaluation_pk, evidence_pk):
        evidence = evidence_for_download(self.get_evaluation(), request.user, evidence_pk)
        return evidence_response(evidence)
