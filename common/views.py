from django.db import connection
from django.http import JsonResponse

from .health import broker_status, database_status


class HtmxTemplateMixin:
    """Render `partial_template_name` instead of the full page for htmx requests."""

    partial_template_name: str | None = None

    def get_template_names(self):
        if self.partial_template_name and getattr(self.request, "htmx", False):
            return [self.partial_template_name]
        return super().get_template_names()


def healthz(request):
    """Database and broker status as JSON: 200 when both answer, 503 naming what failed."""
    checks = {"database": database_status(connection), "broker": broker_status()}
    healthy = all(c["ok"] for c in checks.values())
    body = {"status": "ok" if healthy else "unavailable", "checks": checks}
    if not healthy:
        body["failing"] = [name for name, c in checks.items() if not c["ok"]]
    return JsonResponse(body, status=200 if healthy else 503)
