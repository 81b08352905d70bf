"""The POC part of the decided gate: cells of the chosen candidates that nobody scored, and cells
where reviewers disagree (poc.scoring.disagreement) without a recorded consensus.

Unlike missing answers or a missing decision record, these do not stop a decision outright: the
owner may mark the evaluation decided anyway by recording why (the reason of the status change,
kept in the history and printed in the report). Blind scoring holds here too: someone who may
not see every score (poc.see_all_scores) learns how many cells are in dispute, not which."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AnonymousUser
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from common.people import person_name
from evaluations.models import Decision, Status
from evaluations.services import GateRefused

from .selectors import Cell, scorecard


class PocGateItem(str):
    """One open POC cell (or, for someone who may not see every score, a count of them): its
    text, `place` "poc" and the cell's case and candidate ids in `where` (empty for a count)."""

    def __new__(cls, text: str, **where):
        item = super().__new__(cls, text)
        item.place, item.where = "poc", where
        item.group = gettext_lazy("POC scores of the chosen candidates")
        item.note = gettext_lazy(
            "A score counts once its reviewer has submitted it: drafts must be submitted first."
        )
        return item


@dataclass
class OpenCells:
    unscored: list[Cell]
    disputed: list[Cell]

    def __bool__(self) -> bool:
        return bool(self.unscored or self.disputed)


def open_cells(evaluation, chosen_ids) -> OpenCells:
    """Every open cell of the chosen candidates, from all submitted scores (whoever asks)."""
    chosen_ids = set(chosen_ids)
    if not chosen_ids:
        return OpenCells([], [])
    card = scorecard(evaluation, AnonymousUser(), see_all=True)
    cells = [c for c in card.cells() if c.candidate.pk in chosen_ids]
    return OpenCells(
        unscored=[c for c in cells if c.missing],
        disputed=[c for c in cells if c.disagreement and c.consensus is None],
    )


def _where(cell: Cell) -> dict:
    return {"case": cell.case.pk, "candidate": cell.candidate.pk}


def _names(cell: Cell) -> dict:
    return {"candidate": cell.candidate.name, "case": cell.case.shown_title}


def gate_items(cells: OpenCells, user, evaluation) -> list[PocGateItem]:
    """What the gate lists for `user`: each open cell, or for someone who may not see every
    score, each unscored cell and only the number of disputed ones."""
    items = [
        PocGateItem(
            _("%(candidate)s — POC case “%(case)s”: not scored yet.") % _names(cell),
            **_where(cell),
        )
        for cell in cells.unscored
    ]
    if not cells.disputed:
        return items
    if user.has_perm("poc.see_all_scores", evaluation):
        items.extend(
            PocGateItem(
                _(
                    "%(candidate)s — POC case “%(case)s”: the reviewers disagree and no "
                    "consensus is recorded."
                )
                % _names(cell),
                **_where(cell),
            )
            for cell in cells.disputed
        )
    else:
        n = len(cells.disputed)
        items.append(
            PocGateItem(
                _(
                    "%(n)d POC cell(s) of the chosen candidates where the reviewers disagree and "
                    "no consensus is recorded (the owner sees which)."
                )
                % {"n": n}
            )
        )
    return items


def decided_despite(evaluation) -> dict | None:
    """For the report: the reason recorded when the evaluation was last marked decided, with the
    POC cells of the chosen candidates that were open (a decided evaluation is sealed, so they
    are still the same); None when it is not decided or no reason was given."""
    if evaluation.status not in (Status.DECIDED, Status.ARCHIVED):
        return None
    change = (
        evaluation.status_changes.filter(to_status=Status.DECIDED)
        .select_related("changed_by")
        .order_by("-changed_at", "-pk")
        .first()
    )
    if change is None or not change.reason:
        return None
    decision = Decision.objects.filter(evaluation=evaluation).first()
    cells = open_cells(evaluation, decision.chosen.values_list("pk", flat=True) if decision else [])
    who = change.changed_by
    return {
        "reason": change.reason,
        "by": person_name(who) if who else "",
        "on": timezone.localdate(change.changed_at).isoformat(),
        "unscored": [_("%(candidate)s — %(case)s") % _names(c) for c in cells.unscored],
        "disputed": [_("%(candidate)s — %(case)s") % _names(c) for c in cells.disputed],
    }


def decided_gate(user, evaluation, reason: str, missing: list) -> None:
    """The POC cells of the chosen candidates still open (unscored, or disputed without a
    consensus, see poc.gate): listed with the rest of the gate; with nothing else missing, the
    owner may decide anyway by giving the reason, which the status change records. Contributed
    to the decided gate (evaluations.extensions, PocConfig.ready)."""
    decision = Decision.objects.filter(evaluation=evaluation).first()
    chosen = decision.chosen.values_list("pk", flat=True) if decision else []
    cells = open_cells(evaluation, chosen)
    if not cells:
        if missing:
            raise GateRefused(missing)
        return
    items = gate_items(cells, user, evaluation)
    if missing:
        raise GateRefused([*missing, *items])
    if not user.has_perm("evaluations.waive_constraint", evaluation):
        raise GateRefused(
            items,
            _(
                "POC cells of the chosen candidates are still open (%(n)d). Only the owner may "
                "mark the evaluation decided anyway, giving the reason."
            )
            % {"n": len(items)},
        )
    if not reason:
        raise GateRefused(
            items,
            _(
                "POC cells of the chosen candidates are still open (%(n)d). Score them or record "
                "a consensus, or give the reason for deciding anyway (it is kept in the history "
                "and printed in the report)."
            )
            % {"n": len(items)},
        )


def gate_link(evaluation, item) -> str:
    """Where an open POC cell of the decided gate is put right: its cell on the scorecard."""
    url = reverse("poc:scorecard", kwargs={"pk": evaluation.pk})
    where = item.where
    return f"{url}#cell-{where['case']}-{where['candidate']}" if where else url
