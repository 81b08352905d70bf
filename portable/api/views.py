"""The evaluation's archive over the API: the same file and the same rule as the page (its
owner downloads it; other members 403, everyone else 404)."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.exceptions import PermissionDenied

from common.exceptions import Conflict
from common.http import error_responses
from evaluations.scoped import EvaluationScopedView

from ..archive import ArchiveRefused
from ..views import archive_file, archive_response, export_refusal


class EvaluationArchiveView(EvaluationScopedView):
    serializer_class = None

    @extend_schema(
        summary="Download the evaluation as one archive (.zip)",
        description="evaluation.json (every row of the evaluation, schema_version 1), its "
        "evidence files and report PDFs under files/, and manifest.json with the SHA-256 and "
        "size of each. Import it into another instance with the import page or "
        "`manage.py import_evaluation`. The owner's only: 403 for other members. 409 when a "
        "stored file is missing.",
        responses={
            (200, "application/zip"): OpenApiResponse(OpenApiTypes.BINARY),
            **error_responses(403, 404, 409),
        },
    )
    def get(self, request, evaluation_pk):
        evaluation = self.get_evaluation()
        if refusal := export_refusal(request.user, evaluation):
            raise PermissionDenied(refusal)
        try:
            spool = archive_file(evaluation)
        except ArchiveRefused as exc:
            raise Conflict(" ".join(exc.messages)) from None
        return archive_response(spool, evaluation)
