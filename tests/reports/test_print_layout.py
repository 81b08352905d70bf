"""The demo report survives print, in both languages, checked on the pages as printed.

Each language is rendered once per module; its pages are read back with poppler
(tests/reports/print_checks.py) and must show no text over other text, no column so narrow that
Chinese stacks one character per line, no header word broken across lines, no page more than
half empty in the middle of a section, and no missing glyph. Each check is first proven on a
tiny document that has the fault. A few page images (cover, summary, a responsibility matrix,
the POC scorecard) are kept in test-artifacts/print-layout/ for a person to look at.
"""

from __future__ import annotations

import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import transaction

from evaluations.demo import DEMO_TITLES
from reports.fetcher import BASE_URL, SafeURLFetcher
from reports.render import report_html
from reports.sections import ALL as ALL_SECTIONS
from reports.snapshot import build_snapshot, snapshot_sha256
from tests.conftest import require_service
from tests.reports import print_checks as pc

# The demo reports are rendered once, by the one worker that runs this module.
pytestmark = [
    pytest.mark.print_layout,
    pytest.mark.xdist_group("print-layout"),
    pytest.mark.slow,
]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "print-layout"
LANGUAGES = ("en", "zh-hans")
# Where each part of the report begins (the signoff block is one when the report has it).
SECTION_IDS = ["cover", "signoff", *ALL_SECTIONS]
# The report's page margins (static/reports/report.css, @page): running header and page number
# sit outside them.
TOP_MM, BOTTOM_MM = 18, 20
KEPT_PAGES = {"cover": "cover", "summary": "summary", "matrices": "matrix", "poc": "poc"}


@pytest.fixture(scope="session", autouse=True)
def _poppler():
    if missing := pc.missing_tools():
        require_service(
            "poppler-utils", f"{', '.join(missing)} not found (bin/install-system-deps --test)"
        )


def pdf_of(html: str, tmp_path: Path, name: str = "doc") -> Path:
    """A tiny document rendered the way the report is, in the report's font."""
    from weasyprint import HTML

    css = (
        "@page { size: A4; margin: 18mm 15mm 20mm }"
        'body { font-family: "Noto Sans CJK SC"; font-size: 9.5pt; line-height: 1.45 }'
        "table { border-collapse: collapse; table-layout: fixed } td, th { padding: 1mm }"
    )
    path = tmp_path / f"{name}.pdf"
    HTML(string=f"<html><head><style>{css}</style></head><body>{html}</body></html>").write_pdf(
        path
    )
    return path


def only_page(pdf: Path) -> pc.Page:
    [page] = pc.read_pages(pdf)
    return page


# --- each check catches its fault -------------------------------------------------------------


def test_overlap_check_finds_text_spilling_over_the_next_cell(tmp_path):
    row = (
        '<table style="width: 60mm"><tr><td style="width: 15mm; white-space: {ws}">'
        "Kubernetes enterprise platform</td><td>Volcano scheduler</td></tr></table>"
    )
    spilled = pdf_of(row.format(ws="nowrap"), tmp_path, "spilled")
    wrapped = pdf_of(row.format(ws="normal"), tmp_path, "wrapped")

    assert pc.overlapping_words(only_page(spilled))
    assert pc.overlapping_words(only_page(wrapped)) == []


def test_stacking_check_finds_chinese_one_character_per_line(tmp_path):
    table = (
        '<table style="width: 80mm"><tr><td style="width: {w}">批量训练</td>'
        "<td>4.13</td></tr></table>"
    )
    narrow = pdf_of(table.format(w="5mm"), tmp_path, "narrow")
    wide = pdf_of(table.format(w="30mm"), tmp_path, "wide")

    [run] = pc.stacked_cjk(only_page(narrow))
    assert "".join(line.text for line in run) == "批量训练"
    assert pc.stacked_cjk(only_page(wide)) == []


def test_header_check_finds_a_word_broken_across_lines(tmp_path):
    table = (
        '<table style="width: 80mm"><thead><tr><th style="width: {w}; overflow-wrap: break-word">'
        "Weight</th><th>Internal platform team</th></tr></thead></table>"
    )
    words = pc.header_words(table)
    assert {"Weight", "Internal", "platform", "team"} <= words
    broken = pdf_of(table.format(w="9mm"), tmp_path, "broken")
    whole = pdf_of(table.format(w="20mm"), tmp_path, "whole")

    assert pc.broken_words(only_page(broken), words)
    assert pc.broken_words(only_page(whole), words) == []


def test_half_empty_check_finds_a_break_in_the_middle_of_a_section(tmp_path):
    body = (
        '<section id="one"><p>A short page.</p><div style="break-before: page">'
        "More of the same section.</div></section>"
        '<section id="two" style="break-before: page"><p>Next section.</p></section>'
    )
    pdf = pdf_of(body, tmp_path)
    bottoms = [
        pc.content_bottom(image, TOP_MM, BOTTOM_MM)
        for image in pc.render_images(pdf, tmp_path / "pages")
    ]
    starts = pc.section_starts(pdf, ["one", "two"])

    assert starts == {1, 3}
    assert all(bottom < 0.2 for bottom in bottoms)
    # Page 1 ends early but page 2 continues the same section; page 2 is followed by "two".
    assert pc.half_empty_pages(bottoms, starts) == [1]


def test_glyph_check_finds_tofu(tmp_path):
    # U+30000 and U+30001 (CJK extension G) are in no installed font: drawn as .notdef.
    tofu = pdf_of('<p lang="zh">中文\U00030000\U00030001</p>', tmp_path, "tofu")
    fine = pdf_of('<p lang="zh">中文报告</p>', tmp_path, "fine")

    # The CJK font is full (65,535 glyphs), so its missing glyphs share one code: one is named.
    assert set().union(*pc.notdef_text(tofu).values()) & {"\U00030000", "\U00030001"}
    assert pc.notdef_text(fine) == {}
    assert any("CJK" in name for name in pc.fonts(fine))
    assert pc.cjk_chars("中文报告") - pc.cjk_chars(pc.page_text(fine)) == set()


# --- the demo report ------------------------------------------------------------------------


class Rendered:
    def __init__(self, language: str, html: str, pdf: Path, images: list[Path]):
        self.language, self.html, self.pdf, self.images = language, html, pdf, images
        self.pages = pc.read_pages(pdf)
        self.starts = pc.section_starts(pdf, SECTION_IDS)

    def start_of(self, section: str) -> int:
        return next(iter(pc.section_starts(self.pdf, [section])))


@pytest.fixture(scope="session")
def demo_reports(django_db_setup, django_db_blocker, tmp_path_factory, _poppler):
    """Each language's demo evaluation's full report in that language (the English demo in
    English, the Chinese demo in Chinese), rendered once per worker (session scope: a module
    fixture is rebuilt whenever the worker runs another module's test between two of these);
    the demo data is rolled back afterwards."""
    from weasyprint import HTML

    from evaluations.models import Evaluation

    folder = tmp_path_factory.mktemp("print-layout")
    reports = {}
    with django_db_blocker.unblock(), transaction.atomic():
        call_command("demo", stdout=StringIO())
        for language in LANGUAGES:
            evaluation = Evaluation.objects.get(title=DEMO_TITLES[language])
            snapshot = build_snapshot(
                evaluation, language=language, generated_at="2027-03-01T09:30:00+08:00"
            )
            html = report_html(snapshot, snapshot_sha256(snapshot), language, for_pdf=True)
            pdf = folder / f"demo-{language}.pdf"
            HTML(string=html, base_url=BASE_URL, url_fetcher=SafeURLFetcher()).write_pdf(pdf)
            images = pc.render_images(pdf, folder / language)
            reports[language] = Rendered(language, html, pdf, images)
        transaction.set_rollback(True)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for old in ARTIFACTS.glob("*.png"):  # page numbers move as the report changes
        old.unlink()
    for report in reports.values():
        for section, label in KEPT_PAGES.items():
            page = report.start_of(section)
            shutil.copyfile(
                report.images[page - 1],
                ARTIFACTS / f"{report.language}-{page:02d}-{label}.png",
            )
    return reports


@pytest.fixture(params=LANGUAGES)
def report(request, demo_reports, db) -> Rendered:
    # `db`: pytest-django creates the test database only for runs holding a test that asks for
    # it, and this module may run alone.
    return demo_reports[request.param]


def test_the_demo_report_is_long_enough_to_mean_something(report):
    assert len(report.pages) > 30
    assert {"summary", "matrices", "poc", "appendix"} <= {
        s for s in SECTION_IDS if pc.section_starts(report.pdf, [s])
    }
    assert sorted(p.name for p in ARTIFACTS.glob(f"{report.language}-*.png"))


def test_each_language_prints_its_own_demo(report):
    # The Chinese report is the Chinese demo's: its own texts are Chinese too.
    titles = {language: title for language, title in DEMO_TITLES.items()}
    assert titles.pop(report.language) in report.html
    assert all(other not in report.html for other in titles.values())


def test_no_text_overlaps_other_text(report):
    found = {
        page.number: [f"{a.text} / {b.text}" for a, b in pairs][:5]
        for page in report.pages
        if (pairs := pc.overlapping_words(page))
    }
    assert found == {}


def test_no_column_stacks_chinese_one_character_per_line(report):
    found = {
        page.number: ["".join(line.text for line in run) for run in runs]
        for page in report.pages
        if (runs := pc.stacked_cjk(page))
    }
    assert found == {}


def test_no_header_word_is_broken_across_lines(report):
    words = pc.header_words(report.html)
    if report.language == "en":
        assert {"Weight", "platform", "Check"} <= words
    found = {
        page.number: broken for page in report.pages if (broken := pc.broken_words(page, words))
    }
    assert found == {}


def test_no_page_is_more_than_half_empty_in_the_middle_of_a_section(report):
    bottoms = [pc.content_bottom(image, TOP_MM, BOTTOM_MM) for image in report.images]
    empty = pc.half_empty_pages(bottoms, report.starts)
    assert {n: f"{bottoms[n - 1]:.0%}" for n in empty} == {}


def test_the_spill_check_finds_a_few_lines_alone_on_a_page():
    # pages 1-2 one section, 3 holds its last line, 4 starts the next; 6 ends the report so
    assert pc.spilled_pages([0.9, 0.95, 0.05, 0.8, 0.9, 0.1], {1, 4}) == [3, 6]
    assert pc.spilled_pages([0.9, 0.6, 0.8, 0.4], {1, 3}) == []


def test_no_section_spills_a_few_lines_onto_a_page_of_their_own(report):
    bottoms = [pc.content_bottom(image, TOP_MM, BOTTOM_MM) for image in report.images]
    spilled = pc.spilled_pages(bottoms, report.starts)
    assert {n: f"{bottoms[n - 1]:.0%}" for n in spilled} == {}


def test_every_glyph_is_in_the_embedded_fonts(report):
    assert pc.notdef_text(report.pdf) == {}
    assert any("CJK" in name for name in pc.fonts(report.pdf))
    body = report.html.split("<body", 1)[1]
    text = pc.page_text(report.pdf)
    assert pc.cjk_chars(body) - pc.cjk_chars(text) == set()
    if report.language == "zh-hans":  # the Chinese report prints Chinese, not English
        assert len(pc.cjk_chars(text)) > 500
