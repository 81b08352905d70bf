"""Shortening a text for a table cell, a chart label or a history line without cutting a word:
English is cut at the last space before the limit; Chinese, which breaks between any two
characters, where the limit falls."""

from __future__ import annotations

ELLIPSIS = "…"
# Punctuation left dangling before the ellipsis.
TRAILING = " ,;:.-–—/(+&，；：、。（"


def is_cjk(char: str) -> bool:
    """Whether a character is Chinese, Japanese or Korean script (or CJK punctuation)."""
    return ord(char) >= 0x2E80


def shorten(text, limit: int) -> str:
    """`text` in at most `limit` characters, the ellipsis included."""
    text = str(text if text is not None else "")
    if len(text) <= limit:
        return text
    cut = text[: max(limit - 1, 0)]
    after = text[len(cut)]
    mid_word = cut and not after.isspace() and not cut[-1].isspace()
    if mid_word and not (is_cjk(after) or is_cjk(cut[-1])):
        space = max(cut.rfind(" "), cut.rfind("\n"))
        if space >= limit // 2:  # a word longer than half the room is cut after all
            cut = cut[:space]
    return cut.rstrip(TRAILING) + ELLIPSIS
