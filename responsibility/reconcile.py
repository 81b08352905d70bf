"""Do the who-answers and the matrix agree? Plain values, no Django.

A who-question among the five (e.g. "who finds out what broke in production?") asks about the
same work as some matrix areas (seeded: `Area.questions`). For one candidate, its answer names
parties; for each of those areas the matrix has accountable and responsible parties (as
`checks.check_area` counts them). They disagree on an area when none of the answered parties
is accountable or responsible for it. An area nobody is accountable or responsible for yet
says nothing here (the matrix checks report it), and neither does an answer naming nobody.
"""

from __future__ import annotations

from collections.abc import Iterable

from .checks import AreaCheck


def disagreements(answered: Iterable[str], areas: Iterable[AreaCheck]) -> list[AreaCheck]:
    """The areas (in the order given) that none of the `answered` party keys is accountable or
    responsible for."""
    named = set(answered)
    if not named:
        return []
    out = []
    for area in areas:
        owners = set(area.accountable) | set(area.responsible)
        if owners and not named & owners:
            out.append(area)
    return out
