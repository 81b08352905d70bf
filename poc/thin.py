"""What to say instead of a leader when the scores are too thin (poc.scoring.sufficiency).

Pages, the API and the report print the same sentence, so it is built once here."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from . import scoring


def _percent(share) -> str:
    return f"{(share * 100).quantize(scoring.PERCENT_QUANTUM)}"


def thin_items(sufficiency: scoring.Sufficiency, names: dict, group_names: dict) -> list[str]:
    """One line per candidate short of data: how complete it is and which weighted groups it
    has no score in. `names` maps candidate keys to names, `group_names` group keys to names."""
    lines = []
    separator = pgettext("list separator", ", ")
    for key, completeness, empty in sufficiency.thin:
        values = {
            "candidate": names.get(key, key),
            "percent": _percent(completeness),
            "groups": separator.join(f"“{group_names.get(g, g)}”" for g in empty),
        }
        if empty:
            lines.append(
                _("%(candidate)s: %(percent)s%% of the weighted cells scored, none in %(groups)s.")
                % values
            )
        else:
            lines.append(_("%(candidate)s: %(percent)s%% of the weighted cells scored.") % values)
    return lines


def thin_note(sufficiency: scoring.Sufficiency | None, names: dict, group_names: dict) -> str:
    """The sentence shown instead of robustness and win shares; empty when there is enough."""
    if sufficiency is None or sufficiency.enough:
        return ""
    head = _(
        "Too few scores to name a leader or say how robust it is: every candidate needs at "
        "least %(minimum)s%% of the weighted cells scored and a score in every weighted group."
    ) % {"minimum": _percent(sufficiency.minimum).removesuffix(".0")}
    items = thin_items(sufficiency, names, group_names)
    if not items:
        return head
    return _("%(head)s %(items)s") % {"head": head, "items": " ".join(items)}
