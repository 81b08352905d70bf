"""The open high reminders the decided gate asks about, and the owner's acknowledgements of them
(reads). The one place that decides which of them a person is shown.

The gate counts every open high reminder as the evaluation's data has it (read with no viewer:
all submitted scores). A reminder built from data blind scoring hides may read otherwise for
someone who has not submitted their own scores, so a person is shown, in full, only the open
high reminders they see themselves (their own view of the same reminders, `reminders_for`),
and only the number of the others. The owner normally sees everything.

An acknowledgement applies to a reminder's key (the rule, and the candidate where the rule names
one), not to its words: it holds while the reminder is open under that key, also after it went
away and came back, and counts for nothing while no reminder has that key.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils import timezone

from common.report_values import iso_date, person

from .extensions import HistorySource
from .models import Evaluation, ReminderAcknowledgement
from .reminders import Reminder, reminders_for
from .selectors import EvaluationData, evaluation_data

HIGH = "high"


@dataclass
class OpenReminder:
    reminder: Reminder
    acknowledgement: ReminderAcknowledgement | None = None


@dataclass
class GateReminders:
    """The open high reminders as one person may see them."""

    shown: list[OpenReminder] = field(default_factory=list)
    # Open high reminders this person does not see (blind scoring): how many, and how many of
    # those are not acknowledged.
    hidden: int = 0
    hidden_open: int = 0

    @property
    def unacknowledged(self) -> list[Reminder]:
        return [o.reminder for o in self.shown if o.acknowledgement is None]

    @property
    def acknowledged(self) -> list[OpenReminder]:
        return [o for o in self.shown if o.acknowledgement is not None]


def acknowledgements_of(evaluation: Evaluation) -> dict[str, ReminderAcknowledgement]:
    """The evaluation's acknowledgements by reminder key, with who gave them (one query)."""
    rows = ReminderAcknowledgement.objects.filter(evaluation_id=evaluation.pk).select_related(
        "acknowledged_by"
    )
    return {a.key: a for a in rows}


def high_reminders(data: EvaluationData) -> list[Reminder]:
    return [r for r in reminders_for(data) if r.severity == HIGH]


def viewed_by(data: EvaluationData, viewer) -> EvaluationData:
    """The same loaded evaluation read as `viewer` (the facts blind scoring filters are read
    again for them; the rest is shared)."""
    if data.viewer is viewer:
        return data
    seen = EvaluationData(data.evaluation, data.questions, data.shared, viewer)
    seen.batch = [seen]
    return seen


def gate_reminders(data: EvaluationData, viewer=None, *, leave_out=()) -> GateReminders:
    """The open high reminders of `data` (read with no viewer) with their acknowledgements, as
    `viewer` may see them (None: everything). `leave_out`: keys another gate item stands for."""
    acks = acknowledgements_of(data.evaluation)
    truth = [r for r in high_reminders(viewed_by(data, None)) if r.key not in leave_out]
    if viewer is None:
        seen = {r.key: r for r in truth}
    else:
        seen = {r.key: r for r in high_reminders(viewed_by(data, viewer))}
    out = GateReminders()
    for reminder in truth:
        if reminder.key in seen:
            out.shown.append(OpenReminder(seen[reminder.key], acks.get(reminder.key)))
        else:
            out.hidden += 1
            out.hidden_open += reminder.key not in acks
    return out


def open_high_reminder(evaluation: Evaluation, key: str) -> Reminder | None:
    """The open high reminder with this key, as the data has it (None: not open)."""
    data = evaluation_data(evaluation)
    return next((r for r in high_reminders(data) if r.key == key), None)


# --- the History tab and the report -------------------------------------------------------------

HISTORY_KIND = "reminderacknowledgement"


def _describe(record) -> str:
    return record.title or record.key


def history_source() -> HistorySource:
    """Acknowledgements given, changed and withdrawn show on the History tab (and in the API and
    the report's history appendix) under the kind "reminderacknowledgement"."""
    return HistorySource(
        HISTORY_KIND,
        rows=lambda evaluation: ReminderAcknowledgement.history.filter(evaluation_id=evaluation.pk),
        describe=_describe,
    )


def acknowledged_part(context) -> list[dict]:
    """For the report: the open high reminders the owner acknowledged, with the reason, who and
    when (printed as "decided despite" once the evaluation is decided). The report reads every
    submitted score, as the owner does; its sections that print reminders are kept from people
    blind scoring hides scores from (reports.sections)."""
    acks = acknowledgements_of(context.evaluation)
    if not acks:
        return []
    return [
        {
            "key": r.key,
            "title": str(r.title),
            "reason": acks[r.key].reason,
            "by": person(acks[r.key].acknowledged_by),
            "on": iso_date(timezone.localdate(acks[r.key].acknowledged_at)),
        }
        for r in high_reminders(context.data)
        if r.key in acks
    ]
