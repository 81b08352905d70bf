"""What the report-run tests share: probes the renderer must not fetch, reading a PDF's
text, and a run rendered in this process when no worker took it."""

import io

from pypdf import PdfReader

from reports import services
from reports.models import RunStatus

PROBES = [
    '<img src="http://127.0.0.1:6379/">',
    '<link rel="attachment" href="file:///etc/passwd">',
    "<style>@import url(http://127.0.0.1:1/x.css)</style>",
]


def pdf_text(content: bytes) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(io.BytesIO(content)).pages)


def finished(run):
    run.refresh_from_db()
    if run.status != RunStatus.DONE:
        services.report_render(run.pk)
        run.refresh_from_db()
    return run
