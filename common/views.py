"""View plumbing shared by every app's pages: one way to take a write, map the service's
errors and answer htmx (NetBox's generic edit view is the model), the probes (/livez, /readyz
and /healthz) and /metrics."""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection, transaction
from django.http import (
    Http404,
    HttpResponse,
    HttpResponseNotAllowed,
    HttpResponsePermanentRedirect,
    JsonResponse,
)
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.utils import formats, timezone
from django.utils.crypto import constant_time_compare
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from prometheus_client.exposition import choose_encoder

from .exceptions import DomainError, Forbidden, StaleEdit
from .forms import VERSION_MISSING, form_error_text, form_errors_from, version_missing
from .health import broker_status, database_status, storage_status
from .history import last_saved
from .metrics import bearer_token, may_read_metrics, scrape_registry
from .roles import is_admin


class HtmxTemplateMixin:
    """Render `partial_template_name` instead of the full page for htmx requests."""

    partial_template_name: str | None = None

    def get_template_names(self):
        if self.partial_template_name and getattr(self.request, "htmx", False):
            return [self.partial_template_name]
        return super().get_template_names()


def favicon(request):
    """/favicon.ico, asked for by pages that name no icon: the app's own (resolved per request,
    so a manifest storage need not be ready when the URLconf loads)."""
    return HttpResponsePermanentRedirect(static("img/favicon.svg"))


def may_read_health_details(request) -> bool:
    """Signed-in admins, or a caller presenting HEALTHZ_TOKEN (Authorization: Bearer …)."""
    token = settings.HEALTHZ_TOKEN
    given = bearer_token(request)
    if token and given and constant_time_compare(given, token):
        return True
    user = getattr(request, "user", None)
    return bool(user and user.is_authenticated and is_admin(user))


def livez(request):
    """Liveness: the process answers requests. It reads nothing else, so a database or broker
    outage never gets a healthy web process restarted; that is what readiness is for."""
    return JsonResponse({"status": "ok"})


def readyz(request):
    """Readiness (also at /healthz): 200 when the database, the broker and the file storage
    answer, 503 otherwise. Anyone learns only that; which check failed and why (hosts, errors)
    is for admins and holders of HEALTHZ_TOKEN."""
    checks = {
        "database": database_status(connection),
        "broker": broker_status(),
        "storage": storage_status(),
    }
    healthy = all(c["ok"] for c in checks.values())
    body = {"status": "ok" if healthy else "unavailable"}
    if may_read_health_details(request):
        body["checks"] = checks
        if not healthy:
            body["failing"] = [name for name, c in checks.items() if not c["ok"]]
    return JsonResponse(body, status=200 if healthy else 503)


healthz = readyz


@csrf_exempt  # a refused POST answers 404 as for an unknown page, not the CSRF 403
@transaction.non_atomic_requests  # reads only; a failing collector's query must not stop others
def metrics(request):
    """Prometheus metrics, for METRICS_TOKEN holders and METRICS_ALLOWED_IPS only. Anyone else,
    and everyone while neither is set, gets the 404 of an unknown page: the endpoint is not
    advertised."""
    if not may_read_metrics(request):
        raise Http404
    if request.method not in ("GET", "HEAD"):
        return HttpResponseNotAllowed(["GET", "HEAD"])
    encode, content_type = choose_encoder(request.headers.get("Accept", ""))
    return HttpResponse(encode(scrape_registry()), content_type=content_type)


def stale_message(exc: StaleEdit) -> str:
    """The stale-edit message plus who saved the current version and when."""
    name, when = last_saved(exc.current) if exc.current is not None else (None, None)
    if name is None:
        return exc.message
    return "%s %s" % (  # noqa: UP031 - two translated sentences
        exc.message,
        _("It was saved by %(who)s (%(when)s).")
        % {"who": name, "when": formats.date_format(timezone.localtime(when), "DATETIME_FORMAT")},
    )


class PageAction:
    """One page write: a form parses the input, `perform` calls the service, and every outcome
    is answered here, the same for every page:

    - input the form refuses, or a service's ValidationError: 400, the form again with the
      messages next to their fields;
    - a form sent without the version of what it edited: 428 (as the API), nothing saved;
    - a stale edit: 409, the form showing the saved value, who saved it and when;
    - Forbidden: 403 with its message; any other DomainError: its status with its message;
    - success: `success(result)` (by default a message and a redirect to `success_url()`).

    htmx is answered in one place (`answer`): an htmx request gets `partial_template_name`
    (the row, cell or form it swaps), retargeted to `htmx_target()` on a refusal so the
    messages replace the part that was sent; any other request gets the full page.
    """

    form_class: type[forms.BaseForm] | None = None
    # True where a refused form's errors show as one message: the form is a row's button or a
    # set of hidden fields, with no place of its own for field errors.
    errors_as_message = False
    template_name: str = ""
    partial_template_name: str | None = None
    success_message: str | None = None

    # --- what a subclass provides ----------------------------------------------------------

    def get_form(self, data=None, files=None, **kwargs) -> forms.BaseForm:
        return self.form_class(data, files, **self.form_kwargs(), **kwargs)

    def form_kwargs(self) -> dict:
        return {}

    def form_for_saved(self, obj) -> forms.BaseForm | None:
        """A fresh form showing the saved row after a stale edit (None: keep the sent form)."""
        return None

    def perform(self, form: forms.BaseForm):
        raise NotImplementedError

    def context(self, form: forms.BaseForm, **extra) -> dict:
        """What the templates need around the form (a row, a cell, the page's lists)."""
        return {"form": form, **extra}

    def success_url(self) -> str:
        return self.request.path

    def success(self, result) -> HttpResponse:
        if self.success_message:
            messages.success(self.request, self.success_message)
        return redirect(self.success_url())

    def htmx_target(self) -> str | None:
        return None

    def respond(self, template: str, context: dict, status: int) -> HttpResponse:
        return render(self.request, template, context, status=status)

    # --- the mechanism ---------------------------------------------------------------------

    def post(self, request, *args, **kwargs):
        form = self.get_form(request.POST, request.FILES)
        if version_missing(form):
            return self.refuse(form, 428, str(VERSION_MISSING))
        if not form.is_valid():
            return self.refuse(form, 400)
        try:
            result = self.perform(form)
        except StaleEdit as exc:
            fresh = self.form_for_saved(exc.current) if exc.current is not None else None
            return self.refuse(fresh or form, 409, stale_message(exc), current=exc.current)
        except Forbidden as exc:
            raise PermissionDenied(exc.message) from exc
        except DomainError as exc:
            return self.refuse(form, exc.status_code, exc.message, domain_error=exc)
        except ValidationError as exc:
            form_errors_from(form, exc)
            return self.refuse(form, 400)
        return self.success(result)

    def refuse(self, form, status: int, error: str | None = None, **extra) -> HttpResponse:
        if error is None and self.errors_as_message and form.errors:
            error = form_error_text(form)
        return self.answer(self.context(form, error=error, **extra), status)

    def answer(self, context: dict, status: int = 200) -> HttpResponse:
        htmx = getattr(self.request, "htmx", False)
        if htmx and self.partial_template_name:
            response = self.respond(self.partial_template_name, context, status)
            target = self.htmx_target() if status >= 400 else None
            if target:
                response["HX-Retarget"] = target
                response["HX-Reswap"] = "outerHTML"
            return response
        return self.respond(self.template_name, context, status)


class ActionRouter:
    """Pages whose forms post to one URL with an `action` field: each action is its own view
    (one per operation, like the API); an unknown action is a 400."""

    actions: dict[str, type] = {}

    def post(self, request, *args, **kwargs):
        view = self.actions.get(request.POST.get("action", ""))
        if view is None:
            return HttpResponse(_("Unknown action."), status=400, content_type="text/plain")
        return view.as_view()(request, *args, **kwargs)
