"""An evaluation's change history: every django-simple-history record of the evaluation and its
rows (members, context answers, candidates, answers, decision, constraint waivers, and what other
apps register), newest first.

One implementation for the History tab and the API. The timeline is a UNION of the history
tables, so it paginates in the database; a page's records are then loaded with the record
before each (to diff against) in a fixed number of queries.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from django.db import connection
from django.db.models import CharField, OuterRef, Q, QuerySet, Subquery, Value
from django.forms.models import model_to_dict
from django.utils.translation import gettext as _
from django.utils.translation import pgettext
from simple_history.utils import get_m2m_reverse_field_name

from catalog.models import ShortlistRule
from common.people import person_name
from common.text import shorten

from .answer_scales import party_choices
from .extensions import history_sources
from .models import (
    Candidate,
    ConstraintWaiver,
    ContextAnswer,
    Decision,
    Evaluation,
    Membership,
    QuestionAnswer,
)

# Bookkeeping that every save changes, or that names the row itself: not a change to show.
HIDDEN_FIELDS = {
    "id",
    "version",
    "evaluation",
    "candidate",
    "question",
    "solution",
    "user",
    "created_by",
    "created_at",
    "updated_at",
    "updated_by",
    "added_by",
    "added_at",
    "recorded_by",
    "eliminated_by",
    "eliminated_at",
}
ACTIONS = {"+": "created", "~": "changed", "-": "deleted"}


def action_label(action: str) -> str:
    return {
        "created": pgettext("history action", "created"),
        "changed": pgettext("history action", "changed"),
        "deleted": pgettext("history action", "deleted"),
    }[action]


@dataclass
class Change:
    field: str
    label: str
    old: object
    new: object
    old_display: str = ""
    new_display: str = ""


@dataclass
class Entry:
    when: datetime
    who: str | None
    action: str
    model: str
    model_label: str
    object_id: int
    object: str
    changes: list[Change] = field(default_factory=list)
    reason: str = ""

    @property
    def action_label(self) -> str:
        return action_label(self.action)


def _sources(evaluation: Evaluation) -> dict[str, tuple[QuerySet, tuple[str, ...]]]:
    """Per model: its history rows for this evaluation and the relations that name the row."""
    candidate_ids = Candidate.history.filter(evaluation_id=evaluation.pk).values("id")
    pk = evaluation.pk
    return {
        "evaluation": (Evaluation.history.filter(id=pk), ()),
        "membership": (Membership.history.filter(evaluation_id=pk), ("user",)),
        "contextanswer": (ContextAnswer.history.filter(evaluation_id=pk), ("question",)),
        "candidate": (Candidate.history.filter(evaluation_id=pk), ("solution",)),
        "questionanswer": (
            QuestionAnswer.history.filter(candidate_id__in=candidate_ids),
            ("candidate__solution", "question"),
        ),
        "decision": (Decision.history.filter(evaluation_id=pk), ()),
        "constraintwaiver": (
            ConstraintWaiver.history.filter(candidate_id__in=candidate_ids),
            ("candidate__solution", "constraint"),
        ),
        **{kind: (x.rows(evaluation), x.related) for kind, x in history_sources().items()},
    }


def history_timeline(
    evaluation: Evaluation,
    kinds: dict[str, Q | None] | None = None,
    *,
    exclude: tuple[str, ...] = (),
) -> QuerySet:
    """Rows of (history_id, history_date, kind), newest first; slice or paginate it.

    `kinds` narrows it to some kinds, each with an optional filter on its history rows (kinds
    that are not registered are left out); None means every kind. `exclude` leaves kinds out
    (the report's sealed history leaves out the approvals that follow it)."""
    sources = {k: v for k, v in _sources(evaluation).items() if k not in exclude}
    if kinds is not None:
        sources = {kind: sources[kind] for kind in kinds if kind in sources}
    if not sources:
        return Evaluation.history.none().values("history_id", "history_date")
    parts = [
        (qs.filter(kinds[kind]) if kinds and kinds.get(kind) is not None else qs)
        .order_by()
        .values("history_id", "history_date")
        .annotate(kind=Value(kind, output_field=CharField()))
        for kind, (qs, _related) in sources.items()
    ]
    return parts[0].union(*parts[1:], all=True).order_by("-history_date", "kind", "-history_id")


@dataclass(frozen=True)
class KindCount:
    kind: str
    label: str  # the model's plural name
    count: int


def history_counts(evaluation: Evaluation, *, exclude: tuple[str, ...] = ()) -> list[KindCount]:
    """How many history records each kind has for this evaluation, most first (one query);
    `exclude` leaves kinds out, as in `history_timeline`."""
    sources = _sources(evaluation)
    timeline = history_timeline(evaluation, exclude=exclude)
    sql, params = timeline.order_by().query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT kind, COUNT(*) FROM ({sql}) AS timeline GROUP BY kind", params)
        counts = dict(cursor.fetchall())
    rows = [
        KindCount(kind, str(qs.model.instance_type._meta.verbose_name_plural), counts[kind])
        for kind, (qs, _related) in sources.items()
        if counts.get(kind)
    ]
    return sorted(rows, key=lambda r: (-r.count, r.label))


def _describe(kind: str, record) -> str:
    if kind == "evaluation":
        return record.title
    if kind == "membership":
        user = record.user
        return person_name(user) if user else f"#{record.user_id}"
    if kind == "contextanswer":
        return record.question.text if record.question else f"#{record.question_id}"
    if kind == "candidate":
        if record.stack_name:
            return record.stack_name
        return record.solution.name if record.solution else f"#{record.solution_id}"
    if kind == "questionanswer":
        who = record.candidate.name if record.candidate else f"#{record.candidate_id}"
        what = record.question.text if record.question else f"#{record.question_id}"
        return f"{who} — {what}"
    if kind == "constraintwaiver":
        who = record.candidate.name if record.candidate else f"#{record.candidate_id}"
        what = record.constraint.name if record.constraint else f"#{record.constraint_id}"
        return f"{who} — {what}"
    contributed = history_sources().get(kind)
    if contributed is not None:
        return contributed.describe(record)
    return _("Decision record")


def _load_links(model, records) -> None:
    """Set `record.links`: the ids each m2m field linked when the record was saved."""
    ids = [r.history_id for r in records]
    for r in records:
        r.links = {}
    for m2m in model._history_m2m_fields:
        through = getattr(model, m2m.name).model
        target = get_m2m_reverse_field_name(m2m)
        saved = defaultdict(list)
        rows = through._default_manager.filter(history_id__in=ids).order_by(target)
        for history_id, linked in rows.values_list("history_id", target):
            saved[history_id].append(linked)
        for r in records:
            r.links[m2m.name] = saved[r.history_id]


def _records(qs: QuerySet, ids: list[int], related: tuple[str, ...]) -> list:
    """The page's records of one model, each with the one before it of the same row."""
    model = qs.model
    same_row_before = model.objects.filter(id=OuterRef("id")).filter(
        Q(history_date__lt=OuterRef("history_date"))
        | Q(history_date=OuterRef("history_date"), history_id__lt=OuterRef("history_id"))
    )
    previous_id = Subquery(
        same_row_before.order_by("-history_date", "-history_id").values("history_id")[:1]
    )
    records = list(
        model.objects.filter(history_id__in=ids)
        .select_related("history_user")
        .prefetch_related(*related)
        .annotate(previous_id=previous_id)
    )
    previous = model.objects.in_bulk([r.previous_id for r in records if r.previous_id])
    _load_links(model, [*records, *previous.values()])
    for r in records:
        r.previous = previous.get(r.previous_id)
    return records


def _raw_changes(record, previous) -> list[tuple[str, object, object]]:
    if record.history_type == "-":
        return []
    if previous is None:
        # A new row: its initial values (m2m links are usually set by a following record).
        hidden = HIDDEN_FIELDS | set(getattr(record.instance_type, "history_hidden_fields", ()))
        names = [f.name for f in record.tracked_fields if f.editable and f.name not in hidden]
        values = model_to_dict(record, fields=names)
        changes = [(name, None, value) for name, value in values.items()]
        return [c for c in changes if c[2] not in (None, "", False, [])]
    m2m = set(record.links)
    hidden = HIDDEN_FIELDS | set(getattr(record.instance_type, "history_hidden_fields", ()))
    delta = record.diff_against(previous, excluded_fields=hidden | m2m)
    changes = [(c.field, c.old, c.new) for c in delta.changes]
    changes += [
        (name, previous.links[name], record.links[name])
        for name in m2m
        if record.links[name] != previous.links[name]
    ]
    return sorted(changes, key=lambda c: c[0])


# How a linked row reads in a change: a rule as its reason (its key is for administrators), a
# candidate as pages name it (a stack by its own name, not its main layer's).
LINKED_NAMES = {
    ShortlistRule: lambda rule: shorten(rule.reason, 90),
    Candidate: lambda candidate: candidate.name,
}


class _Labels:
    """Human-readable values: choice labels, yes/no, names for m2m ids (loaded in bulk), party
    names for the party keys of a who-answer."""

    def __init__(self, parties: dict[str, str] | None = None):
        self.wanted: dict = defaultdict(set)
        self.names: dict = {}
        self.parties = parties or {}

    def want(self, model_field, value):
        if model_field.many_to_many and isinstance(value, list):
            self.wanted[model_field.related_model].update(value)

    def load(self):
        for model, ids in self.wanted.items():
            qs = model.objects.filter(pk__in=ids)
            if model is Candidate:
                qs = qs.select_related("solution")
            name = LINKED_NAMES.get(model, str)
            self.names.update({(model, o.pk): name(o) for o in qs})

    def show(self, model_field, value) -> str:
        if value in (None, "", []):
            return "—"
        if model_field.many_to_many and isinstance(value, list):
            model = model_field.related_model
            return ", ".join(self.names.get((model, v), f"#{v}") for v in value)
        if model_field.choices:
            return str(dict(model_field.choices).get(value, value))
        if isinstance(value, bool):
            return _("yes") if value else _("no")
        if isinstance(value, list):  # e.g. the party keys of a who-answer
            return ", ".join(self.parties.get(str(v), str(v)) for v in value)
        return str(value)


def history_entries(evaluation: Evaluation, rows) -> list[Entry]:
    """Entries for some rows of `history_timeline(evaluation)` (e.g. one page), in their order."""
    rows = list(rows)
    sources = _sources(evaluation)
    records = {}
    for kind, (qs, related) in sources.items():
        ids = [row["history_id"] for row in rows if row["kind"] == kind]
        if ids:
            records.update({(kind, r.history_id): r for r in _records(qs, ids, related)})
    labels = _Labels(parties=dict(party_choices(evaluation)))
    pending = []
    for row in rows:
        kind = row["kind"]
        record = records[(kind, row["history_id"])]
        meta = record.instance_type._meta
        changes = []
        for name, old, new in _raw_changes(record, record.previous):
            model_field = meta.get_field(name)
            labels.want(model_field, old)
            labels.want(model_field, new)
            changes.append((model_field, Change(name, str(model_field.verbose_name), old, new)))
        user = record.history_user
        entry = Entry(
            when=record.history_date,
            who=person_name(user) if user else None,
            action=ACTIONS[record.history_type],
            model=kind,
            model_label=str(meta.verbose_name),
            object_id=record.id,
            object=_describe(kind, record),
            changes=[c for _f, c in changes],
            reason=record.history_change_reason or "",
        )
        pending.append((entry, changes))
    labels.load()
    for _entry, changes in pending:
        for model_field, change in changes:
            change.old_display = labels.show(model_field, change.old)
            change.new_display = labels.show(model_field, change.new)
    return [entry for entry, _changes in pending]
