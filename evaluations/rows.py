"""What list rows and the status strip show of an evaluation: its status, shortlisted candidates,
answers progress and number of risk reminders. Progress and reminders come from stored digests
(evaluations/digests.py) while they are current, so a page of rows costs a few queries whatever
the number or size of the evaluations the user can see."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.db.models import Count, IntegerField, OuterRef, Prefetch, QuerySet, Subquery
from django.db.models.functions import Coalesce
from modeltranslation.settings import AVAILABLE_LANGUAGES
from modeltranslation.utils import build_localized_fieldname

from catalog.models import Scenario

from .digests import RowStatus, statuses
from .models import Candidate, CandidateStatus, Evaluation, Membership
from .reminders import Reminder, reminders_for
from .rules import remember_member_role
from .selectors import (
    EvaluationData,
    evaluation_data_many,
    evaluation_queryset_full,
    evaluations_for_user,
)

ROW_FIELDS = (
    "title",
    "organisation",
    "status",
    "created_by_id",
    "created_at",
    "updated_at",
    "imported_from",  # the list marks an imported copy
    "imported_at",
)
NAMES = ["name", *(build_localized_fieldname("name", lang) for lang in AVAILABLE_LANGUAGES)]
SOLUTION_NAME = [f"solution__{name}" for name in NAMES]


@dataclass
class ListRow:
    evaluation: Evaluation
    status: RowStatus

    @property
    def shortlisted(self) -> list[Candidate]:
        return self.evaluation.shortlisted  # prefetched by evaluation_list_queryset

    @property
    def scenarios(self) -> list:
        return self.evaluation.scenario_list  # prefetched by evaluation_list_queryset


def evaluation_list_queryset(user, *, names: bool = True) -> QuerySet[Evaluation]:
    """The user's evaluations, newest change first, each with the user's role (`my_role`) and
    its scenarios: slice it to one page before it is evaluated. With `names` (the pages), each
    also has its shortlisted candidates with their solutions' names; without (the API, which
    shows a number), only how many there are (`shortlisted_count`)."""
    qs = evaluations_for_user(user)
    if user.is_authenticated:
        role = Membership.objects.filter(evaluation=OuterRef("pk"), user=user).values("role")
        qs = qs.annotate(my_role=Subquery(role[:1]))
    # Only what a row shows, as lists (to_attr) rather than related managers: Django builds a
    # queryset per row for a prefetched manager, about 0.1 ms each, a tenth of a 100-row page.
    scenarios = Scenario.objects.only("slug", "order", *NAMES)
    qs = qs.only(*ROW_FIELDS).prefetch_related(
        Prefetch("scenarios", queryset=scenarios, to_attr="scenario_list")
    )
    if not names:
        count = (
            Candidate.objects.filter(evaluation=OuterRef("pk"), status=CandidateStatus.SHORTLISTED)
            .values("evaluation")
            .annotate(n=Count("pk"))
            .values("n")
        )
        return qs.annotate(
            shortlisted_count=Coalesce(Subquery(count, output_field=IntegerField()), 0)
        )
    shortlisted = (
        Candidate.objects.filter(status=CandidateStatus.SHORTLISTED)
        .select_related("solution")
        .only("evaluation_id", "stack_name", "status", *SOLUTION_NAME)
    )
    return qs.prefetch_related(Prefetch("candidates", queryset=shortlisted, to_attr="shortlisted"))


def status_of(data: EvaluationData, *, items: bool = False) -> RowStatus:
    """Progress and the number of reminders; with `items`, the reminders themselves."""
    answered, total = data.progress_totals()
    reminders = reminders_for(data)
    fields = tuple(r.as_fields() for r in reminders) if items else None
    return RowStatus(answered, total, len(reminders), fields)


def evaluation_rows(user, page) -> list[ListRow]:
    """One page of `evaluation_list_queryset` as rows. Rows whose stored status is out of date
    are computed together, in a fixed number of queries (see EvaluationData.facts)."""
    evaluations = list(page)
    roles = {e.pk: getattr(e, "my_role", None) for e in evaluations}

    def compute(ids: list[int]) -> dict[int, RowStatus]:
        loaded = list(evaluation_queryset_full(Evaluation.objects.filter(pk__in=ids)))
        for evaluation in loaded:
            remember_member_role(user, evaluation, roles.get(evaluation.pk))
        return {d.evaluation.pk: status_of(d) for d in evaluation_data_many(loaded, viewer=user)}

    found = statuses([e.pk for e in evaluations], user, compute)
    return [ListRow(e, found[e.pk]) for e in evaluations]


def strip_status(
    evaluation: Evaluation, viewer, count: Callable[[], RowStatus], *, items: bool = False
) -> RowStatus:
    """The status strip of one evaluation for `viewer` (with `items`, and its reminders):
    stored, or `count()` (so the evaluation's data is only loaded when the stored status is
    out of date)."""
    pk = evaluation.pk
    return statuses([pk], viewer, lambda ids: {pk: count()}, items=items)[pk]


def listed_reminders(
    evaluation: Evaluation, viewer, data: Callable[[], EvaluationData]
) -> tuple[RowStatus, list[Reminder]]:
    """The status strip with the reminders themselves, stored in the active language or
    counted from `data()` (the overview and the reminders API)."""
    status = strip_status(evaluation, viewer, lambda: status_of(data(), items=True), items=True)
    return status, [Reminder.from_fields(fields) for fields in status.items]
