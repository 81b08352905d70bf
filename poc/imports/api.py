"""POC API: import my measured values from a CSV or JSON file (dry run or apply), and list my
imports. The same service as the page (services.py): the same row errors, all-or-nothing."""

from __future__ import annotations

import hashlib

from django.core.exceptions import ValidationError
from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import FormParser
from rest_framework.response import Response

from common.drf import MultiPartParser
from common.http import READ_ERRORS, WRITE_ERRORS

from ..api.base import PocView
from ..services.evidence import upload_refusal
from . import files, services


class ImportRequestSerializer(serializers.Serializer):
    file = serializers.FileField(
        help_text="A .csv (header line) or .json (a list of objects) file in UTF-8 with the "
        "columns candidate, case, value and optionally unit, run_id, measured_at, tool."
    )
    dry_run = serializers.BooleanField(
        default=False, help_text="Preview only: validate and show what would change; save nothing."
    )
    state = serializers.RegexField(
        r"^[0-9a-f]{32}$",
        required=False,
        help_text="The `state` of a preview of this file: the import is refused (409) if your "
        "scores for its cells changed since.",
    )
    sha256 = serializers.RegexField(
        r"^[0-9a-f]{64}$",
        required=False,
        help_text="The SHA-256 of the previewed file: the import is refused unless the file sent "
        "is that file.",
    )


class RowErrorSerializer(serializers.Serializer):
    row = serializers.IntegerField(help_text="CSV: the line (the header is 1); JSON: the item.")
    column = serializers.CharField(help_text="Empty when the row as a whole is refused.")
    message = serializers.CharField()


class ChangeSerializer(serializers.Serializer):
    row = serializers.IntegerField()
    case = serializers.IntegerField()
    case_title = serializers.CharField()
    candidate = serializers.IntegerField()
    candidate_name = serializers.CharField()
    unit = serializers.CharField()
    old_value = serializers.DecimalField(max_digits=14, decimal_places=4, allow_null=True)
    new_value = serializers.DecimalField(max_digits=14, decimal_places=4)
    old_score = serializers.DecimalField(max_digits=3, decimal_places=1, allow_null=True)
    new_score = serializers.DecimalField(max_digits=3, decimal_places=1, allow_null=True)
    conflicts = serializers.ListField(child=serializers.CharField())


class ImportResultSerializer(serializers.Serializer):
    dry_run = serializers.BooleanField()
    applied = serializers.BooleanField()
    import_id = serializers.IntegerField(allow_null=True)
    file_name = serializers.CharField()
    sha256 = serializers.CharField()
    size = serializers.IntegerField()
    rows = serializers.IntegerField()
    state = serializers.CharField(help_text="Send it back with the apply to refuse stale scores.")
    ignored_columns = serializers.ListField(child=serializers.CharField())
    errors = RowErrorSerializer(many=True)
    changes = ChangeSerializer(many=True)


class ImportRecordSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    file_name = serializers.CharField(source="original_name")
    sha256 = serializers.CharField()
    size = serializers.IntegerField()
    rows = serializers.IntegerField(source="row_count")
    imported_at = serializers.DateTimeField()


def result_body(result: services.ImportResult, dry_run: bool) -> dict:
    return {
        "dry_run": dry_run,
        "applied": result.applied,
        "import_id": result.record.pk if result.record else None,
        "file_name": result.name,
        "sha256": result.sha256,
        "size": result.size,
        "rows": result.rows,
        "state": result.state,
        "ignored_columns": result.ignored_columns,
        "errors": [e.as_dict() for e in result.errors],
        "changes": [c.as_dict() for c in result.changes],
    }


class ImportView(PocView):
    serializer_class = ImportRequestSerializer
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(
        summary="My measurement imports in this evaluation, newest first",
        responses={200: ImportRecordSerializer(many=True), **READ_ERRORS},
    )
    def get(self, request, evaluation_pk):
        rows = services.my_imports(self.get_evaluation(), request.user)
        return Response(ImportRecordSerializer(rows, many=True).data)

    @extend_schema(
        summary="Import my measured values from a file (dry_run: preview only)",
        description="Every row is checked (candidate, case, metric, unit, number, date, "
        "duplicates, submitted cells) and saved as your own draft score through the same rules "
        "as a typed score. One bad row and nothing is saved: 400 with `errors` (row, column, "
        "message) next to `file` (a summary) and the rest of the result. A dry run saves "
        "nothing and answers 200 with the changes; an applied import answers 201 and keeps the "
        "file (SHA-256) as evidence of each score it set.",
        request={"multipart/form-data": ImportRequestSerializer},
        responses={
            200: ImportResultSerializer,
            201: ImportResultSerializer,
            **WRITE_ERRORS,
        },
    )
    def post(self, request, evaluation_pk):
        evaluation = self.get_evaluation()
        _body = request.data  # parse first: the size limit may have stopped the upload
        if refusal := upload_refusal(request):
            raise ValidationError({"file": refusal})
        values = self.parse(ImportRequestSerializer)
        name, content = files.read_upload(values["file"])
        if "sha256" in values and values["sha256"] != hashlib.sha256(content).hexdigest():
            raise ValidationError(
                {"sha256": gettext("This is not the file you previewed; upload that file.")}
            )
        result = services.run(
            user=request.user,
            evaluation=evaluation,
            name=name,
            content=content,
            apply=not values["dry_run"],
            expected_state=values.get("state"),
        )
        body = result_body(result, values["dry_run"])
        if result.errors:
            summary = gettext("%(n)d row error(s): nothing was imported.") % {
                "n": len(result.errors)
            }
            body = {"file": [summary], **self.out(ImportResultSerializer, body)}
            return Response(body, status=status.HTTP_400_BAD_REQUEST)
        code = status.HTTP_201_CREATED if result.applied else status.HTTP_200_OK
        return Response(self.out(ImportResultSerializer, body), status=code)
