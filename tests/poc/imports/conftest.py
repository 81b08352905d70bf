"""The measurement-import tests' fixture: three candidates on a plan, reviewers cleared to
score."""

import pytest

from common import roles
from evaluations.models import MemberRole
from poc import services
from poc.models import TestGroup
from tests.conftest import make_user
from tests.factories import add_candidates, add_member, declare_none


@pytest.fixture
def poc(evaluation, owner, people):
    slurm, volcano, _runai = add_candidates(evaluation, owner, "slurm", "volcano", "runai")
    services.plan_init(user=owner, evaluation=evaluation)
    second = make_user(roles.REVIEWER, username="rev2")
    add_member(evaluation, second, MemberRole.REVIEWER)
    declare_none(evaluation, owner, people[MemberRole.REVIEWER], second)
    own = services.plan_case_add_custom(
        user=owner,
        evaluation=evaluation,
        group=TestGroup.objects.order_by("order").first(),
        title="Own start time",
        acceptance="Fast.",
        metric_unit="s",
        metric_direction="lower",
        metric_threshold="30",
    )
    return {
        "e": evaluation,
        "slurm": slurm,
        "volcano": volcano,
        "latency": evaluation.poc_cases.get(source_case__key="preemption_latency"),
        "plain": evaluation.poc_cases.get(source_case__key="queue_priority_backfill"),
        "own": own,
        "r1": people[MemberRole.REVIEWER],
        "r2": second,
    }
