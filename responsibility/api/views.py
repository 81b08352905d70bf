"""Responsibility API: matrices and cost of ownership inside an evaluation (members only, others
get 404), plus the shared library of parties and areas for any signed-in user.

Views parse input, look rows up through the membership-scoped selectors and call the same
services the pages use; the services enforce permissions, sealing, validation and optimistic
concurrency. Concurrency over HTTP works as in the evaluations API: a matrix row, the cost
settings and a candidate's cost inputs each carry `version` and answer with `ETag: "<n>"`
(0 before the first save); a write names the version it edited as If-Match (stale: 412) or as
`version` in the body (stale: 409), and updating a saved one without either is refused with 428.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Prefetch
from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import generics, serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response

from common.http import (
    READ_ERRORS,
    VERSIONED_WRITE_ERRORS,
    WRITE_ERRORS,
    error_responses,
    precondition,
    precondition_errors,
    with_etag,
)
from evaluations.models import Candidate
from evaluations.scoped import CandidateScopedView, EvaluationScopedView

from .. import services
from ..models import Area, AreaRow, CostInput, CostSettings, Party
from ..selectors import (
    CandidateCost,
    MatrixRowView,
    MatrixView,
    active_areas,
    cost_input,
    cost_settings,
    evaluation_costs,
    evaluation_matrices,
    matrix_view,
    parties_for,
    rows_prefetch,
    shared_parties,
)
from . import serializers as s

# --- the library -----------------------------------------------------------------------------


@extend_schema_view(get=extend_schema(summary="The shared parties every evaluation sees"))
class PartyLibraryView(generics.ListAPIView):
    serializer_class = s.PartySerializer
    pagination_class = None
    filter_backends: list = []

    def get_queryset(self):
        return shared_parties()


@extend_schema_view(
    get=extend_schema(summary="The responsibility areas in use, in order, with their group")
)
class AreaLibraryView(generics.ListAPIView):
    serializer_class = s.AreaSerializer
    pagination_class = None
    filter_backends: list = []

    def get_queryset(self):
        return active_areas()


# --- parties of one evaluation ---------------------------------------------------------------


class EvaluationPartyListView(EvaluationScopedView):
    serializer_class = s.PartySerializer

    @extend_schema(
        summary="The shared parties, then this evaluation's own",
        responses={200: s.PartySerializer(many=True), **READ_ERRORS},
    )
    def get(self, request, evaluation_pk):
        parties = parties_for(self.get_evaluation())
        return Response(self.out(s.PartySerializer, parties, many=True))

    @extend_schema(
        summary="Add a party of this evaluation's own (e.g. a systems integrator)",
        request=s.PartyAddSerializer,
        responses={201: s.PartySerializer, **WRITE_ERRORS},
    )
    def post(self, request, evaluation_pk):
        evaluation = self.get_evaluation()
        values = self.parse(s.PartyAddSerializer)
        party = services.party_add(
            user=request.user, evaluation=evaluation, name=values["name"], kind=values["kind"]
        )
        return Response(self.out(s.PartySerializer, party), status=status.HTTP_201_CREATED)


# --- matrices --------------------------------------------------------------------------------


def _area(key: str, candidate: Candidate) -> Area:
    """The active area, if it applies to the candidate (some apply only to stacks); else 404."""
    area = Area.objects.select_related("group").filter(key=key, is_active=True).first()
    if area is None or not area.applies_to(candidate):
        raise NotFound(gettext("There is no responsibility area '%(key)s'.") % {"key": key})
    return area


def _candidate_matrix(
    candidate: Candidate, areas: list[Area], parties: list[Party], *, area: Area | None = None
) -> MatrixView:
    """The candidate's matrix over `areas`, read afresh (only `area`'s row when given)."""
    rows = rows_prefetch()
    if area is not None:
        rows = Prefetch(rows.prefetch_through, queryset=rows.queryset.filter(area=area))
    fresh = (
        Candidate.objects.select_related("solution__solution_type")
        .prefetch_related(rows)
        .get(pk=candidate.pk)
    )
    return matrix_view(fresh, areas, parties)


@dataclass
class MatrixDetail(MatrixView):
    """A matrix with its columns, and how many areas a prefill just added."""

    parties: list[Party] = field(default_factory=list)
    added: int = 0


class MatrixBaseView(CandidateScopedView):
    """Base for views about one candidate's matrix: letters are shown by party key."""

    serializer_class = s.MatrixSerializer
    candidate_url_kwarg = "candidate_pk"

    def getparties_for(self) -> list[Party]:
        if not hasattr(self, "_parties"):
            self._parties = parties_for(self.get_evaluation())
        return self._parties

    def get_serializer_context(self):
        context = super().get_serializer_context()
        context["party_keys"] = {p.pk: p.key for p in self.getparties_for()}
        return context

    def matrix(self, candidate: Candidate, added: int = 0) -> MatrixDetail:
        parties = self.getparties_for()
        matrix = _candidate_matrix(candidate, active_areas(), parties)
        return MatrixDetail(**vars(matrix), parties=parties, added=added)


class MatrixListView(EvaluationScopedView):
    serializer_class = s.MatrixSummarySerializer

    @extend_schema(
        summary="Each shortlisted candidate's matrix check: coverage, gaps, conflicts, effort",
        responses={200: s.MatrixSummarySerializer(many=True), **READ_ERRORS},
    )
    def get(self, request, evaluation_pk):
        matrices = evaluation_matrices(self.get_evaluation(), lean=True)
        return Response(self.out(s.MatrixSummarySerializer, matrices, many=True))


class MatrixDetailView(MatrixBaseView):
    @extend_schema(
        summary="One candidate's whole matrix: every area with its letters, and the check",
        responses={200: s.MatrixSerializer, **READ_ERRORS},
    )
    def get(self, request, evaluation_pk, candidate_pk):
        return Response(self.out(s.MatrixSerializer, self.matrix(self.get_candidate())))


class MatrixPrefillView(MatrixBaseView):
    serializer_class = s.MatrixPrefillSerializer

    @extend_schema(
        summary="Fill the areas not saved yet with the starting point for the candidate's type",
        request=None,
        responses={200: s.MatrixPrefillSerializer, **error_responses(403, 404, 409)},
    )
    def post(self, request, evaluation_pk, candidate_pk):
        candidate = self.get_candidate()
        added = services.matrix_prefill(user=request.user, candidate=candidate)
        return Response(self.out(s.MatrixPrefillSerializer, self.matrix(candidate, added)))


class RowBaseView(MatrixBaseView):
    serializer_class = s.MatrixRowSerializer

    def row_view(self, candidate: Candidate, area: Area) -> MatrixRowView:
        return _candidate_matrix(candidate, [area], self.getparties_for(), area=area).rows[0]

    def current_serializer(self, row: AreaRow) -> dict:
        return self.out(s.MatrixRowSerializer, self.row_view(row.candidate, row.area))

    def respond(self, candidate: Candidate, area: Area, *, created: bool = False) -> Response:
        row = self.row_view(candidate, area)
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return with_etag(Response(self.out(s.MatrixRowSerializer, row), status=code), row.version)

    def party(self, key: str) -> Party | None:
        """A party of this evaluation (shared or its own) by key."""
        by_key = {p.key: p for p in self.getparties_for() if p.evaluation_id is not None}
        by_key.update({p.key: p for p in self.getparties_for() if p.evaluation_id is None})
        return by_key.get(key)


class RowView(RowBaseView):
    @extend_schema(
        summary="One area of the candidate's matrix (ETag 0 while it has not been saved)",
        responses={200: s.MatrixRowSerializer, **READ_ERRORS},
    )
    def get(self, request, evaluation_pk, candidate_pk, area_key):
        candidate = self.get_candidate()
        return self.respond(candidate, _area(area_key, candidate))

    @extend_schema(
        summary="Save one area at once: its letters, note and internal effort",
        description="Exactly one party may be accountable (A); two or more are refused "
        "with 400. Letters name parties by key: the shared parties or this evaluation's own.",
        request=s.RowWriteSerializer,
        responses={200: s.MatrixRowSerializer, 201: s.MatrixRowSerializer} | VERSIONED_WRITE_ERRORS,
    )
    def put(self, request, evaluation_pk, candidate_pk, area_key):
        candidate = self.get_candidate()
        area = _area(area_key, candidate)
        values = self.parse(s.RowWriteSerializer)
        letters = None
        if "letters" in values:
            letters, unknown = {}, []
            for key, letter in values["letters"].items():
                party = self.party(key)
                if party is None:
                    unknown.append(key)
                else:
                    letters[party] = letter
            if unknown:
                raise serializers.ValidationError(
                    {
                        "letters": gettext("Unknown party: %(keys)s. Use one of: %(known)s.")
                        % {
                            "keys": ", ".join(unknown),
                            "known": ", ".join(p.key for p in self.getparties_for()),
                        }
                    }
                )
        exists = AreaRow.objects.filter(candidate=candidate, area=area).exists()
        pre = precondition(request, values.get("version"), exists=exists)
        with precondition_errors(pre):
            services.row_update(
                user=request.user,
                candidate=candidate,
                area=area,
                expected_version=pre.version,
                letters=letters,
                note=values.get("note"),
                internal_fte=values.get("internal_fte"),
            )
        return self.respond(candidate, area, created=not exists)


class CellView(RowBaseView):
    @extend_schema(
        summary="Set or clear one party's letter in one area; answers with the whole row",
        request=s.CellWriteSerializer,
        responses={200: s.MatrixRowSerializer, 201: s.MatrixRowSerializer} | VERSIONED_WRITE_ERRORS,
    )
    def put(self, request, evaluation_pk, candidate_pk, area_key, party_key):
        candidate = self.get_candidate()
        area = _area(area_key, candidate)
        party = self.party(party_key)
        if party is None:
            raise NotFound(
                gettext("There is no party '%(key)s' in this evaluation.") % {"key": party_key}
            )
        values = self.parse(s.CellWriteSerializer)
        exists = AreaRow.objects.filter(candidate=candidate, area=area).exists()
        pre = precondition(request, values.get("version"), exists=exists)
        with precondition_errors(pre):
            services.cell_set(
                user=request.user,
                candidate=candidate,
                area=area,
                party=party,
                letter=values["letter"],
                expected_version=pre.version,
            )
        return self.respond(candidate, area, created=not exists)


# --- costs -----------------------------------------------------------------------------------


class CostSettingsView(EvaluationScopedView):
    serializer_class = s.CostSettingsSerializer

    def current_serializer(self, settings: CostSettings) -> dict:
        return self.out(s.CostSettingsSerializer, settings)

    @extend_schema(
        summary="Horizon, currency and cost per FTE-year (defaults and ETag 0 until saved)",
        responses={200: s.CostSettingsSerializer, **READ_ERRORS},
    )
    def get(self, request, evaluation_pk):
        settings = cost_settings(self.get_evaluation())
        return with_etag(Response(self.out(s.CostSettingsSerializer, settings)), settings.version)

    @extend_schema(
        summary="Save the cost settings (create or update)",
        request=s.CostSettingsWriteSerializer,
        responses={200: s.CostSettingsSerializer, 201: s.CostSettingsSerializer}
        | VERSIONED_WRITE_ERRORS,
    )
    def put(self, request, evaluation_pk):
        evaluation = self.get_evaluation()
        values = self.parse(s.CostSettingsWriteSerializer)
        exists = CostSettings.objects.filter(evaluation=evaluation).exists()
        pre = precondition(request, values.pop("version", None), exists=exists)
        with precondition_errors(pre):
            settings = services.cost_settings_save(
                user=request.user, evaluation=evaluation, expected_version=pre.version, **values
            )
        code = status.HTTP_200_OK if exists else status.HTTP_201_CREATED
        body = self.out(s.CostSettingsSerializer, settings)
        return with_etag(Response(body, status=code), settings.version)


class CostInputView(CandidateScopedView):
    serializer_class = s.CostInputSerializer
    candidate_url_kwarg = "candidate_pk"

    def current_serializer(self, data: CostInput) -> dict:
        return self.out(s.CostInputSerializer, data)

    @extend_schema(
        summary="The candidate's cost inputs (zeros and ETag 0 until saved)",
        responses={200: s.CostInputSerializer, **READ_ERRORS},
    )
    def get(self, request, evaluation_pk, candidate_pk):
        data = cost_input(self.get_candidate())
        return with_etag(Response(self.out(s.CostInputSerializer, data)), data.version)

    @extend_schema(
        summary="Save the candidate's cost inputs (create or update)",
        description="Money, hours and prices must not be negative; utilisation is 0 to 1.",
        request=s.CostInputWriteSerializer,
        responses={200: s.CostInputSerializer, 201: s.CostInputSerializer} | VERSIONED_WRITE_ERRORS,
    )
    def put(self, request, evaluation_pk, candidate_pk):
        candidate = self.get_candidate()
        values = self.parse(s.CostInputWriteSerializer)
        exists = CostInput.objects.filter(candidate=candidate).exists()
        pre = precondition(request, values.pop("version", None), exists=exists)
        with precondition_errors(pre):
            data = services.cost_input_save(
                user=request.user, candidate=candidate, expected_version=pre.version, **values
            )
        code = status.HTTP_200_OK if exists else status.HTTP_201_CREATED
        return with_etag(Response(self.out(s.CostInputSerializer, data), status=code), data.version)


@dataclass
class Costs:
    settings: CostSettings
    fte_cost_per_year: Decimal
    what_if: dict
    candidates: list[CandidateCost]


class CostListView(EvaluationScopedView):
    serializer_class = s.CostsSerializer

    @extend_schema(
        summary="Cost of ownership per shortlisted candidate, year by year",
        description="The what-if parameters replace the saved values for every candidate in "
        "this answer only; nothing is saved. People = internal FTE from the candidate's "
        "matrix × cost per FTE-year.",
        parameters=[s.WhatIfSerializer],
        responses={200: s.CostsSerializer, **error_responses(400, 404)},
    )
    def get(self, request, evaluation_pk):
        evaluation = self.get_evaluation()
        # A blank parameter means "not tried", as on the page's what-if form.
        given = {k: v for k, v in request.query_params.items() if v.strip()}
        what_if = s.WhatIfSerializer(data=given)
        what_if.is_valid(raise_exception=True)
        overrides = dict(what_if.validated_data)
        settings, rows = evaluation_costs(evaluation, **overrides)
        costs = Costs(
            settings=settings,
            fte_cost_per_year=overrides.get("fte_cost_per_year", settings.fte_cost_per_year),
            what_if=overrides,
            candidates=rows,
        )
        return Response(self.out(s.CostsSerializer, costs))
