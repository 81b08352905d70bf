"""How a person is named on every page, export and report: the full name as the person's own
language writes it, else the username. Chinese names run family name first with no space (王丽),
others given name first (Lin Chen)."""

from __future__ import annotations

from .text import is_cjk


def full_name(user) -> str:
    """ "王丽" for first name 丽 and last name 王, "Lin Chen" otherwise; "" when neither is set."""
    first, last = (user.first_name or "").strip(), (user.last_name or "").strip()
    if any(is_cjk(char) for char in first + last):
        return f"{last}{first}"
    return f"{first} {last}".strip()


def person_name(user) -> str:
    """The name to show for `user`: the full name, else the username ("" for nobody)."""
    if user is None:
        return ""
    return full_name(user) or user.get_username()
