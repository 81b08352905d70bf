"""What a race is made of: the world every race runs in (an evaluation with every kind of row),
a shot (one row's save, what it sends and how it reads back), a race, and small readers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from django import forms
from django.urls import reverse

from evaluations.acknowledgements import high_reminders
from evaluations.models import (
    Candidate,
    Evaluation,
    MemberRole,
)
from evaluations.selectors import evaluation_data
from poc.models import ConflictDeclaration, PlanCase, PlanGroup
from responsibility.models import Area, Cell, Party
from signoff.models import Approval
from tests.factories import make_everything

THREADS = 50
PROJECT_APPS = ("catalog", "common", "evaluations", "poc", "reports", "responsibility", "signoff")


# --- what is raced -----------------------------------------------------------------------------


@dataclass
class World:
    """The evaluation the races run on (tests.factories.make_everything) and its parts."""

    evaluation: Evaluation
    owner: object
    editor: object
    slurm: Candidate
    volcano: Candidate
    cloud: Candidate
    measured: PlanCase  # an own case with a metric: the reviewer's submitted score, a consensus
    library_case: PlanCase
    group: PlanGroup
    areas: list[Area]
    party: Party
    conflict: ConflictDeclaration  # the editor's declared conflict with Volcano
    people: dict = field(default_factory=dict)
    decided: Evaluation | None = None  # made on first use (approvals need a decided one)

    @classmethod
    def of(cls, evaluation, people) -> World:
        candidates = {c.solution.slug: c for c in evaluation.candidates.select_related("solution")}
        return cls(
            evaluation=evaluation,
            owner=people[MemberRole.OWNER],
            editor=people[MemberRole.EDITOR],
            slurm=candidates["slurm"],
            volcano=candidates["volcano"],
            cloud=candidates["cloud-managed-gpu"],
            measured=evaluation.poc_cases.get(title="Own case with a metric"),
            library_case=evaluation.poc_cases.filter(source_case__isnull=False).first(),
            group=evaluation.poc_groups.select_related("group").first(),
            areas=list(Area.objects.filter(is_active=True).order_by("group__order", "order")),
            party=Party.objects.filter(evaluation=None).order_by("order").first(),
            conflict=ConflictDeclaration.objects.get(
                candidate=candidates["volcano"], member=people[MemberRole.EDITOR]
            ),
            people=people,
        )

    def sealed(self) -> Evaluation:
        """A decided evaluation with a finished report and approvals (make_everything)."""
        if self.decided is None:
            self.decided = make_everything(self.owner, self.people, sealed=True)
        return self.decided

    def approval(self, role) -> Approval:
        return Approval.objects.get(
            evaluation=self.sealed(), approver=self.people[role], voided_at=None
        )

    def url(self, name, **kwargs) -> str:
        key = "evaluation_pk" if name.split(":")[0].endswith("-api") else "pk"
        return reverse(name, kwargs={key: self.evaluation.pk, **kwargs})


@dataclass
class Shot:
    """One race on one row: where to send, what thread n sends, and how to read the result."""

    path: str
    row: Callable[[], object | None]  # the row as saved now (None: not created yet)
    send: Callable[[int, int], dict]  # (thread n, version) → the body
    saved: Callable[[object], object]  # what the saved row holds…
    sent: Callable[[int], object]  # …and what thread n asked for
    won: int  # the status of the one save that wins
    owner_only: bool = False  # a row of the owner's own (a score), or an owner's right
    htmx: bool = False  # sent as the page's htmx does


@dataclass(frozen=True)
class Race:
    surface: str  # "page" or "api"
    route: str  # URL name
    how: str  # page: the ActionRouter action ("" for none); API: the HTTP method
    build: Callable[[World], Shot] = field(compare=False)
    form: type[forms.BaseForm] | None = None  # page: the form the view parses

    @property
    def key(self) -> tuple[str, str, str]:
        return self.surface, self.route, self.how

    def __str__(self) -> str:
        form = f" ({self.form.__name__})" if self.form else ""
        return f"{self.surface} {self.how or 'POST'} {self.route}{form}"


def by_pk(model, pk) -> Callable[[], object]:
    return lambda: model.objects.filter(pk=pk).first()


def by(model, **lookup) -> Callable[[], object]:
    return lambda: model.objects.filter(**lookup).first()


def letter(n: int) -> str:
    return "RACI"[n % 4]


def cell_letter(row) -> str:
    cell = Cell.objects.filter(row=row).order_by("party__order").first()
    return cell.letter if cell else ""


# Pages ------------------------------------------------------------------------------------------


def open_high_key(w: World) -> str:
    """The key of an open high reminder of the evaluation (one the owner may acknowledge)."""
    found = high_reminders(evaluation_data(w.evaluation))
    assert found, "the race's evaluation has no open high reminder to acknowledge"
    return found[0].key
