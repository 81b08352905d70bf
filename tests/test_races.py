"""Races: 50 people save the same row at the same moment, for every versioned write there is.

A versioned write is a page save or an API write that names the version it edited (optimistic
concurrency: common/concurrency.py; pages common/views.py, API common/http.py). For each one, 50
threads, each with its own signed-in client (django.test.Client for pages,
rest_framework.test.APIClient for the API) as the evaluation's owner or editor, wait on one
barrier and then send the same current version, each with a value of its own. Exactly one wins
(with the status that route answers a save: 200 for an htmx row, 302 for a page that redirects,
200 or 201 from the API), the other 49 are refused as stale (pages: 409; API: 412 when the
version came as If-Match, 409 when it came in the body, half each), nothing answers 500 or
hangs, the row holds the winner's value, its version went up by exactly one, and its history
holds the winner's save and nobody else's. Rows nobody saved yet are raced too (version 0:
exactly one creates the row).

Which writes are versioned is found, not listed by hand: every page form with a VersionField,
every page write in the URLconf (each PageAction view and ActionRouter action, as
tests/routes.py walks it), every operation of the served OpenAPI schema that documents 428 or
takes a `version`. A new one without a race below (or, if it names no version, a line saying
why) makes `test_every_versioned_write_has_a_race` fail.

Row locks need PostgreSQL (SQLite serialises the whole database): the races skip on SQLite and
fail under CI (tests.conftest.IN_CI).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module

import pytest
from django import forms
from django.conf import settings
from django.contrib.auth.models import Permission
from django.db import connection
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve, reverse
from rest_framework.test import APIClient

import common.views
from catalog import forms as catalog_forms
from catalog.models import CapabilityClaim
from common.forms import VersionField
from common.views import ActionRouter, PageAction
from evaluations import forms as ev_forms
from evaluations.models import (
    Candidate,
    ContextAnswer,
    Decision,
    Evaluation,
    FiveQuestion,
    MemberRole,
    QuestionAnswer,
)
from poc import forms as poc_forms
from poc.conflicts import forms as coi_forms
from poc.models import ConflictDeclaration, Consensus, PlanCase, PlanGroup, Score, TestBed
from poc.testbeds import forms as poc_testbed_forms
from responsibility import forms as resp_forms
from responsibility.models import Area, AreaRow, Cell, CostInput, CostSettings, Party
from signoff import forms as signoff_forms
from signoff.models import Approval
from tests.conftest import IN_CI
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


def page_evaluation_edit(w: World) -> Shot:
    scenarios = list(w.evaluation.scenarios.values_list("pk", flat=True))
    return Shot(
        path=w.url("evaluations:evaluation_edit"),
        row=by_pk(Evaluation, w.evaluation.pk),
        send=lambda n, v: {
            "title": f"Race {n}",
            "organisation": "AI platform team",
            "scenarios": scenarios,
            "private_deployment_required": "on",
            "version": v,
        },
        saved=lambda e: e.title,
        sent=lambda n: f"Race {n}",
        won=302,
    )


def page_main_type(w: World) -> Shot:
    slug = w.slurm.solution.solution_type.slug
    return Shot(
        path=w.url("evaluations:evaluation_shortlist"),
        row=by_pk(Evaluation, w.evaluation.pk),
        send=lambda n, v: {"action": "type", "main_type": slug, "reason": f"Why {n}", "version": v},
        saved=lambda e: (e.main_type.slug, e.main_type_reason),
        sent=lambda n: (slug, f"Why {n}"),
        won=302,
    )


def page_context_answer(w: World) -> Shot:  # nobody answered it yet: exactly one creates it
    key = "ray_workloads"
    return Shot(
        path=w.url("evaluations:context_answer_save", key=key),
        row=by(ContextAnswer, evaluation=w.evaluation, question__key=key),
        send=lambda n, v: {f"{key}-value": "yes", f"{key}-detail": f"#{n}", f"{key}-version": v},
        saved=lambda a: a.detail,
        sent=lambda n: f"#{n}",
        won=200,
        htmx=True,
    )


def page_restore(w: World) -> Shot:
    return Shot(
        path=w.url("evaluations:evaluation_shortlist"),
        row=by_pk(Candidate, w.cloud.pk),
        send=lambda n, v: {"action": "restore", "candidate": w.cloud.pk, "version": v},
        saved=lambda c: c.status,
        sent=lambda n: "shortlisted",
        won=302,
    )


def page_eliminate(w: World) -> Shot:
    return Shot(
        path=w.url("evaluations:evaluation_shortlist"),
        row=by_pk(Candidate, w.cloud.pk),
        send=lambda n, v: {
            "action": "eliminate",
            "candidate": w.cloud.pk,
            "reason": f"Reason {n}",
            "version": v,
        },
        saved=lambda c: (c.status, c.elimination_reason),
        sent=lambda n: ("eliminated", f"Reason {n}"),
        won=302,
    )


def page_answer(w: World) -> Shot:
    question = FiveQuestion.objects.filter(is_active=True).order_by("order").first()
    prefix = f"c{w.slurm.pk}-{question.key}"
    return Shot(
        path=w.url("evaluations:answer_save", cid=w.slurm.pk, key=question.key),
        row=by(QuestionAnswer, candidate=w.slurm, question=question),
        send=lambda n, v: {
            f"{prefix}-parties": "internal",
            f"{prefix}-explanation": f"#{n}",
            f"{prefix}-version": v,
        },
        saved=lambda a: a.explanation,
        sent=lambda n: f"#{n}",
        won=200,
        htmx=True,
    )


def page_decision(w: World) -> Shot:
    return Shot(
        path=w.url("evaluations:evaluation_decision"),
        row=by(Decision, evaluation=w.evaluation),
        send=lambda n, v: {
            "chosen": [w.slurm.pk],
            "rationale": f"Rationale {n}",
            "decided_on": "2027-01-15",
            "decided_by": "Board",
            "version": v,
        },
        saved=lambda d: d.rationale,
        sent=lambda n: f"Rationale {n}",
        won=302,
    )


def page_matrix_cell(w: World) -> Shot:
    area = w.areas[0]
    return Shot(
        path=w.url("responsibility:matrix_save", cid=w.slurm.pk),
        row=by(AreaRow, candidate=w.slurm, area=area),
        send=lambda n, v: {
            "area": area.key,
            "party": w.party.pk,
            "letter": letter(n),
            "version": v,
        },
        saved=lambda r: Cell.objects.get(row=r, party=w.party).letter,
        sent=letter,
        won=200,
        htmx=True,
    )


def page_matrix_row(w: World) -> Shot:
    area = w.areas[1]
    return Shot(
        path=w.url("responsibility:matrix_save", cid=w.slurm.pk),
        row=by(AreaRow, candidate=w.slurm, area=area),
        send=lambda n, v: {"area": area.key, "note": f"Note {n}", "version": v},
        saved=lambda r: r.note,
        sent=lambda n: f"Note {n}",
        won=200,
        htmx=True,
    )


def page_cost_settings(w: World) -> Shot:
    return Shot(
        path=w.url("responsibility:costs"),
        row=by(CostSettings, evaluation=w.evaluation),
        send=lambda n, v: {
            "target": "settings",
            "years": 3,
            "currency": "CNY",
            "fte_cost_per_year": 500000 + n,
            "version": v,
        },
        saved=lambda s: int(s.fte_cost_per_year),
        sent=lambda n: 500000 + n,
        won=302,
    )


def page_cost_input(w: World) -> Shot:  # volcano has no cost inputs: exactly one creates them
    prefix = f"c{w.volcano.pk}"
    zeros = {f"{prefix}-{name}": "0" for name in CostInput.INPUT_FIELDS}
    return Shot(
        path=w.url("responsibility:costs"),
        row=by(CostInput, candidate=w.volcano),
        send=lambda n, v: {
            **zeros,
            "candidate": w.volcano.pk,
            f"{prefix}-utilisation": "1",
            f"{prefix}-one_off": str(1000 + n),
            f"{prefix}-version": v,
        },
        saved=lambda c: int(c.one_off),
        sent=lambda n: 1000 + n,
        won=302,
    )


def page_case_weight(w: World) -> Shot:
    return Shot(
        path=w.url("poc:plan"),
        row=by_pk(PlanCase, w.library_case.pk),
        send=lambda n, v: {
            "action": "case_weight",
            "id": w.library_case.pk,
            "weight": n,
            "version": v,
        },
        saved=lambda c: int(c.weight),
        sent=lambda n: n,
        won=200,
        htmx=True,
    )


def page_group_weight(w: World) -> Shot:
    return Shot(
        path=w.url("poc:plan"),
        row=by_pk(PlanGroup, w.group.pk),
        send=lambda n, v: {"action": "group_weight", "id": w.group.pk, "weight": n, "version": v},
        saved=lambda g: int(g.weight),
        sent=lambda n: n,
        won=200,
        htmx=True,
    )


def page_score(w: World) -> Shot:  # the owner has not scored this cell: exactly one creates it
    return Shot(
        path=w.url("poc:cell", case_id=w.measured.pk, cid=w.slurm.pk),
        row=by(Score, case=w.measured, candidate=w.slurm, reviewer=w.owner),
        send=lambda n, v: {"score": "3", "outcome": "passed", "notes": f"#{n}", "version": v},
        saved=lambda s: s.notes,
        sent=lambda n: f"#{n}",
        won=200,
        owner_only=True,
        htmx=True,
    )


def page_consensus(w: World) -> Shot:
    return Shot(
        path=w.url("poc:cell", case_id=w.measured.pk, cid=w.slurm.pk),
        row=by(Consensus, case=w.measured, candidate=w.slurm),
        send=lambda n, v: {
            "action": "consensus",
            "score": "3.5",
            "reason": f"Agreed {n}",
            "version": v,
        },
        saved=lambda c: c.reason,
        sent=lambda n: f"Agreed {n}",
        won=200,
        owner_only=True,
        htmx=True,
    )


def page_declare(w: World) -> Shot:  # the owner's own declaration (one per member)
    return Shot(
        path=w.url("poc:conflicts"),
        row=by(ConflictDeclaration, candidate=w.volcano, member=w.owner),
        send=lambda n, v: {
            "action": "declare",
            f"c{w.volcano.pk}-has_conflict": "yes",
            f"c{w.volcano.pk}-description": f"#{n}",
            f"c{w.volcano.pk}-version": v,
        },
        saved=lambda d: d.description,
        sent=lambda n: f"#{n}",
        won=302,
        owner_only=True,
    )


def page_allow(w: World) -> Shot:
    return Shot(
        path=w.url("poc:conflicts"),
        row=by_pk(ConflictDeclaration, w.conflict.pk),
        send=lambda n, v: {"action": "allow", "id": w.conflict.pk, "reason": f"#{n}", "version": v},
        saved=lambda d: d.allowance_reason,
        sent=lambda n: f"#{n}",
        won=302,
        owner_only=True,
    )


def page_revoke(w: World) -> Shot:  # the allowance the race above granted
    return Shot(
        path=w.url("poc:conflicts"),
        row=by_pk(ConflictDeclaration, w.conflict.pk),
        send=lambda n, v: {"action": "revoke", "id": w.conflict.pk, "version": v},
        saved=lambda d: (d.allowed, d.allowance_reason),
        sent=lambda n: (False, ""),
        won=302,
        owner_only=True,
    )


def page_approval_decide(w: World) -> Shot:  # the owner approves their own request
    request, run = w.approval(MemberRole.OWNER), w.sealed().report_runs.get()
    return Shot(
        path=reverse("signoff:approvals", kwargs={"pk": w.sealed().pk}),
        row=by_pk(Approval, request.pk),
        send=lambda n, v: {
            "action": "decide",
            "id": request.pk,
            "run": run.pk,
            "decision": "approved",
            "comment": f"#{n}",
            "version": v,
        },
        saved=lambda a: a.comment,
        sent=lambda n: f"#{n}",
        won=302,
        owner_only=True,
    )


def page_approval_withdraw(w: World) -> Shot:  # the viewer's pending request
    request = w.approval(MemberRole.VIEWER)
    return Shot(
        path=reverse("signoff:approvals", kwargs={"pk": w.sealed().pk}),
        row=by_pk(Approval, request.pk),
        send=lambda n, v: {"action": "withdraw", "id": request.pk, "version": v},
        saved=lambda a: a.voided_at is not None,
        sent=lambda n: True,
        won=302,
        owner_only=True,
    )


# API ------------------------------------------------------------------------------------------


def api_evaluation(w: World) -> Shot:
    return Shot(
        path=reverse("evaluations-api:evaluation_detail", kwargs={"pk": w.evaluation.pk}),
        row=by_pk(Evaluation, w.evaluation.pk),
        send=lambda n, v: {"title": f"API race {n}"},
        saved=lambda e: e.title,
        sent=lambda n: f"API race {n}",
        won=200,
    )


def api_main_type(w: World) -> Shot:
    slug = w.volcano.solution.solution_type.slug
    return Shot(
        path=w.url("evaluations-api:type_step"),
        row=by_pk(Evaluation, w.evaluation.pk),
        send=lambda n, v: {"type": slug, "reason": f"API why {n}"},
        saved=lambda e: (e.main_type.slug, e.main_type_reason),
        sent=lambda n: (slug, f"API why {n}"),
        won=200,
    )


def api_context_answer(w: World) -> Shot:  # the answer the page race created
    key = "ray_workloads"
    return Shot(
        path=w.url("evaluations-api:context_answer", question_key=key),
        row=by(ContextAnswer, evaluation=w.evaluation, question__key=key),
        send=lambda n, v: {"value": "no", "detail": f"API #{n}"},
        saved=lambda a: a.detail,
        sent=lambda n: f"API #{n}",
        won=200,
    )


def api_restore(w: World) -> Shot:
    return Shot(
        path=w.url("evaluations-api:candidate_restore", pk=w.cloud.pk),
        row=by_pk(Candidate, w.cloud.pk),
        send=lambda n, v: {},
        saved=lambda c: c.status,
        sent=lambda n: "shortlisted",
        won=200,
    )


def api_eliminate(w: World) -> Shot:
    return Shot(
        path=w.url("evaluations-api:candidate_eliminate", pk=w.cloud.pk),
        row=by_pk(Candidate, w.cloud.pk),
        send=lambda n, v: {"reason": f"API reason {n}"},
        saved=lambda c: (c.status, c.elimination_reason),
        sent=lambda n: ("eliminated", f"API reason {n}"),
        won=200,
    )


def api_answer(w: World) -> Shot:
    question = FiveQuestion.objects.filter(is_active=True).order_by("order")[1]
    return Shot(
        path=w.url(
            "evaluations-api:answer_detail", candidate_pk=w.volcano.pk, question_key=question.key
        ),
        row=by(QuestionAnswer, candidate=w.volcano, question=question),
        send=lambda n, v: {
            "parties": ["vendor"],
            "explanation": f"API #{n}",
            "evidence_url": "",
        },
        saved=lambda a: a.explanation,
        sent=lambda n: f"API #{n}",
        won=200,
    )


def api_decision(w: World) -> Shot:
    return Shot(
        path=w.url("evaluations-api:decision"),
        row=by(Decision, evaluation=w.evaluation),
        send=lambda n, v: {
            "chosen": [w.volcano.pk],
            "rationale": f"API rationale {n}",
            "decided_on": "2027-02-01",
            "decided_by": "Board",
        },
        saved=lambda d: d.rationale,
        sent=lambda n: f"API rationale {n}",
        won=200,
    )


def api_matrix_row(w: World) -> Shot:  # volcano's matrix is empty: exactly one creates the row
    area = w.areas[2]
    return Shot(
        path=w.url("responsibility-api:matrix_row", candidate_pk=w.volcano.pk, area_key=area.key),
        row=by(AreaRow, candidate=w.volcano, area=area),
        send=lambda n, v: {"letters": {w.party.key: letter(n)}, "note": f"API note {n}"},
        saved=lambda r: (r.note, cell_letter(r)),
        sent=lambda n: (f"API note {n}", letter(n)),
        won=201,
    )


def api_matrix_cell(w: World) -> Shot:
    area = w.areas[3]
    return Shot(
        path=w.url(
            "responsibility-api:matrix_cell",
            candidate_pk=w.slurm.pk,
            area_key=area.key,
            party_key=w.party.key,
        ),
        row=by(AreaRow, candidate=w.slurm, area=area),
        send=lambda n, v: {"letter": letter(n)},
        saved=lambda r: Cell.objects.get(row=r, party=w.party).letter,
        sent=letter,
        won=200,
    )


def api_cost_settings(w: World) -> Shot:
    return Shot(
        path=w.url("responsibility-api:cost_settings"),
        row=by(CostSettings, evaluation=w.evaluation),
        send=lambda n, v: {"fte_cost_per_year": str(700000 + n)},
        saved=lambda s: int(s.fte_cost_per_year),
        sent=lambda n: 700000 + n,
        won=200,
    )


def api_cost_input(w: World) -> Shot:
    return Shot(
        path=w.url("responsibility-api:cost_input", candidate_pk=w.slurm.pk),
        row=by(CostInput, candidate=w.slurm),
        send=lambda n, v: {"one_off": str(2000 + n)},
        saved=lambda c: int(c.one_off),
        sent=lambda n: 2000 + n,
        won=200,
    )


def api_plan_case(w: World) -> Shot:
    return Shot(
        path=w.url("poc-api:plan_case", case_pk=w.measured.pk),
        row=by_pk(PlanCase, w.measured.pk),
        send=lambda n, v: {"weight": str(n)},
        saved=lambda c: int(c.weight),
        sent=lambda n: n,
        won=200,
    )


def api_plan_group(w: World) -> Shot:
    return Shot(
        path=w.url("poc-api:plan_group", group_key=w.group.group.key),
        row=by_pk(PlanGroup, w.group.pk),
        send=lambda n, v: {"weight": str(100 + n)},
        saved=lambda g: int(g.weight),
        sent=lambda n: 100 + n,
        won=200,
    )


def api_score(w: World) -> Shot:  # the owner's score the page race created
    return Shot(
        path=w.url("poc-api:score", case_pk=w.measured.pk, candidate_pk=w.slurm.pk),
        row=by(Score, case=w.measured, candidate=w.slurm, reviewer=w.owner),
        send=lambda n, v: {"score": "2", "notes": f"API #{n}"},
        saved=lambda s: s.notes,
        sent=lambda n: f"API #{n}",
        won=200,
        owner_only=True,
    )


def api_consensus(w: World) -> Shot:
    return Shot(
        path=w.url("poc-api:consensus", case_pk=w.measured.pk, candidate_pk=w.slurm.pk),
        row=by(Consensus, case=w.measured, candidate=w.slurm),
        send=lambda n, v: {"score": "4", "reason": f"API agreed {n}"},
        saved=lambda c: c.reason,
        sent=lambda n: f"API agreed {n}",
        won=200,
        owner_only=True,
    )


def api_declare(w: World) -> Shot:  # the owner's declaration the page race changed
    return Shot(
        path=w.url("poc-api:conflict_mine", candidate_pk=w.volcano.pk),
        row=by(ConflictDeclaration, candidate=w.volcano, member=w.owner),
        send=lambda n, v: {"has_conflict": True, "description": f"API #{n}"},
        saved=lambda d: d.description,
        sent=lambda n: f"API #{n}",
        won=200,
        owner_only=True,
    )


def api_allow(w: World) -> Shot:  # the page race revoked it
    return Shot(
        path=w.url("poc-api:conflict_allow", declaration_pk=w.conflict.pk),
        row=by_pk(ConflictDeclaration, w.conflict.pk),
        send=lambda n, v: {"reason": f"API #{n}"},
        saved=lambda d: d.allowance_reason,
        sent=lambda n: f"API #{n}",
        won=200,
        owner_only=True,
    )


def api_revoke(w: World) -> Shot:
    return Shot(
        path=w.url("poc-api:conflict_revoke", declaration_pk=w.conflict.pk),
        row=by_pk(ConflictDeclaration, w.conflict.pk),
        send=lambda n, v: {},
        saved=lambda d: d.allowed,
        sent=lambda n: False,
        won=200,
        owner_only=True,
    )


def api_approval_decide(w: World) -> Shot:  # the owner changes the decision the page race made
    request, run = w.approval(MemberRole.OWNER), w.sealed().report_runs.get()
    return Shot(
        path=reverse(
            "signoff-api:approval_decide",
            kwargs={"evaluation_pk": w.sealed().pk, "approval_pk": request.pk},
        ),
        row=by_pk(Approval, request.pk),
        send=lambda n, v: {
            "decision": "rejected",
            "run": run.pk,
            "comment": f"API #{n}",
            "change": True,
        },
        saved=lambda a: a.comment,
        sent=lambda n: f"API #{n}",
        won=200,
        owner_only=True,
    )


def api_approval_withdraw(
    w: World,
) -> Shot:  # a new request for the reviewer (theirs was withdrawn)
    from signoff.services import approval_request

    request = approval_request(
        user=w.owner, evaluation=w.sealed(), approver=w.people[MemberRole.REVIEWER], role="QA"
    )
    return Shot(
        path=reverse(
            "signoff-api:approval_withdraw",
            kwargs={"evaluation_pk": w.sealed().pk, "approval_pk": request.pk},
        ),
        row=by_pk(Approval, request.pk),
        send=lambda n, v: {},
        saved=lambda a: a.voided_at is not None,
        sent=lambda n: True,
        won=200,
        owner_only=True,
    )


def page_test_bed(w: World) -> Shot:  # nobody recorded Slurm's test bed: one creates it
    return Shot(
        path=w.url("poc:testbeds"),
        row=by(TestBed, candidate=w.slurm),
        send=lambda n, v: {
            "candidate": w.slurm.pk,
            "accelerator_model": "Ascend 910B",
            "notes": f"#{n}",
            "version": v,
        },
        saved=lambda b: b.notes,
        sent=lambda n: f"#{n}",
        won=302,
    )


def page_claim_edit(w: World) -> Shot:  # a catalog claim, edited in place by its admins
    w.owner.user_permissions.add(Permission.objects.get(codename="change_capabilityclaim"))
    claim = CapabilityClaim.objects.get(solution__slug="slurm", capability__slug="backfill")
    keys = ", ".join(claim.sources.values_list("key", flat=True))
    return Shot(
        path=reverse("catalog:claim_edit", args=["slurm", "backfill"]),
        row=by_pk(CapabilityClaim, claim.pk),
        send=lambda n, v: {
            "level": claim.level,
            "as_of_version": claim.as_of_version,
            "sources": keys,
            "note_en": f"Race {n}",
            "note_zh_hans": f"竞争 {n}",
            "version": v,
        },
        saved=lambda c: c.note_en,
        sent=lambda n: f"Race {n}",
        won=302,
        owner_only=True,
    )


def api_test_bed(w: World) -> Shot:  # the test bed the page race created
    return Shot(
        path=w.url("poc-api:test_bed", candidate_pk=w.slurm.pk),
        row=by(TestBed, candidate=w.slurm),
        send=lambda n, v: {"accelerator_count": 8, "notes": f"API #{n}"},
        saved=lambda b: b.notes,
        sent=lambda n: f"API #{n}",
        won=200,
    )


# In this order: some races start from the state an earlier one left (the cloud candidate is
# restored, eliminated, restored and eliminated again; the API updates rows the pages created).
RACES = [
    Race("page", "catalog:claim_edit", "", page_claim_edit, catalog_forms.ClaimEditForm),
    Race("page", "evaluations:evaluation_edit", "", page_evaluation_edit, ev_forms.EvaluationForm),
    Race(
        "page",
        "evaluations:evaluation_shortlist",
        "type",
        page_main_type,
        ev_forms.TypeDecisionForm,
    ),
    Race(
        "page",
        "evaluations:context_answer_save",
        "",
        page_context_answer,
        ev_forms.ContextAnswerForm,
    ),
    Race(
        "page",
        "evaluations:evaluation_shortlist",
        "restore",
        page_restore,
        ev_forms.RestoreCandidateForm,
    ),
    Race(
        "page",
        "evaluations:evaluation_shortlist",
        "eliminate",
        page_eliminate,
        ev_forms.EliminateCandidateForm,
    ),
    Race("page", "evaluations:answer_save", "", page_answer, ev_forms.AnswerForm),
    Race("page", "evaluations:evaluation_decision", "", page_decision, ev_forms.DecisionForm),
    Race("page", "responsibility:matrix_save", "", page_matrix_cell, resp_forms.MatrixCellForm),
    Race("page", "responsibility:matrix_save", "", page_matrix_row, resp_forms.MatrixRowForm),
    Race("page", "responsibility:costs", "", page_cost_settings, resp_forms.CostSettingsForm),
    Race("page", "responsibility:costs", "", page_cost_input, resp_forms.CostInputForm),
    Race("page", "poc:plan", "case_weight", page_case_weight, poc_forms.WeightForm),
    Race("page", "poc:plan", "group_weight", page_group_weight, poc_forms.WeightForm),
    Race("page", "poc:cell", "", page_score, poc_forms.ScoreForm),
    Race("page", "poc:cell", "", page_consensus, poc_forms.ConsensusForm),
    Race("page", "poc:conflicts", "declare", page_declare, coi_forms.DeclarationsForm),
    Race("page", "poc:conflicts", "allow", page_allow, coi_forms.AllowanceForm),
    Race("page", "poc:conflicts", "revoke", page_revoke, coi_forms.RevokeForm),
    Race("page", "poc:testbeds", "", page_test_bed, poc_testbed_forms.TestBedForm),
    Race("page", "signoff:approvals", "decide", page_approval_decide, signoff_forms.DecideForm),
    Race(
        "page", "signoff:approvals", "withdraw", page_approval_withdraw, signoff_forms.WithdrawForm
    ),
    Race("api", "evaluations-api:evaluation_detail", "PATCH", api_evaluation),
    Race("api", "evaluations-api:type_step", "PUT", api_main_type),
    Race("api", "evaluations-api:context_answer", "PUT", api_context_answer),
    Race("api", "evaluations-api:candidate_restore", "POST", api_restore),
    Race("api", "evaluations-api:candidate_eliminate", "POST", api_eliminate),
    Race("api", "evaluations-api:answer_detail", "PUT", api_answer),
    Race("api", "evaluations-api:decision", "PUT", api_decision),
    Race("api", "responsibility-api:matrix_row", "PUT", api_matrix_row),
    Race("api", "responsibility-api:matrix_cell", "PUT", api_matrix_cell),
    Race("api", "responsibility-api:cost_settings", "PUT", api_cost_settings),
    Race("api", "responsibility-api:cost_input", "PUT", api_cost_input),
    Race("api", "poc-api:plan_case", "PATCH", api_plan_case),
    Race("api", "poc-api:plan_group", "PATCH", api_plan_group),
    Race("api", "poc-api:score", "PUT", api_score),
    Race("api", "poc-api:consensus", "PUT", api_consensus),
    Race("api", "poc-api:conflict_mine", "PUT", api_declare),
    Race("api", "poc-api:conflict_allow", "POST", api_allow),
    Race("api", "poc-api:conflict_revoke", "POST", api_revoke),
    Race("api", "poc-api:test_bed", "PUT", api_test_bed),
    Race("api", "signoff-api:approval_decide", "POST", api_approval_decide),
    Race("api", "signoff-api:approval_withdraw", "POST", api_approval_withdraw),
]

# Page writes that name no version, and why: a race on them has no version to be stale.
UNVERSIONED_PAGE_WRITES = {
    ("evaluations:evaluation_create", ""): "creates a new evaluation",
    ("evaluations:evaluation_detail", ""): "moves the status, checked against the saved one",
    ("evaluations:evaluation_shortlist", "accept"): "adds candidates (one per solution)",
    ("evaluations:evaluation_shortlist", "add"): "adds a candidate (one per solution)",
    ("evaluations:evaluation_shortlist", "stack"): "composes a stack (one per name)",
    ("evaluations:evaluation_shortlist", "waive"): "adds a waiver (one per candidate and rule)",
    ("evaluations:evaluation_shortlist", "unwaive"): "withdraws a waiver",
    ("evaluations:evaluation_members", "add"): "adds a member (one membership per user)",
    ("signoff:approvals", "request"): "names an approver (one active request per member)",
    ("evaluations:evaluation_members", "role"): "sets a role (memberships carry no version)",
    ("evaluations:evaluation_members", "remove"): "removes a member",
    ("responsibility:matrices", ""): "adds a party",
    ("responsibility:matrix", ""): "fills only the areas nobody has saved",
    ("poc:plan", "init"): "adds the library's cases not in the plan yet",
    ("poc:plan", "library"): "adds a case (once per library case)",
    ("poc:plan", "custom"): "adds an own case",
    ("poc:plan", "remove"): "removes a case",
    ("poc:plan", "profile"): "sets every group weight to a scenario profile's",
    ("poc:verify_capability", ""): "adds the case that verifies a capability",
    ("poc:scorecard", ""): "submits my drafts",
    ("poc:evidence_upload", ""): "adds a file",
    ("poc:imports", "preview"): "saves nothing (a dry run)",
    ("catalog:bundle", "preview"): "keeps the uploaded file and shows its diff (a dry run)",
    ("catalog:bundle", "apply"): "checks the catalog against the state the preview showed (a "
    "fingerprint, not a version field) and refuses the whole bundle when it changed",
    ("poc:imports", "apply"): "checks the previewed versions of my scores (a fingerprint, not a "
    "version field) and refuses the whole file when one changed",
    ("reports:report_list", ""): "requests a report",
    ("portable:evaluation_import", ""): "creates a new evaluation from an archive",
}


# API writes that take a `version` they do not use, and why.
UNVERSIONED_API_WRITES = {
    ("api", "evaluations-api:evaluation_list", "POST"): "creates an evaluation: the version of "
    "the body it shares with PATCH is ignored",
}


# --- finding every versioned write ---------------------------------------------------------------


def page_writes(resolver=None, namespace="") -> set[tuple[str, str]]:
    """(URL name, action) of every page write in the URLconf: each view built on PageAction,
    and each action of an ActionRouter page."""
    found = set()
    for entry in (resolver or get_resolver()).url_patterns:
        if isinstance(entry, URLResolver):
            if not str(entry.pattern).startswith(("api/", "admin/")):
                inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
                found |= page_writes(entry, inner)
            continue
        view = getattr(entry.callback, "view_class", None)
        if not (isinstance(entry, URLPattern) and view and issubclass(view, PageAction)):
            continue
        name = f"{namespace}{entry.name}"
        if issubclass(view, ActionRouter):
            found |= {(name, action) for action in view.actions}
        else:
            found.add((name, ""))
    return found


def versioned_forms() -> set[type[forms.BaseForm]]:
    """Every form of the project that carries a VersionField (the bases other forms extend left
    out): each is the input of a versioned page write."""

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    get_resolver().url_patterns  # noqa: B018 - the URLconf imports every view and form
    found = {
        cls
        for cls in subclasses(forms.BaseForm)
        if cls.__module__.split(".")[0] in PROJECT_APPS
        and (
            any(isinstance(f, VersionField) for f in cls.base_fields.values())
            or getattr(cls, "versioned_rows", False)  # a version per row (common.forms)
        )
    }
    return {c for c in found if not any(o is not c and issubclass(o, c) for o in found)}


def versioned_api_writes(schema: dict) -> set[tuple[str, str, str]]:
    """("api", URL name, method) of every operation of the OpenAPI schema that documents 428
    (a precondition is required) or takes a `version` in its body."""
    components = schema["components"]["schemas"]

    def takes_version(operation) -> bool:
        for media in operation.get("requestBody", {}).get("content", {}).values():
            body = media["schema"]
            if "$ref" in body:
                body = components[body["$ref"].rsplit("/", 1)[-1]]
            if "version" in body.get("properties", {}):
                return True
        return False

    found = set()
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            if method in ("get", "head", "options", "parameters"):
                continue
            if "428" in operation["responses"] or takes_version(operation):
                name = resolve(re.sub(r"\{[^}]+\}", "1", path)).view_name
                found.add(("api", name, method.upper()))
    return found


def test_every_versioned_write_has_a_race(client, owner):
    """A new versioned write fails here until it has a race below (or, for a page write that
    names no version, a line in UNVERSIONED_PAGE_WRITES saying why)."""
    raced = {race.key for race in RACES}
    assert len(RACES) == len({(r.key, r.form) for r in RACES}), "a race is listed twice"

    pages = page_writes()
    raced_pages = {(route, how) for surface, route, how in raced if surface == "page"}
    assert not raced_pages & set(UNVERSIONED_PAGE_WRITES)
    assert pages == raced_pages | set(UNVERSIONED_PAGE_WRITES), (
        "page writes without a race:",
        sorted(pages - raced_pages - set(UNVERSIONED_PAGE_WRITES)),
        "races or exceptions of no page write:",
        sorted((raced_pages | set(UNVERSIONED_PAGE_WRITES)) - pages),
    )
    forms_raced = {race.form for race in RACES if race.surface == "page"}
    assert versioned_forms() == forms_raced, (
        "versioned forms without a race:",
        sorted(f.__name__ for f in versioned_forms() - forms_raced),
    )

    client.force_login(owner)
    schema = client.get("/api/schema/", {"format": "json"}).json()
    api = versioned_api_writes(schema)
    raced_api = {key for key in raced if key[0] == "api"}
    assert not raced_api & set(UNVERSIONED_API_WRITES)
    assert api == raced_api | set(UNVERSIONED_API_WRITES), (
        "API writes without a race:",
        sorted(api - raced_api - set(UNVERSIONED_API_WRITES)),
        "races or exceptions of no versioned API write:",
        sorted((raced_api | set(UNVERSIONED_API_WRITES)) - api),
    )


# --- the races -----------------------------------------------------------------------------------


class FormsSeen:
    """Which forms the page writes parsed: PageAction asks `version_missing` about each."""

    def __init__(self, original):
        self.original, self.seen, self.lock = original, set(), threading.Lock()

    def __call__(self, form):
        with self.lock:
            self.seen.add(type(form))
        return self.original(form)


def signed_in(users: list) -> list[str]:
    """THREADS session keys, one per thread, taking turns among `users`: each user signs in once
    (force_login) and each thread gets a session of its own holding the same sign-in."""
    engine = import_module(settings.SESSION_ENGINE)
    sign_ins = []
    for user in users:
        client = Client()
        client.force_login(user)
        sign_ins.append(dict(client.session.items()))
    keys = []
    for n in range(THREADS):
        session = engine.SessionStore()
        session.update(sign_ins[n % len(users)])
        session.create()
        keys.append(session.session_key)
    return keys


def clients(surface: str, keys: list[str]) -> list:
    """One client per thread (pages: Django's test client; API: DRF's), signed in."""
    made = []
    for key in keys:
        client = Client() if surface == "page" else APIClient()
        client.cookies[settings.SESSION_COOKIE_NAME] = key
        made.append(client)
    return made


def fire(race: Race, shot: Shot, pool: list, version: int) -> list:
    """Every thread sends at once; returns each thread's status (or the exception it met)."""
    outcome: list = [None] * THREADS
    start = threading.Barrier(THREADS)

    def send(n):
        try:
            body, extra = shot.send(n, version), {}
            if race.surface == "api" and n % 2:  # half name the version in the body…
                body = {**body, "version": version}
            elif race.surface == "api":  # …half as If-Match
                extra["HTTP_IF_MATCH"] = f'"{version}"'
            if shot.htmx:
                extra["HTTP_HX_REQUEST"] = "true"
            start.wait(timeout=60)
            if race.surface == "page":
                response = pool[n].post(shot.path, body, **extra)
            else:
                method = getattr(pool[n], race.how.lower())
                response = method(shot.path, body, format="json", **extra)
            outcome[n] = response.status_code
        except Exception as exc:  # noqa: BLE001 - reported with the race
            outcome[n] = f"{type(exc).__name__}: {exc}"
        finally:
            connection.close()

    threads = [threading.Thread(target=send, args=(n,), daemon=True) for n in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    for n, t in enumerate(threads):
        if t.is_alive():
            outcome[n] = "still waiting after 120 s (a deadlock?)"
    return outcome


def run(race: Race, w: World, pools: dict, seen: FormsSeen) -> list[str]:
    """One race; returns what went wrong (nothing: exactly one won and the rest were stale)."""
    shot = race.build(w)
    pool, users = pools[race.surface, shot.owner_only]
    match = resolve(shot.path)
    assert match.view_name == race.route, (race, match.view_name)
    before = shot.row()
    if race.surface == "page" and issubclass(match.func.view_class, ActionRouter):
        assert shot.send(0, 0)["action"] == race.how, race
    version = before.version if before else 0
    records = set(before.history.values_list("history_id", flat=True)) if before else set()
    seen.seen.clear()

    outcome = fire(race, shot, pool, version)

    problems = []
    stale = {n: 412 if race.surface == "api" and n % 2 == 0 else 409 for n in range(THREADS)}
    winners = [n for n, status in enumerate(outcome) if status == shot.won]
    if len(winners) != 1:
        problems.append(f"{len(winners)} saves answered {shot.won}, not exactly one")
    odd = {n: s for n, s in enumerate(outcome) if n not in winners and s != stale[n]}
    if odd:
        problems.append(f"answers other than {shot.won} or stale: {sorted(odd.items())[:5]}")
    after = shot.row()
    if after is None:
        problems.append("nothing saved")
    elif after.version != version + 1:
        problems.append(f"version {version} became {after.version}, not {version + 1}")
    if after is not None and len(winners) == 1:
        winner = winners[0]
        if shot.saved(after) != shot.sent(winner):
            problems.append(f"saved {shot.saved(after)!r}, the winner sent {shot.sent(winner)!r}")
        # The history holds the winner's save and nothing else (a many-to-many change adds
        # records of its own, so count authors and versions, not records).
        new = after.history.exclude(history_id__in=records)
        authors = set(new.values_list("version", "history_user"))
        if authors != {(version + 1, users[winner % len(users)].pk)}:
            problems.append(f"history after the race: {sorted(authors)} (version, author)")
    if race.surface == "page" and seen.seen != {race.form}:
        problems.append(f"the view parsed {seen.seen}, not {race.form}")
    return [f"{race}: {p}" for p in problems]


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_of_50_parallel_saves_of_one_row_exactly_one_wins(owner, people, monkeypatch):
    if connection.vendor != "postgresql":
        if IN_CI:
            pytest.fail("CI must run this on PostgreSQL")
        pytest.skip("row locks need PostgreSQL (SQLite serialises the whole database)")
    seen = FormsSeen(common.views.version_missing)
    monkeypatch.setattr(common.views, "version_missing", seen)
    w = World.of(make_everything(owner, people), people)
    pools = {}
    for owner_only in (False, True):
        users = [w.owner] if owner_only else [w.owner, w.editor]
        keys = signed_in(users)
        for surface in ("page", "api"):
            pools[surface, owner_only] = clients(surface, keys), users
    problems = []
    for race in RACES:
        problems += run(race, w, pools, seen)
    assert not problems, "\n".join(problems)
