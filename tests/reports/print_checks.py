"""Checks on a rendered PDF that a person would otherwise make by eye, page by page.

Poppler's command-line tools do the reading: `pdftotext -bbox-layout` gives every line and word
with its box (in PDF points, origin top left), `pdftoppm` the page images and `pdffonts` the
embedded fonts; pypdf reads the named destinations (one per element id) and font encodings.
Each check takes plain values and returns what it found, so a test can prove it on a tiny
document that has the fault.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

TOOLS = ("pdftotext", "pdftoppm", "pdffonts")
XHTML = "{http://www.w3.org/1999/xhtml}"
MM = 72 / 25.4  # PDF points per millimetre

# Han ideographs (with the extensions), CJK punctuation and full-width forms.
CJK = re.compile(
    r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef\U00020000-\U0003ffff]"
)


def missing_tools() -> list[str]:
    return [tool for tool in TOOLS if shutil.which(tool) is None]


@dataclass(frozen=True)
class Box:
    x0: float
    y0: float
    x1: float
    y1: float
    text: str = ""

    @property
    def height(self) -> float:
        return self.y1 - self.y0


@dataclass(frozen=True)
class Line(Box):
    words: list[Box] = field(default_factory=list, compare=False)


@dataclass
class Page:
    number: int  # from 1
    width: float
    height: float
    lines: list[Line]

    @property
    def words(self) -> list[Box]:
        return [w for line in self.lines for w in line.words]


def _box(element, cls=Box, **extra):
    a = element.attrib
    return cls(float(a["xMin"]), float(a["yMin"]), float(a["xMax"]), float(a["yMax"]), **extra)


def read_pages(pdf: Path) -> list[Page]:
    """Every page's lines and words with their boxes."""
    xml = subprocess.run(
        ["pdftotext", "-bbox-layout", str(pdf), "-"], capture_output=True, check=True
    ).stdout
    root = ET.fromstring(xml)
    pages = []
    for n, page in enumerate(root.iter(f"{XHTML}page"), start=1):
        lines = []
        for line in page.iter(f"{XHTML}line"):
            words = [_box(w, text=w.text or "") for w in line.iter(f"{XHTML}word")]
            lines.append(_box(line, Line, text=" ".join(w.text for w in words), words=words))
        pages.append(Page(n, float(page.attrib["width"]), float(page.attrib["height"]), lines))
    return pages


def page_text(pdf: Path) -> str:
    return subprocess.run(
        ["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, check=True, text=True
    ).stdout


# --- (a) text overlapping text -----------------------------------------------------------


def overlapping_words(page: Page, tolerance: float = 0.25) -> list[tuple[Box, Box]]:
    """Pairs of words whose boxes intersect: text that spilled out of its cell over another.

    Boxes are shrunk by `tolerance` of their height first, so neighbours that merely touch
    (or whose ascenders and descenders meet between lines) do not count."""
    shrunk = []
    for w in page.words:
        inset = w.height * tolerance
        if w.x1 - w.x0 > 2 * inset:
            shrunk.append((w.y0 + inset, w.y1 - inset, w.x0 + inset, w.x1 - inset, w))
    shrunk.sort(key=lambda b: b[0])
    found, active = [], []
    for box in shrunk:  # a sweep down the page: only boxes still open at this height can meet
        y0, _y1, x0, x1, word = box
        active = [a for a in active if a[1] > y0]
        for _ay0, _ay1, ax0, ax1, other in active:
            if ax0 < x1 and x0 < ax1:
                found.append((other, word))
        active.append(box)
    return found


# --- (b) Chinese stacked one character per line ----------------------------------------------


def stacked_cjk(page: Page, min_run: int = 2) -> list[list[Line]]:
    """Runs of consecutive lines, one CJK character each, at the same x: a column so narrow that
    Chinese text stacks vertically. Lines are consecutive when the next starts where the one
    above ends (within a quarter of a line), as lines of one paragraph do; rows of a table are
    further apart (padding and rule)."""
    singles = [
        line for line in page.lines if len(line.text.strip()) == 1 and CJK.match(line.text.strip())
    ]
    singles.sort(key=lambda line: (round(line.x0), line.y0))
    runs, run = [], []
    for line in singles:
        if (
            run
            and abs(line.x0 - run[-1].x0) < 1.0
            and 0 <= line.y0 - run[-1].y1 < run[-1].height / 4
        ):
            run.append(line)
            continue
        if len(run) >= min_run:
            runs.append(run)
        run = [line]
    if len(run) >= min_run:
        runs.append(run)
    return runs


# --- (c) a header word broken across lines ---------------------------------------------------


def header_words(html: str) -> set[str]:
    """The words of every <th> in the HTML (letters only, two or more): what must never break."""
    words = set()
    for cell in re.findall(r"<th\b[^>]*>(.*?)</th>", html, flags=re.S):
        text = re.sub(r"<[^>]+>", " ", cell)
        words.update(w for w in re.findall(r"[A-Za-z]{2,}", text))
    return words


def broken_words(page: Page, words: set[str]) -> list[str]:
    """Words of `words` printed split over two lines: the end of a line and the start of the
    line right below it (same left edge) that together make one of them ("Wei" + "ght")."""
    found = []
    for upper in page.lines:
        if not upper.words:
            continue
        for lower in page.lines:
            if (
                lower.words
                and abs(lower.x0 - upper.x0) < 1.0
                and 0 <= lower.y0 - upper.y1 < upper.height / 4
            ):
                head = re.search(r"[A-Za-z]+$", upper.words[-1].text.rstrip("-\u00ad"))
                tail = re.match(r"[A-Za-z]+", lower.words[0].text)
                if head and tail and head[0] + tail[0] in words:
                    found.append(f"{head[0]}|{tail[0]}")
    return found


# --- (d) a page more than half empty in the middle of a section ------------------------------


def section_starts(pdf: Path, ids: list[str]) -> set[int]:
    """The pages (from 1) on which the elements with these ids begin (their named
    destinations, which WeasyPrint writes for every id)."""
    from pypdf import PdfReader

    reader = PdfReader(str(pdf))
    destinations = reader.named_destinations
    return {
        reader.get_destination_page_number(destinations[i]) + 1 for i in ids if i in destinations
    }


def render_images(pdf: Path, folder: Path, resolution: int = 50) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("page-*.png"):
        old.unlink()
    subprocess.run(
        ["pdftoppm", "-r", str(resolution), "-png", str(pdf), str(folder / "page")], check=True
    )
    return sorted(folder.glob("page-*.png"))


def content_bottom(image: Path, top_mm: float, bottom_mm: float) -> float:
    """How far down the page (0 to 1) anything is drawn between the top and bottom margins
    (running header and page number left out); 0 for a blank page."""
    from PIL import Image, ImageOps

    with Image.open(image) as im:
        grey = ImageOps.invert(im.convert("L"))
        width, height = grey.size
        per_mm = height / 297  # A4
        band = grey.crop((0, round(top_mm * per_mm), width, round(height - bottom_mm * per_mm)))
        box = band.point(lambda v: 255 if v > 24 else 0).getbbox()
    return 0.0 if box is None else (box[3] + top_mm * per_mm) / height


def half_empty_pages(bottoms: list[float], starts: set[int], threshold: float = 0.5) -> list[int]:
    """Pages (from 1) whose content ends above `threshold` of the page while the next page does
    not start a new section: the page break came mid-section (usually a block that cannot
    split). The last page may end anywhere."""
    return [
        n
        for n, bottom in enumerate(bottoms[:-1], start=1)
        if bottom < threshold and n + 1 not in starts
    ]


def spilled_pages(bottoms: list[float], starts: set[int], threshold: float = 0.15) -> list[int]:
    """Pages (from 1) that start no section and hold only a few lines (content ending above
    `threshold` of the page) before the next section or the end: the end of a section spilled
    onto a page of its own."""
    last = len(bottoms)
    return [
        n
        for n, bottom in enumerate(bottoms, start=1)
        if n not in starts and bottom < threshold and (n == last or n + 1 in starts)
    ]


# --- (e) missing glyphs (tofu) --------------------------------------------------------------


def fonts(pdf: Path) -> list[str]:
    out = subprocess.run(["pdffonts", str(pdf)], capture_output=True, check=True, text=True).stdout
    return [line.split()[0] for line in out.splitlines()[2:] if line.strip()]


def notdef_text(pdf: Path) -> dict[str, set[str]]:
    """Per font, the characters drawn with the .notdef glyph (tofu). WeasyPrint gives a font
    with missing glyphs an encoding CMap that sends their codes to CID 0; the font's ToUnicode
    map still names the characters they stand for."""
    from pypdf import PdfReader
    from pypdf.generic import IndirectObject

    found: dict[str, set[str]] = {}
    seen = set()

    def visit(resources):
        if not resources:
            return
        resources = resources.get_object()
        for ref in (resources.get("/Font") or {}).values():
            key = ref.idnum if isinstance(ref, IndirectObject) else id(ref)
            if key in seen:
                continue
            seen.add(key)
            font = ref.get_object()
            encoding = font.get("/Encoding")
            if encoding is None or not hasattr(encoding.get_object(), "get_data"):
                continue
            cmap = encoding.get_object().get_data().decode("latin-1")
            codes = set(re.findall(r"<([0-9a-fA-F]{4})>\s+0\b", cmap))
            if not codes:
                continue
            text = set()
            if "/ToUnicode" in font:
                unicode_map = font["/ToUnicode"].get_object().get_data().decode("latin-1")
                for code, hexa in re.findall(r"<([0-9a-fA-F]{4})>\s*<([0-9a-fA-F]+)>", unicode_map):
                    if code.lower() in {c.lower() for c in codes}:
                        text.add(bytes.fromhex(hexa).decode("utf-16-be", "replace"))
            found.setdefault(str(font.get("/BaseFont")), set()).update(text or {"?"})
        for ref in (resources.get("/XObject") or {}).values():
            xobject = ref.get_object()
            if xobject.get("/Subtype") == "/Form":
                visit(xobject.get("/Resources"))

    for page in PdfReader(str(pdf)).pages:
        visit(page.get("/Resources"))
    return found


def cjk_chars(text: str) -> set[str]:
    return set(CJK.findall(text))
