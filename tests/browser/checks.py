"""What every browser test checks on every page it reaches: no console error, no sideways
scroll of the page (grids scroll inside their own frame), no duplicate id, no Chinese text
stacked one character per line, no serious or critical axe-core violation; and a screenshot in
test-artifacts/ for a person to look at."""

from __future__ import annotations

import re

from tests.browser.conftest import ARTIFACTS

BLOCKING_IMPACTS = {"serious", "critical"}
# Chromium logs each 4xx answer to a request as a console error; a test that provokes a refusal
# on purpose passes this so that only unexpected errors count.
EXPECTED_REFUSAL = re.compile(r"status of 4(00|09|28)")

DUPLICATE_IDS = """() => {
  const seen = new Map();
  document.querySelectorAll("[id]").forEach((el) => seen.set(el.id, (seen.get(el.id) || 0) + 1));
  return [...seen].filter(([, n]) => n > 1).map(([id]) => id);
}"""

# Chinese set in a column too narrow for it wraps between any two characters: a short label
# (a header, a type name, a status, a button) broken so that a line holds one character, or a
# longer text in a column under three characters wide. Each run of text is measured character
# by character (text split into lines on purpose is several runs).
CJK_STACKED = """() => {
  const cjk = /[\\u3400-\\u9fff\\uf900-\\ufaff]/;
  const found = [];
  const selector = "th, td, label, legend, button, .button, .tag, dt, dd, h1, h2, h3, nav a";
  for (const el of document.querySelectorAll(selector)) {
    if (el.offsetParent === null || !cjk.test(el.innerText || "")) continue;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.data.slice(0, 200);
      if ((text.match(/[\\u3400-\\u9fff\\uf900-\\ufaff]/g) || []).length < 2) continue;
      const lines = [];
      let total = 0;
      for (let i = 0; i < text.length; i++) {
        if (/\\s/.test(text[i])) continue;
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const box = range.getBoundingClientRect();
        if (!box.width) continue;
        total++;
        const line = lines.find((l) => Math.abs(l.top - box.top) < box.height / 2);
        if (line) line.n++;
        else lines.push({ top: box.top, n: 1 });
      }
      if (lines.length < 2) continue;
      const stacked = total <= 12 ? lines.some((l) => l.n === 1) : total / lines.length < 3;
      if (stacked) {
        found.push(`${el.tagName.toLowerCase()} "${text.trim().slice(0, 24)}"`);
      }
    }
  }
  return [...new Set(found)].slice(0, 12);
}"""


def watch_console(page, *, allow: re.Pattern | None = None) -> list[str]:
    """Collect the page's console errors and uncaught exceptions into a list (returned)."""
    errors: list[str] = []

    def on_console(msg):
        if msg.type == "error" and not (allow and allow.search(msg.text)):
            errors.append(msg.text)

    page.on("console", on_console)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return errors


def axe_problems(page) -> list[str]:
    from axe_playwright_python.sync_playwright import Axe

    violations = Axe().run(page).response["violations"]
    return [
        f"axe {v['impact']} {v['id']}: {v['help']} at "
        + ", ".join(str(node["target"]) for node in v["nodes"][:3])
        for v in violations
        if v["impact"] in BLOCKING_IMPACTS
    ]


def page_problems(page, shot: str, *, axe: bool = True) -> list[str]:
    """Everything wrong with the page as it stands, after saving its screenshot as `shot`."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{shot}.png"), full_page=True)
    problems = []
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    if overflow > 0:
        problems.append(f"the page scrolls sideways by {overflow}px")
    problems += [f"duplicate id {i}" for i in page.evaluate(DUPLICATE_IDS)]
    problems += [f"Chinese one character per line in {t}" for t in page.evaluate(CJK_STACKED)]
    if axe:
        problems += axe_problems(page)
    return [f"{shot}: {p}" for p in problems]
