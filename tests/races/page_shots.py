"""The page saves raced, one shot per versioned page write."""

from __future__ import annotations

from django.contrib.auth.models import Permission
from django.urls import reverse

from catalog.models import CapabilityClaim
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
from tests.races.world import Shot, World, by, by_pk, letter, open_high_key


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


def page_acknowledge(w: World) -> Shot:  # an open high reminder: exactly one acknowledges it
    key = open_high_key(w)
    return Shot(
        path=w.url("evaluations:reminder_acknowledge"),
        row=by(ReminderAcknowledgement, evaluation=w.evaluation, key=key),
        send=lambda n, v: {"key": key, "reason": f"Accepted {n}", "version": v},
        saved=lambda a: a.reason,
        sent=lambda n: f"Accepted {n}",
        won=302,
        owner_only=True,
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


def page_support_term(w: World) -> Shot:  # nobody recorded Slurm's P1 response: one creates it
    return Shot(
        path=w.url("responsibility:support"),
        row=by(SupportTerm, candidate=w.slurm, term="p1_response"),
        send=lambda n, v: {
            "candidate": w.slurm.pk,
            "term": "p1_response",
            "amount": str(n + 1),
            "source_kind": "contract",
            "source": f"Clause {n}",
            "version": v,
        },
        saved=lambda t: t.source,
        sent=lambda n: f"Clause {n}",
        won=302,
    )
