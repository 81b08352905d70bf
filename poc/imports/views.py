"""The "Import measurements" page: upload a file, see what it would change (nothing is saved),
confirm to apply it as my draft scores. Members only; scorers import as themselves."""

from __future__ import annotations

import base64

from django.contrib import messages
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views import View

from common.views import ActionRouter, PageAction
from evaluations.scoped import EvaluationMixin

from ..services.evidence import upload_refusal
from . import files, services
from .forms import ImportApplyForm, ImportUploadForm


class ImportPage(EvaluationMixin, PageAction):
    tab = "poc"
    template_name = "poc/imports.html"

    def context(self, form=None, error=None, **extra):
        e, user = self.evaluation, self.request.user
        extra.setdefault("upload_form", ImportUploadForm())
        return {
            "can_score": user.has_perm("poc.score", e),
            "imports": services.my_imports(e, user)[:20],
            "max_bytes": files.MAX_BYTES,
            "error": error,
            **extra,
        }

    def success_url(self):
        return reverse("poc:imports", kwargs={"pk": self.evaluation.pk})

    def show(self, result: services.ImportResult, content: bytes):
        """The preview: the row errors (400) or the changes with the confirm form (200)."""
        ctx = self.context(result=result)
        if not result.errors:
            ctx["apply_form"] = ImportApplyForm(
                initial={
                    "name": result.name,
                    "content": base64.b64encode(content).decode("ascii"),
                    "sha256": result.sha256,
                    "state": result.state,
                }
            )
        return self.answer(ctx, 400 if result.errors else 200)


class ImportPreviewView(ImportPage, View):
    form_class = ImportUploadForm

    def context(self, form=None, error=None, **extra):
        if form is not None:
            extra["upload_form"] = form
        return super().context(form, error, **extra)

    def refuse(self, form, status, error=None, **extra):
        if refusal := upload_refusal(self.request):
            form.errors["file"] = form.error_class([refusal])
        return super().refuse(form, status, error, **extra)

    def perform(self, form):
        name, content = files.read_upload(form.cleaned_data["file"])
        result = services.run(
            user=self.request.user, evaluation=self.evaluation, name=name, content=content,
            apply=False,
        )  # fmt: skip
        return result, content

    def success(self, result):
        return self.show(*result)


class ImportApplyView(ImportPage, View):
    form_class = ImportApplyForm
    errors_as_message = True  # hidden fields: no place of their own for errors

    def perform(self, form):
        data = form.cleaned_data
        result = services.run(
            user=self.request.user,
            evaluation=self.evaluation,
            name=data["name"],
            content=data["bytes"],
            apply=True,
            expected_state=data["state"],
        )
        return result, data["bytes"]

    def success(self, result):
        result, content = result
        if not result.applied:
            return self.show(result, content)
        messages.success(
            self.request,
            _("%(n)d measured value(s) imported from %(name)s.")
            % {"n": len(result.changes), "name": result.name},
        )
        return redirect(reverse("poc:scorecard", kwargs={"pk": self.evaluation.pk}))


class ImportView(ActionRouter, ImportPage, View):
    actions = {"preview": ImportPreviewView, "apply": ImportApplyView}

    def get(self, request, pk):
        return self.answer(self.context())
