"""HTML first: one template gives the browser preview and, through WeasyPrint, the PDF."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from django.template.loader import render_to_string
from django.utils import translation

from .fetcher import BASE_URL, STATIC_PREFIX, SafeURLFetcher
from .sections import ALL as ALL_SECTIONS
from .sections import labels as section_labels

FINAL_STATUSES = ("decided", "archived")


def report_html(
    snapshot: dict, sha256: str, language: str, *, for_pdf: bool, summary_spills: bool = False
) -> str:
    css = (BASE_URL if for_pdf else STATIC_PREFIX) + "reports/report.css"
    # Snapshots from before sections could be chosen have no list: they printed them all.
    sections = snapshot.get("sections", ALL_SECTIONS)
    with translation.override(language):
        return render_to_string(
            "reports/report.html",
            {
                "snapshot": snapshot,
                "sha256": sha256,
                "language": language,
                "css": css,
                "sections": sections,
                "all_sections": list(sections) == ALL_SECTIONS,
                "section_labels": section_labels(sections),
                # Before the decision (or after a reopening) every page says it is a draft.
                "draft": snapshot.get("meta", {}).get("status") not in FINAL_STATUSES,
                "summary_spills": summary_spills,
            },
        )


@dataclass
class RenderedPdf:
    content: bytes
    sha256: str
    pages: int
    refused: list[str]


def render_pdf(snapshot: dict, sha256: str, language: str, *, progress=None) -> RenderedPdf:
    """Render the stored snapshot to PDF; the same snapshot always gives the same text.

    `progress(percent)`, when given, hears how far it has come: the HTML is built (25), the
    pages are laid out (80), the PDF is written (95)."""
    from weasyprint import HTML

    def step(percent: int) -> None:
        if progress is not None:
            progress(percent)

    fetcher = SafeURLFetcher()
    html = report_html(snapshot, sha256, language, for_pdf=True)
    step(25)
    document = HTML(string=html, base_url=BASE_URL, url_fetcher=fetcher).render()
    if summary_spilled(document):
        # Laid out again without the break before the context (report.css, .spills).
        html = report_html(snapshot, sha256, language, for_pdf=True, summary_spills=True)
        document = HTML(string=html, base_url=BASE_URL, url_fetcher=fetcher).render()
    step(80)
    content = document.write_pdf()
    step(95)
    return RenderedPdf(
        content=content,
        sha256=hashlib.sha256(content).hexdigest(),
        pages=len(document.pages),
        refused=fetcher.refused,
    )


def summary_spilled(document) -> bool:
    """Whether the executive summary took more than its one page in a laid-out document: the
    context that follows it (forced onto a new page) starts two or more pages after it."""
    page_of = {}
    for number, page in enumerate(document.pages):
        for anchor in ("summary", "summary-context"):
            if anchor in page.anchors:
                page_of.setdefault(anchor, number)
    if len(page_of) < 2:
        return False
    return page_of["summary-context"] - page_of["summary"] > 1


def harfbuzz_subsetting_available() -> bool:
    """WeasyPrint subsets fonts with HarfBuzz when libharfbuzz-subset loads; without it it falls
    back to fontTools, which takes many times longer for a Chinese report."""
    from weasyprint.text.ffi import harfbuzz, harfbuzz_subset

    return bool(harfbuzz_subset) and bool(harfbuzz.hb_version_atleast(4, 1, 0))
