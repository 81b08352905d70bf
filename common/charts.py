"""Server-drawn SVG charts (no JavaScript, no external assets), for pages and PDF reports.

Written by hand rather than with a chart library: the output must fetch nothing and set its
font family explicitly so the PDF renderer uses the bundled CJK font.
"""

from __future__ import annotations

from decimal import Decimal
from xml.sax.saxutils import escape

from .text import is_cjk, shorten

PALETTE = ["#2f6fa8", "#c0504d", "#4f9d4f", "#8064a2", "#d08a1e", "#2c9c9c", "#7f7f7f", "#b5487f"]
FONT = "Noto Sans CJK SC, Noto Sans, sans-serif"


def _nice_max(value: Decimal) -> Decimal:
    if value <= 0:
        return Decimal("1")
    exponent = len(str(int(value))) - 1
    step = Decimal(10) ** exponent
    for factor in (1, 2, 2.5, 5, 10):
        top = step * Decimal(str(factor))
        if top >= value:
            return top
    return step * 10


# How an axis shortens large amounts: thousands, millions, billions; Chinese counts in 万
# (10^4) and 亿 (10^8) instead (common.numbers.amount_units picks by language).
WESTERN_UNITS = ((1e9, "B"), (1e6, "M"), (1e3, "k"))
CHINESE_UNITS = ((1e8, "亿"), (1e4, "万"))


def _short(value: Decimal, units=WESTERN_UNITS) -> str:
    value = float(value)
    for size, suffix in units:
        if abs(value) >= size:
            return f"{value / size:.3g}{suffix}"
    return f"{value:.3g}"


def _clip(text: str, size: int = 26) -> str:
    return shorten(text, size)


def _fit(text: str, pixels: int) -> str:
    """Clip text to roughly `pixels` wide at 12px (CJK characters count about twice), at a word
    boundary."""
    used = 0.0
    for i, char in enumerate(text):
        used += 12 if is_cjk(char) else 6.6
        if used > pixels:
            return shorten(text, max(i, 1))
    return text


def cumulative_cost_chart(
    series: list[tuple[str, list[Decimal] | None]],
    *,
    title: str,
    year_label: str,
    currency: str,
    note: str = "",
    units=WESTERN_UNITS,
    width: int = 720,
    height: int = 320,
) -> str:
    """A line per candidate: cumulative cost at the end of each year.

    `year_label` names a year with its number as `%(n)s` ("Year %(n)s", "第 %(n)s 年");
    `units` shortens the amounts on the axis (WESTERN_UNITS or CHINESE_UNITS).

    A series whose values are None (e.g. a candidate without cost inputs) is left out: no line,
    no legend entry, rather than a flat line at zero. `note`, if given, is printed under the
    plot (e.g. naming who was left out).
    """
    series = [(name, values) for name, values in series if values is not None]
    left, right, top, bottom = 70, 230, 36, 40
    plot_w, plot_h = width - left - right, height - top - bottom
    if note:
        height += 22
    years = max((len(values) for _name, values in series), default=0)
    top_value = _nice_max(max((max(v) for _n, v in series if v), default=Decimal("0")))
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" font-family="{FONT}" font-size="12" role="img" '
        f'aria-label="{escape(title)}">',
        f'<text x="{left}" y="20" font-size="14" font-weight="bold">{escape(title)}</text>',
    ]
    for i in range(5):
        value = top_value * i / 4
        y = top + plot_h - plot_h * i / 4
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" stroke="#e3e8ee"/>'
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" fill="#5d6b7a">'
            f"{_short(value, units)}</text>"
        )
    parts.append(
        f'<text x="{left - 6}" y="{top - 8}" text-anchor="end" fill="#5d6b7a">'
        f"{escape(currency)}</text>"
    )

    def x_of(year_index: int) -> float:
        return left + (plot_w * year_index / max(years - 1, 1) if years > 1 else plot_w / 2)

    for i in range(years):
        parts.append(
            f'<text x="{x_of(i):.1f}" y="{top + plot_h + 22}" text-anchor="middle" '
            f'fill="#5d6b7a">'
            f"{escape(year_label % {'n': i + 1})}</text>"
        )
    for n, (name, values) in enumerate(series):
        color = PALETTE[n % len(PALETTE)]
        points = [
            (x_of(i), top + plot_h - float(v / top_value) * plot_h) for i, v in enumerate(values)
        ]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
        parts.append(f'<polyline fill="none" stroke="{color}" stroke-width="2.5" points="{path}"/>')
        parts += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="{color}"/>' for x, y in points]
        ly = top + 14 + n * 20
        parts.append(
            f'<rect x="{left + plot_w + 16}" y="{ly - 9}" width="12" height="12" fill="{color}"/>'
            f'<text x="{left + plot_w + 34}" y="{ly + 1}">{escape(_clip(name))}</text>'
        )
    if note:
        parts.append(
            f'<text x="{left}" y="{height - 8}" fill="#5d6b7a" data-note="left-out">'
            f"{escape(_fit(note, width - left - 10))}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def radar_chart(
    *,
    axes: list[str],
    series: list[tuple[str, list[Decimal | None]]],
    title: str,
    scale_max: Decimal = Decimal("5"),
    size: int = 420,
) -> str:
    """A radar (spider) chart: one axis per group, one polygon per candidate. A missing value
    is drawn at the centre and its axis label says so in the legend's title."""
    import math

    n = len(axes)
    legend_w, pad = 230, 130  # room for the legend, and for axis labels left and right
    cx, cy, radius = pad + size / 2, size / 2 + 10, size / 2 - 70
    width = size + 2 * pad + legend_w
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {size + 20}" '
        f'width="{width}" height="{size + 20}" font-family="{FONT}" font-size="12" '
        f'role="img" aria-label="{escape(title)}">',
        f'<text x="10" y="20" font-size="14" font-weight="bold">{escape(title)}</text>',
    ]
    if n < 3:
        parts.append(f'<text x="{cx}" y="{cy}" text-anchor="middle" fill="#5d6b7a">—</text></svg>')
        return "".join(parts)

    def point(i: int, value: float) -> tuple[float, float]:
        angle = -math.pi / 2 + 2 * math.pi * i / n
        r = radius * value / float(scale_max)
        return cx + r * math.cos(angle), cy + r * math.sin(angle)

    for level in range(1, int(scale_max) + 1):
        ring = " ".join(f"{x:.1f},{y:.1f}" for x, y in (point(i, level) for i in range(n)))
        parts.append(f'<polygon points="{ring}" fill="none" stroke="#e3e8ee"/>')
    for i, label in enumerate(axes):
        x, y = point(i, float(scale_max))
        lx, ly = point(i, float(scale_max) * 1.18)
        anchor = "middle" if abs(lx - cx) < 10 else ("start" if lx > cx else "end")
        parts.append(
            f'<line x1="{cx}" y1="{cy}" x2="{x:.1f}" y2="{y:.1f}" stroke="#d9e0e7"/>'
            f'<text x="{lx:.1f}" y="{ly + 4:.1f}" text-anchor="{anchor}" fill="#1d2733">'
            f"{escape(_clip(label, 18))}</text>"
        )
    for k, (name, values) in enumerate(series):
        color = PALETTE[k % len(PALETTE)]
        pts = [point(i, float(v) if v is not None else 0.0) for i, v in enumerate(values)]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in pts)
        parts.append(
            f'<polygon points="{path}" fill="{color}" fill-opacity="0.12" stroke="{color}" '
            f'stroke-width="2"/>'
        )
        missing = sum(1 for v in values if v is None)
        label = name + (f" ({missing}×—)" if missing else "")
        ly = 50 + k * 20
        parts.append(
            f'<rect x="{size + 2 * pad}" y="{ly - 10}" width="12" height="12" fill="{color}"/>'
            f'<text x="{size + 2 * pad + 18}" y="{ly}">{escape(_clip(label, 28))}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)
