"""What to say instead of a leader when the scores are too thin (poc.scoring.sufficiency) or
do not separate the candidates reliably (poc.scoring.leader_bootstrap below MIN_SHARE).

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


def named_leaders(leaders: tuple[str, ...], bootstrap: scoring.Bootstrap | None) -> tuple:
    """The leaders to name: none when the bootstrap share is below scoring.MIN_SHARE."""
    return leaders if bootstrap is None or bootstrap.names_leader else ()


def bootstrap_share(bootstrap: scoring.Bootstrap | None) -> str:
    """“The leader stays leader in 93.4% of 1000 resamples of reviewers and cells.”"""
    if bootstrap is None or bootstrap.share is None:
        return ""
    return _(
        "Over %(resamples)s resamples of reviewers and cells, the leader stays leader in "
        "%(percent)s%% of them."
    ) % {"resamples": bootstrap.resamples, "percent": _percent(bootstrap.share)}


def bootstrap_note(bootstrap: scoring.Bootstrap | None, names: dict) -> str:
    """The sentence said instead of a leader when the bootstrap share is below 80 %; empty
    otherwise."""
    if bootstrap is None or bootstrap.names_leader:
        return ""
    return _(
        "No leader named: %(candidate)s leads on the scores as they are, but stays ahead in "
        "only %(percent)s%% of %(resamples)s resamples of reviewers and cells (%(minimum)s%% "
        "needed). The scores do not separate the candidates reliably: settle the disagreements "
        "or add a reviewer, then look again."
    ) % {
        "candidate": names.get(bootstrap.leader, bootstrap.leader),
        "percent": _percent(bootstrap.share),
        "resamples": bootstrap.resamples,
        "minimum": _percent(scoring.MIN_SHARE).removesuffix(".0"),
    }
