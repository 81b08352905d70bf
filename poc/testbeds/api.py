"""POC API: each shortlisted candidate's test bed (versioned), the mismatch between beds, and
the test beds the owner declared equivalent. Members only. (The capabilities the POC verified
or contradicted: poc/verification/api.py.)"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from common.http import (
    READ_ERRORS,
    VERSIONED_WRITE_ERRORS,
    WRITE_ERRORS,
    IntegerField,
    VersionField,
    precondition,
    precondition_errors,
    with_etag,
)
from evaluations.scoped import CandidateScopedView
from evaluations.selectors import candidate_get

from ..api.base import PocView
from . import comparable, services
from .models import MAX_ACCELERATORS, MAX_NODES, TestBed


class TestBedSerializer(serializers.Serializer):
    __test__ = False  # not a pytest test class

    product_version = serializers.CharField(max_length=200, allow_blank=True, default="")
    components = serializers.CharField(max_length=10_000, allow_blank=True, default="")
    accelerator_vendor = serializers.CharField(max_length=100, allow_blank=True, default="")
    accelerator_model = serializers.CharField(
        max_length=100,
        allow_blank=True,
        default="",
        help_text="Free text, e.g. NVIDIA A800, Huawei Ascend 910B, Cambricon MLU370.",
    )
    accelerator_count = IntegerField(
        min_value=1, max_value=MAX_ACCELERATORS, allow_null=True, default=None
    )
    nodes = IntegerField(min_value=1, max_value=MAX_NODES, allow_null=True, default=None)
    tested_from = serializers.DateField(allow_null=True, default=None)
    tested_to = serializers.DateField(allow_null=True, default=None)
    notes = serializers.CharField(max_length=10_000, allow_blank=True, default="")


class TestBedWriteSerializer(TestBedSerializer):
    version = VersionField()


class TestBedOutSerializer(TestBedSerializer):
    version = serializers.IntegerField()


class CandidateBedSerializer(serializers.Serializer):
    candidate = serializers.IntegerField(source="candidate.pk")
    name = serializers.CharField(source="candidate.name")
    test_bed = TestBedOutSerializer(allow_null=True, help_text="null: none recorded yet.")


class MismatchSerializer(serializers.Serializer):
    accelerators = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="[candidate, accelerator] of each bed, when the accelerators differ.",
    )
    scale = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField(allow_null=True)),
        help_text="[candidate, accelerators, nodes] of each bed, when the scale differs.",
    )


class TestBedListSerializer(serializers.Serializer):
    candidates = CandidateBedSerializer(many=True)
    mismatch = MismatchSerializer()


def _mismatch(rows) -> dict:
    m = services.bed_mismatch(
        [
            services.Bed(c.name, b.accelerator, b.accelerator_count, b.nodes)
            for c, b in rows
            if b is not None
        ]
    )
    return {
        "accelerators": [list(pair) for pair in m.accelerators],
        "scale": [
            [name, None if n is None else str(n), None if s is None else str(s)]
            for name, n, s in m.scale
        ],
    }


class TestBedListView(PocView):
    serializer_class = TestBedListSerializer

    @extend_schema(
        summary="Each shortlisted candidate's test bed, and whether the beds differ",
        operation_id="evaluations_poc_testbeds_list",
        responses={200: TestBedListSerializer, **READ_ERRORS},
    )
    def get(self, request, evaluation_pk):
        rows = services.beds_of(self.get_evaluation())
        body = {
            "candidates": [{"candidate": c, "test_bed": b} for c, b in rows],
            "mismatch": _mismatch(rows),
        }
        return Response(self.out(TestBedListSerializer, body))


class TestBedDetailView(CandidateScopedView):
    serializer_class = TestBedWriteSerializer
    candidate_url_kwarg = "candidate_pk"

    def current_serializer(self, bed: TestBed) -> dict:
        return self.out(TestBedOutSerializer, bed)

    def _bed(self, candidate) -> TestBed | None:
        return TestBed.objects.filter(candidate=candidate).first()

    @extend_schema(
        summary="One candidate's test bed (ETag: its version, 0 before one is saved)",
        responses={200: TestBedOutSerializer, **READ_ERRORS},
    )
    def get(self, request, evaluation_pk, candidate_pk):
        bed = self._bed(self.get_candidate())
        if bed is None:
            empty = {**TestBedSerializer().data, "version": 0}  # nothing recorded yet
            return with_etag(Response(empty), 0)
        return with_etag(Response(self.out(TestBedOutSerializer, bed)), bed.version)

    @extend_schema(
        summary="Record or change a candidate's test bed (editors and owners)",
        description="Versions under test, accelerators (vendor, model and count; domestic "
        "accelerators are free text like any other), cluster size in nodes, dates and notes.",
        request=TestBedWriteSerializer,
        responses={200: TestBedOutSerializer, 201: TestBedOutSerializer} | VERSIONED_WRITE_ERRORS,
    )
    def put(self, request, evaluation_pk, candidate_pk):
        candidate = self.get_candidate()
        values = self.parse(TestBedWriteSerializer)
        exists = self._bed(candidate) is not None
        pre = precondition(request, values.pop("version", None), exists=exists)
        with precondition_errors(pre):
            bed = services.bed_save(
                user=request.user, candidate=candidate, expected_version=pre.version, **values
            )
        code = status.HTTP_200_OK if exists else status.HTTP_201_CREATED
        return with_etag(Response(self.out(TestBedOutSerializer, bed), status=code), bed.version)


# --- test beds declared equivalent (the owner) ---------------------------------------------


class BedEquivalenceSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    first = serializers.IntegerField(source="first_id", help_text="A candidate id (its bed).")
    second = serializers.IntegerField(
        source="second_id", help_text="Another candidate id (its test bed)."
    )
    reason = serializers.CharField(
        max_length=10_000, help_text="Why these beds count as the same conditions (required)."
    )
    first_test_bed = serializers.CharField(source="first_label", read_only=True)
    second_test_bed = serializers.CharField(source="second_label", read_only=True)
    declared_by = serializers.CharField(source="declared_by.username", read_only=True)
    declared_at = serializers.DateTimeField(read_only=True)
    version = serializers.IntegerField(read_only=True)


class BedEquivalenceListView(PocView):
    serializer_class = BedEquivalenceSerializer

    @extend_schema(
        summary="The test beds the owner declared equivalent",
        description="Results compare candidates only within a comparable group: the same "
        "solution type on the same test-bed conditions. A declaration joins two conditions, "
        "as they were when declared.",
        responses={200: BedEquivalenceSerializer(many=True), **READ_ERRORS},
    )
    def get(self, request, evaluation_pk):
        rows = self.get_evaluation().bed_equivalences.select_related("declared_by")
        return Response(self.out(BedEquivalenceSerializer, rows, many=True))

    @extend_schema(
        summary="Declare two candidates' test beds equivalent (owner only, with a reason)",
        request=BedEquivalenceSerializer,
        responses={201: BedEquivalenceSerializer, **WRITE_ERRORS},
    )
    def post(self, request, evaluation_pk):
        evaluation = self.get_evaluation()
        values = self.parse(BedEquivalenceSerializer)
        row = comparable.equivalence_declare(
            user=request.user,
            evaluation=evaluation,
            first=candidate_get(evaluation, values["first_id"]),
            second=candidate_get(evaluation, values["second_id"]),
            reason=values["reason"],
        )
        body = self.out(BedEquivalenceSerializer, row)
        return with_etag(Response(body, status=status.HTTP_201_CREATED), row.version)


class BedEquivalenceDetailView(PocView):
    serializer_class = BedEquivalenceSerializer

    @extend_schema(
        summary="Withdraw a test-bed equivalence (owner only; If-Match: its version)",
        responses={204: None, **VERSIONED_WRITE_ERRORS},
    )
    def delete(self, request, evaluation_pk, equivalence_pk):
        row = comparable.equivalence_get(self.get_evaluation(), equivalence_pk)
        pre = precondition(request, None, exists=True)
        with precondition_errors(pre):
            comparable.equivalence_withdraw(
                user=request.user, equivalence=row, expected_version=pre.version
            )
        return Response(status=status.HTTP_204_NO_CONTENT)
