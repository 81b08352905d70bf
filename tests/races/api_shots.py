"""The API writes raced, one shot per versioned API write."""

from __future__ import annotations

from django.urls import reverse

from evaluations.models import (
    Candidate,
    ContextAnswer,
    Decision,
    Evaluation,
    FiveQuestion,
    MemberRole,
    QuestionAnswer,
    ReminderAcknowledgement,
)
from poc.models import ConflictDeclaration, Consensus, PlanCase, PlanGroup, Score, TestBed
from responsibility.models import AreaRow, Cell, CostInput, CostSettings
from responsibility.support.models import SupportTerm
from signoff.models import Approval
from tests.races.world import Shot, World, by, by_pk, cell_letter, letter


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


def api_acknowledge(w: World) -> Shot:  # the acknowledgement the page race made
    ack = ReminderAcknowledgement.objects.filter(evaluation=w.evaluation).first()
    return Shot(
        path=w.url("evaluations-api:acknowledgement_detail", key=ack.key),
        row=by_pk(ReminderAcknowledgement, ack.pk),
        send=lambda n, v: {"reason": f"API accepted {n}"},
        saved=lambda a: a.reason,
        sent=lambda n: f"API accepted {n}",
        won=200,
        owner_only=True,
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


def api_test_bed(w: World) -> Shot:  # the test bed the page race created
    return Shot(
        path=w.url("poc-api:test_bed", candidate_pk=w.slurm.pk),
        row=by(TestBed, candidate=w.slurm),
        send=lambda n, v: {"accelerator_count": 8, "notes": f"API #{n}"},
        saved=lambda b: b.notes,
        sent=lambda n: f"API #{n}",
        won=200,
    )


def api_support_term(w: World) -> Shot:  # the support term the page race created
    return Shot(
        path=w.url("responsibility-api:support_term", candidate_pk=w.slurm.pk, term="p1_response"),
        row=by(SupportTerm, candidate=w.slurm, term="p1_response"),
        send=lambda n, v: {"amount": "6", "source_kind": "contract", "source": f"API {n}"},
        saved=lambda t: t.source,
        sent=lambda n: f"API {n}",
        won=200,
    )


# In this order: some races start from the state an earlier one left (the cloud candidate is
# restored, eliminated, restored and eliminated again; the API updates rows the pages created).
