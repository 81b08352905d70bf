"""The catalog bundle page (catalog administrators): download this installation's catalog,
upload a bundle to see what it would change, apply it, and the list of past imports.

The uploaded file is kept on the server (default storage, `catalog-bundles/<sha256>.zip`)
between the preview and the apply: the confirmation names it by its SHA-256 and the server reads
and checks it again, so nothing a browser sends back is trusted but that name."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.files.uploadhandler import MemoryFileUploadHandler, TemporaryFileUploadHandler
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.decorators import method_decorator
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views import View
from django.views.decorators.csrf import csrf_exempt, csrf_protect

from common.uploads import SizeLimitUploadHandler
from common.views import ActionRouter, PageAction

from ..models import SupportLevel
from .apply import bundle_apply
from .common import KINDS, MAX_BYTES, STATUSES, BundleRefused, BundleStale
from .diff import Diff, RowDiff, bundle_diff
from .export import bundle_export
from .forms import BundleApplyForm, BundleUploadForm
from .models import CatalogImport
from .read import Bundle, bundle_read

PERMISSION = "catalog.change_capabilityclaim"
FOLDER = "catalog-bundles"
HISTORY_PAGE_SIZE = 20
SHOWN_ROWS = 200  # changed claims (and other rows) listed on the preview; the counts say all

KIND_LABELS = {
    "sources": gettext_lazy("Sources"),
    "solution_types": gettext_lazy("Solution types"),
    "scenarios": gettext_lazy("Scenarios"),
    "capability_groups": gettext_lazy("Capability groups"),
    "capabilities": gettext_lazy("Capabilities"),
    "solutions": gettext_lazy("Solutions"),
    "claims": gettext_lazy("Claims"),
    "shortlist_rules": gettext_lazy("Shortlist rules"),
    "accelerator_families": gettext_lazy("Accelerator families"),
    "accelerator_support": gettext_lazy("Accelerator support"),
}
STATUS_LABELS = {
    "new": gettext_lazy("New"),
    "changed": gettext_lazy("Changed"),
    "unchanged": gettext_lazy("Unchanged"),
    "kept": gettext_lazy("Only here (kept)"),
}
FIELD_LABELS = {
    "level": gettext_lazy("level"),
    "as_of": gettext_lazy("as-of version"),
    "note_en": gettext_lazy("note (English)"),
    "note_zh_hans": gettext_lazy("note (Chinese)"),
    "sources": gettext_lazy("sources"),
    "checked": gettext_lazy("checked on"),
    "release": gettext_lazy("latest known release"),
}


def stored_name(sha256: str) -> str:
    return f"{FOLDER}/{sha256}.zip"


def bundle_filename() -> str:
    return f"shortlist-catalog-{timezone.localtime():%Y%m%d-%H%M}.zip"


def _suffix() -> str:
    return "zh_hans" if (translation.get_language() or "").startswith("zh") else "en"


def _level(level: str | None) -> dict | None:
    if not level:
        return None
    return {"level": level, "label": SupportLevel(level).label}


@dataclass
class ClaimChange:
    """One new or changed claim as the preview shows it, in the active language."""

    solution: str
    capability: str
    status: str
    old_level: dict | None
    new_level: dict | None
    old_note: str
    new_note: str
    others: list[str]  # labels of the other fields that change


def claim_changes(bundle: Bundle, diff: Diff) -> list[ClaimChange]:
    suffix = _suffix()
    names = {
        kind: {key: row.get(f"name_{suffix}") or key for key, row in bundle.rows[kind].items()}
        for kind in ("solutions", "capabilities")
    }
    out = []
    rows = diff.of("claims", "new") + diff.of("claims", "changed")
    for row in rows[:SHOWN_ROWS]:
        solution, capability = row.key.split("/", 1)
        old, new = row.old or {}, row.new or {}
        note = f"note_{suffix}"
        shown = {"level", note}
        out.append(
            ClaimChange(
                solution=names["solutions"].get(solution, solution),
                capability=names["capabilities"].get(capability, capability),
                status=row.status,
                old_level=_level(old.get("level")),
                new_level=_level(new.get("level")),
                old_note=old.get(note, ""),
                new_note=new.get(note, ""),
                others=[
                    str(FIELD_LABELS.get(c.field, c.field))
                    for c in row.changes
                    if c.field not in shown
                ],
            )
        )
    return out


def other_changes(diff: Diff) -> list[RowDiff]:
    """New and changed rows of every kind but claims."""
    rows = [
        r
        for kind in KINDS
        if kind != "claims"
        for r in diff.rows[kind]
        if r.status in ("new", "changed")
    ]
    for r in rows:
        r.kind_label = KIND_LABELS[r.kind]
    return rows[:SHOWN_ROWS]


def count_rows(diff: Diff) -> list[dict]:
    counts = diff.counts()
    return [
        {"label": KIND_LABELS[kind], "counts": [counts[kind][s] for s in STATUSES]}
        for kind in KINDS
    ]


class BundleUploadHandler(SizeLimitUploadHandler):
    """A bundle may be larger than evidence: this page's own limit."""

    def limit(self) -> int:
        return MAX_BYTES


class BundlePage(LoginRequiredMixin, PageAction):
    template_name = "catalog/bundle.html"

    def dispatch(self, request, *args, **kwargs):
        if request.user.is_authenticated and not request.user.has_perm(PERMISSION):
            raise PermissionDenied
        return super().dispatch(request, *args, **kwargs)

    def context(self, form=None, error=None, **extra):
        imports = CatalogImport.objects.select_related("imported_by")
        extra.setdefault("upload_form", BundleUploadForm())
        return {
            "imports": Paginator(imports, HISTORY_PAGE_SIZE).get_page(self.request.GET.get("page")),
            "max_bytes": MAX_BYTES,
            "statuses": [STATUS_LABELS[s] for s in STATUSES],
            "error": error,
            **extra,
        }

    def preview(self, bundle: Bundle, diff: Diff, sha256: str, *, error=None, status=200):
        """What the bundle would change, with the form that applies it."""
        ctx = self.context(
            error=error,
            bundle=bundle,
            diff=diff,
            counts=count_rows(diff),
            claim_changes=claim_changes(bundle, diff),
            other_changes=other_changes(diff),
            shown_rows=SHOWN_ROWS,
            apply_form=BundleApplyForm(initial={"sha256": sha256, "state": diff.state}),
        )
        return self.answer(ctx, status)


def _refused(exc: BundleRefused, field: str) -> ValidationError:
    return ValidationError({field: exc.messages})


class BundlePreviewView(BundlePage, View):
    form_class = BundleUploadForm

    def form_kwargs(self) -> dict:
        return {"too_large": getattr(self.request, "upload_too_large", None)}

    def context(self, form=None, error=None, **extra):
        if form is not None:
            extra["upload_form"] = form
        return super().context(form, error, **extra)

    def perform(self, form):
        upload = form.cleaned_data["bundle"]
        try:
            data = upload.read(MAX_BYTES + 1)
        finally:
            upload.close()
        try:
            bundle = bundle_read(data)
        except BundleRefused as exc:
            raise _refused(exc, "bundle") from None
        sha256 = hashlib.sha256(data).hexdigest()
        if not default_storage.exists(stored_name(sha256)):
            default_storage.save(stored_name(sha256), ContentFile(data))
        return bundle, bundle_diff(bundle), sha256

    def success(self, result):
        return self.preview(*result)


class BundleApplyView(BundlePage, View):
    form_class = BundleApplyForm
    errors_as_message = True  # hidden fields: no place of their own for errors

    def perform(self, form):
        sha256, state = form.cleaned_data["sha256"], form.cleaned_data["state"]
        name = stored_name(sha256)
        again = _("Upload the bundle again.")
        if not default_storage.exists(name):
            raise ValidationError(_("The previewed file is no longer on the server.") + " " + again)
        with default_storage.open(name) as stored:
            data = stored.read()
        if hashlib.sha256(data).hexdigest() != sha256:
            raise ValidationError(_("The stored file was changed since the preview.") + " " + again)
        try:
            bundle = bundle_read(data)
            return bundle_apply(bundle, user=self.request.user, expected_state=state), name
        except BundleStale as exc:
            return ("stale", bundle, bundle_diff(bundle), sha256, " ".join(exc.messages))
        except BundleRefused as exc:
            raise ValidationError(exc.messages) from None

    def success(self, result):
        if result[0] == "stale":
            _stale, bundle, diff, sha256, message = result
            return self.preview(bundle, diff, sha256, error=message, status=409)
        record, name = result
        default_storage.delete(name)
        messages.success(
            self.request,
            _("Imported catalog %(sha)s by %(user)s: %(new)d new and %(changed)d changed rows.")
            % {
                "sha": record.sha256[:12],
                "user": self.request.user.get_username(),
                "new": record.new_rows,
                "changed": record.changed_rows,
            },
        )
        return redirect(reverse("catalog:bundle"))


# The upload handlers must be chosen before anything reads the body, the CSRF check included:
# it runs inside dispatch, after them (Django's documented way to change handlers in a view).
@method_decorator(csrf_exempt, name="dispatch")
class BundleView(ActionRouter, BundlePage, View):
    actions = {"preview": BundlePreviewView, "apply": BundleApplyView}

    def dispatch(self, request, *args, **kwargs):
        request.upload_handlers = [
            BundleUploadHandler(request),
            MemoryFileUploadHandler(request),
            TemporaryFileUploadHandler(request),
        ]
        return csrf_protect(super().dispatch)(request, *args, **kwargs)

    def get(self, request):
        return self.answer(self.context())


class BundleExportView(LoginRequiredMixin, View):
    def get(self, request):
        if not request.user.has_perm(PERMISSION):
            raise PermissionDenied
        response = HttpResponse(bundle_export(user=request.user), content_type="application/zip")
        response["Content-Disposition"] = f'attachment; filename="{bundle_filename()}"'
        response["X-Content-Type-Options"] = "nosniff"
        return response
