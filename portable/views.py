"""The pages: download an evaluation's archive (its owner), import one (who creates
evaluations). Both call portable.archive, as the API and the commands do."""

from __future__ import annotations

import tempfile

from django.conf import settings
from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.uploadhandler import TemporaryFileUploadHandler
from django.db import transaction
from django.http import FileResponse, HttpResponse
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views import View
from django.views.decorators.csrf import csrf_exempt, csrf_protect

from common.uploads import SizeLimitUploadHandler
from common.views import PageAction
from evaluations.models import Evaluation
from evaluations.scoped import EvaluationMixin

from .archive import ArchiveRefused, evaluation_export, evaluation_import
from .forms import ArchiveImportForm


def export_refusal(user, evaluation: Evaluation) -> str:
    """Why `user` (a member) may not export the evaluation, or "" when they may."""
    if user.has_perm("portable.export_evaluation", evaluation):
        return ""
    return _(
        "Only the evaluation's owner exports its archive: it holds every member's scores, "
        "drafts and evidence."
    )


def archive_file(evaluation: Evaluation):
    """The evaluation's archive in an anonymous temporary file (gone once closed), rewound."""
    spool = tempfile.TemporaryFile()  # noqa: SIM115  (the response closes it once sent)
    try:
        evaluation_export(evaluation, spool)
    except BaseException:
        spool.close()
        raise
    spool.seek(0)
    return spool


def archive_response(spool, evaluation: Evaluation) -> FileResponse:
    response = FileResponse(
        spool,
        as_attachment=True,
        filename=f"shortlist-evaluation-{evaluation.pk}.zip",
        content_type="application/zip",
    )
    response["X-Content-Type-Options"] = "nosniff"
    return response


class EvaluationArchiveView(EvaluationMixin, View):
    def get(self, request, pk):
        if refusal := export_refusal(request.user, self.evaluation):
            raise PermissionDenied(refusal)
        try:
            spool = archive_file(self.evaluation)
        except ArchiveRefused as exc:
            return HttpResponse(
                " ".join(exc.messages), status=409, content_type="text/plain; charset=utf-8"
            )
        return archive_response(spool, self.evaluation)


class ArchiveUploadHandler(SizeLimitUploadHandler):
    """Archives are larger than evidence: this page's own limit."""

    def limit(self) -> int:
        return settings.PORTABLE_MAX_BYTES


# The upload handlers must be chosen before anything reads the body, the CSRF check included:
# it runs inside dispatch, after them (Django's documented way to change handlers in a view).
@method_decorator(csrf_exempt, name="dispatch")
# The import has its own transaction, and removes the files it wrote when that rolls back.
@method_decorator(transaction.non_atomic_requests, name="dispatch")
class EvaluationImportView(LoginRequiredMixin, PageAction, View):
    template_name = "portable/evaluation_import.html"
    form_class = ArchiveImportForm
    success_message = gettext_lazy("Evaluation imported from the archive.")

    def dispatch(self, request, *args, **kwargs):
        if request.user.is_authenticated and not request.user.has_perm(
            "portable.import_evaluation"
        ):
            raise PermissionDenied
        # On disk, never in memory, and stopped at the archive limit.
        request.upload_handlers = [
            ArchiveUploadHandler(request),
            TemporaryFileUploadHandler(request),
        ]
        return csrf_protect(super().dispatch)(request, *args, **kwargs)

    def form_kwargs(self) -> dict:
        return {"too_large": getattr(self.request, "upload_too_large", None)}

    def context(self, form, **extra):
        return {"form": form, "max_bytes": settings.PORTABLE_MAX_BYTES, **extra}

    def get(self, request):
        return self.answer(self.context(self.get_form()))

    def perform(self, form):
        upload = form.cleaned_data["archive"]
        try:
            return evaluation_import(source=upload.file, user=self.request.user, name=upload.name)
        except ArchiveRefused as exc:
            raise ValidationError({"archive": exc.messages}) from None
        finally:
            upload.close()

    def success(self, result):
        self.imported = result
        return super().success(result)

    def success_url(self) -> str:
        return reverse("evaluations:evaluation_detail", kwargs={"pk": self.imported.pk})
