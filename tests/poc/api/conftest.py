"""The POC API tests' fixture: two candidates on an initialised plan, two reviewers who
declared no conflicts."""

import pytest

from common import roles
from evaluations.models import MemberRole
from poc import services
from tests.conftest import make_user
from tests.factories import (
    add_candidates,
    add_member,
    declare_none,
)


@pytest.fixture
def poc(evaluation, owner, people):
    slurm, volcano = add_candidates(evaluation, owner, "slurm", "volcano")
    services.plan_init(user=owner, evaluation=evaluation)
    second = make_user(roles.REVIEWER, username="rev2")
    add_member(evaluation, second, MemberRole.REVIEWER)
    declare_none(evaluation, owner, people[MemberRole.EDITOR], people[MemberRole.REVIEWER], second)
    return {
        "slurm": slurm,
        "volcano": volcano,
        "case": evaluation.poc_cases.get(source_case__key="gang_under_contention"),
        "latency": evaluation.poc_cases.get(source_case__key="preemption_latency"),
        "r1": people[MemberRole.REVIEWER],
        "r2": second,
    }
