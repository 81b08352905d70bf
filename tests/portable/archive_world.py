"""The evaluation every archive test exports: every kind of row a user can create, and how
to read an archive and the stored files back."""

import io
import json
import zipfile
from decimal import Decimal

from django.core.files.storage import default_storage

from catalog.models import Capability, CapabilityClaim, Solution
from evaluations import services as ev
from evaluations.models import (
    CandidateStatus,
    Constraint,
    ConstraintWaiver,
    Evaluation,
    MemberRole,
)
from poc.imports import services as measurement_imports
from poc.testbeds import bed_save
from poc.testbeds.comparable import equivalence_declare
from portable.archive import PARTS, evaluation_export
from responsibility.models import Party
from responsibility.support.services import support_term_save
from tests.factories import (
    SolutionFactory,
    _approvals,
    answer_all,
    compose_stack,
    finished_report,
    follow_method,
    make_everything,
)


def waive_one(evaluation, owner) -> ConstraintWaiver:
    """A candidate whose solution cannot be deployed privately, and the owner's waiver of the
    private-deployment constraint the evaluation carries for it."""
    solution = SolutionFactory(solution_type=Solution.objects.get(slug="slurm").solution_type)
    CapabilityClaim.objects.create(
        solution=solution,
        capability=Capability.objects.get(slug="private-deployment"),
        level="none",
    )
    candidate = ev.candidate_add(
        user=owner, evaluation=evaluation, solution=solution, reason="Under test."
    )
    return ev.constraint_waive(
        user=owner,
        candidate=candidate,
        constraint=Constraint.objects.get(key="private_deployment"),
        reason="A private cloud region counts for us.",
    )


def make_all_kinds(owner, people) -> Evaluation:
    """make_everything, plus what it leaves out: a stack, a waiver, a support term, a test bed, a
    measurement import, two report runs with PDFs and the approvals of a sealed evaluation."""
    evaluation = make_everything(owner, people)
    reviewer = people[MemberRole.REVIEWER]
    compose_stack(
        evaluation,
        owner,
        "Queue + platform",
        "governance",
        batch_queue="volcano",
        governance="runai",
    )
    waive_one(evaluation, owner)
    slurm = evaluation.candidates.get(solution__slug="slurm", stack_name="")
    support_term_save(
        user=owner,
        candidate=slurm,
        term="p1_response",
        expected_version=0,
        amount=Decimal("2"),
        source="Support contract, clause 4",
    )
    bed_save(
        user=owner,
        candidate=slurm,
        expected_version=0,
        product_version="Slurm 24.05",
        accelerator_vendor="Huawei",
        accelerator_model="Ascend 910B",
        accelerator_count=16,
        nodes=2,
    )
    other = (
        evaluation.candidates.filter(status=CandidateStatus.SHORTLISTED)
        .exclude(pk=slurm.pk)
        .first()
    )
    bed_save(
        user=owner,
        candidate=other,
        expected_version=0,
        accelerator_vendor="NVIDIA",
        accelerator_model="A800",
        accelerator_count=16,
        nodes=2,
    )
    equivalence_declare(
        user=owner, evaluation=evaluation, first=slurm, second=other, reason="Same throughput."
    )
    result = measurement_imports.run(
        user=reviewer,
        evaluation=evaluation,
        name="m.csv",
        content=b"candidate,case,value,unit,run_id,measured_at,tool\n"
        b"Slurm,preemption_latency,42.5,s,run-1,2026-11-02T10:15:00+08:00,bench.py\n",
        apply=True,
    )
    assert result.applied, result.errors
    finished_report(evaluation, owner, language="zh-hans", content=b"%PDF-1.4 zh")
    for candidate in evaluation.candidates.filter(status=CandidateStatus.SHORTLISTED):
        if not candidate.answers.exists():
            answer_all(candidate, owner)
    follow_method(evaluation, owner, chosen=[slurm])
    ev.evaluation_transition(user=owner, evaluation=evaluation, to_status="decided", reason="Ok")
    _approvals(evaluation, owner, people)
    evaluation.refresh_from_db()
    return evaluation


def export_bytes(evaluation) -> bytes:
    buffer = io.BytesIO()
    evaluation_export(evaluation, buffer)
    return buffer.getvalue()


def contents(data: bytes) -> tuple[bytes, dict]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        manifest = json.loads(z.read("manifest.json"))
        return z.read("evaluation.json"), manifest


def counts() -> dict[str, int]:
    counted = {p.label: p.model.objects.count() for p in PARTS if p.model is not Party}
    counted["own parties"] = Party.objects.filter(evaluation__isnull=False).count()
    return counted


def stored_files() -> set[str]:
    found = set()

    def walk(folder):
        dirs, files = default_storage.listdir(folder)
        found.update(f"{folder}/{f}".lstrip("/") for f in files)
        for d in dirs:
            walk(f"{folder}/{d}".lstrip("/"))

    walk("")
    return found
