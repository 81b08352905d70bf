"""How the five questions are answered (plain values, no queries).

A question's scale says what its answer is made of:

- "parties": who (several allowed), as keys of the evaluation's parties — the shared parties
  and its own (`responsibility.Party`). The list is stored on the answer as keys rather than as
  rows of the responsibility app, because that app depends on this one (its matrix rows belong
  to candidates): a key list keeps the apps and their migrations one-way, keeps one answer one
  versioned row with one history, and is what the API already names parties by.
- "budget": what the budget weighs more (the software purchase, long-term people and
  stability, or both; unknown until said).
- "assessment": yes / partly / no (unknown until said).

Every scale also wants an explanation. The parties an evaluation offers come from the app that
owns them, through its contribution (evaluations.extensions; responsibility's).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from . import extensions

ASSESSMENT, PARTIES, BUDGET = "assessment", "parties", "budget"
UNKNOWN = "unknown"


def party_choices(evaluation) -> list[tuple[str, str]]:
    """The parties a who-question of this evaluation can name: (key, name)."""
    source = extensions.party_source()
    if source is None:
        return []
    return [(key, str(name)) for key, name in source(evaluation)]


def missing_parts(
    scale: str, *, parties: Iterable[str], assessment: str, budget: str, explanation: str
) -> list[str]:
    """What an answer on `scale` still lacks (empty: complete). Parts outside the scale are
    ignored: a who-question needs no yes or no, a yes/no question no parties."""
    missing = []
    if scale == PARTIES and not list(parties or []):
        missing.append(_("who"))
    elif scale == BUDGET and budget in ("", UNKNOWN):
        missing.append(_("what the budget weighs more"))
    elif scale == ASSESSMENT and assessment in ("", UNKNOWN):
        missing.append(_("assessment"))
    if not (explanation or "").strip():
        missing.append(_("explanation"))
    return missing


def clean_parties(value, allowed: Sequence[tuple[str, str]]) -> list[str]:
    """The party keys of a who-answer, each once, in the order given; refuses anything that is
    not a list of keys of the evaluation's parties (`allowed`: (key, name))."""
    if value is None:
        return []
    if isinstance(value, str) or not isinstance(value, list | tuple):
        raise ValidationError({"parties": _("Give a list of party keys.")})
    keys = [k for k, _name in allowed]
    out: list[str] = []
    unknown: list[str] = []
    for item in value:
        if not isinstance(item, str) or item not in keys:
            unknown.append(str(item)[:40])
        elif item not in out:
            out.append(item)
    if unknown:
        raise ValidationError(
            {
                "parties": _("Not a party of this evaluation: %(unknown)s. Choose from: %(keys)s.")
                % {"unknown": ", ".join(unknown), "keys": ", ".join(keys)}
            }
        )
    return out
