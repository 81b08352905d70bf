"""POC risk reminders (SPEC §1.9), added to the evaluations registry. They read rows
prefetched through `selectors.EXTRA_PREFETCHES`, so lists stay at a fixed query count."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _

from evaluations import selectors as evaluation_selectors
from evaluations.models import Status
from evaluations.reminders import Reminder, reminder

from . import scoring

evaluation_selectors.EXTRA_PREFETCHES += [
    "poc_groups__group",
    "poc_cases__group",
    "poc_cases__scores",
    "poc_cases__consensus",
]


def _url(data, name: str) -> str:
    return reverse(f"poc:{name}", kwargs={"pk": data.evaluation.pk})


@reminder
def happy_path_only(data):
    cases = list(data.evaluation.poc_cases.all())
    if cases and all(c.group.happy_path for c in cases):
        yield Reminder(
            key="poc-happy-path-only",
            severity="high",
            title=_("The POC tests only the happy path"),
            why=_(
                "No case covers job failure, queue congestion, privilege escalation, upgrades, "
                "alerting or vendor response. Differences between platforms usually show there."
            ),
            fix_url=_url(data, "plan"),
            fix_label=_("Add abnormal and long-running cases"),
        )


@reminder
def empty_group(data):
    groups = list(data.evaluation.poc_groups.all())
    used = {c.group_id for c in data.evaluation.poc_cases.all()}
    empty = [g.group.name for g in groups if g.weight > 0 and g.group_id not in used]
    if groups and empty:
        yield Reminder(
            key="poc-empty-group",
            severity="medium",
            title=_("A weighted POC group has no cases"),
            why=_("These groups carry weight but have no case to score: %(groups)s.")
            % {"groups": ", ".join(empty)},
            fix_url=_url(data, "plan"),
            fix_label=_("Add cases or set the weight to 0"),
        )


def _cells(data):
    """Each cell's submitted scores and consensus, as `data.viewer` may see them: blind scoring
    (see poc.selectors.scorecard) hides a cell others scored until the viewer submitted theirs,
    so such a cell is left out here too, or a count would give the scores away."""
    shortlisted = {c.pk for c in data.shortlisted}
    viewer = data.viewer
    blind = viewer is not None and not viewer.has_perm("poc.see_all_scores", data.evaluation)
    for case in data.evaluation.poc_cases.all():
        agreed = {c.candidate_id: c for c in case.consensus.all()}
        submitted: dict[int, list] = {}
        mine: set[int] = set()
        for s in case.scores.all():
            if s.submitted and s.score is not None:
                submitted.setdefault(s.candidate_id, []).append(s.score)
                if blind and s.reviewer_id == viewer.pk:
                    mine.add(s.candidate_id)
        for candidate_id in shortlisted:
            if blind and candidate_id not in mine and submitted.get(candidate_id):
                continue
            yield case, candidate_id, submitted.get(candidate_id, []), agreed.get(candidate_id)


@reminder
def unscored_after_poc(data):
    if data.evaluation.status not in (Status.DECIDED, Status.ARCHIVED):
        return
    missing = sum(1 for _case, _c, values, agreed in _cells(data) if not values and not agreed)
    if missing:
        yield Reminder(
            key="poc-unscored",
            severity="high",
            title=_("POC cells left unscored"),
            why=_("%(n)d case × candidate cell(s) have no submitted score, yet the POC is over.")
            % {"n": missing},
            fix_url=_url(data, "scorecard"),
            fix_label=_("Review the scorecard"),
        )


@reminder
def unresolved_disagreements(data):
    open_ = sum(
        1
        for _case, _c, values, agreed in _cells(data)
        if agreed is None and scoring.disagreement(values)
    )
    if open_:
        yield Reminder(
            key="poc-disagreements",
            severity="medium",
            title=_("Reviewers disagree and no consensus is recorded"),
            why=_(
                "%(n)d cell(s) have scores 1.5 points or more apart. The owner should agree a "
                "score with a reason."
            )
            % {"n": open_},
            fix_url=_url(data, "scorecard"),
            fix_label=_("Settle the disagreements"),
        )
