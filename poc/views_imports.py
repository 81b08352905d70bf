"""The "Import measurements" page: upload a file, see what it would change (nothing is saved),
confirm to apply it as my draft scores. Members only; scorers import as themselves."""

from __future__ import annotations

import base64
import binascii
import hashlib

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views import View

from common.forms import FileInput
from common.views import ActionRouter, PageAction
from evaluations.scoped import EvaluationMixin

from . import import_files, imports, services


class ImportUploadForm(forms.Form):
    file = forms.FileField(
        label=gettext_lazy("Measurements file (.csv or .json)"), widget=FileInput()
    )


class ImportApplyForm(forms.Form):
    """The previewed file, carried by the confirm form so that any web worker can apply it; its
    SHA-256 must be the previewed one."""

    name = forms.CharField(max_length=200)
    content = forms.CharField(max_length=import_files.MAX_BYTES * 2, strip=False)
    sha256 = forms.RegexField(regex=r"^[0-9a-f]{64}$")
    state = forms.RegexField(regex=r"^[0-9a-f]{32}$")

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        try:
            data["bytes"] = base64.b64decode(data["content"].encode("ascii"), validate=True)
        except (binascii.Error, UnicodeEncodeError):
            damaged = _("The previewed file was damaged; upload it again.")
            raise ValidationError({"content": damaged}) from None
        if hashlib.sha256(data["bytes"]).hexdigest() != data["sha256"]:
            raise ValidationError(
                {"sha256": _("This is not the file you previewed; upload it again.")}
            )
        return data


class ImportPage(EvaluationMixin, PageAction):
    tab = "poc"
    template_name = "poc/imports.html"

    def context(self, form=None, error=None, **extra):
        e, user = self.evaluation, self.request.user
        extra.setdefault("upload_form", ImportUploadForm())
        return {
            "can_score": user.has_perm("poc.score", e),
            "imports": imports.my_imports(e, user)[:20],
            "max_bytes": import_files.MAX_BYTES,
            "error": error,
            **extra,
        }

    def success_url(self):
        return reverse("poc:imports", kwargs={"pk": self.evaluation.pk})

    def show(self, result: imports.ImportResult, content: bytes):
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
        if refusal := services.upload_refusal(self.request):
            form.errors["file"] = form.error_class([refusal])
        return super().refuse(form, status, error, **extra)

    def perform(self, form):
        name, content = import_files.read_upload(form.cleaned_data["file"])
        result = imports.run(
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
        result = imports.run(
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
