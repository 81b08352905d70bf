"""What the evaluations API tests share: an API client, URLs, and an evaluation brought to
its decision."""

import datetime

from rest_framework.test import APIClient

from evaluations import services
from evaluations.models import MemberRole
from tests.factories import add_candidates, answer_all, follow_method

READERS = [MemberRole.OWNER, MemberRole.EDITOR, MemberRole.REVIEWER, MemberRole.VIEWER]
EDITORS = [MemberRole.OWNER, MemberRole.EDITOR]
READ_ONLY = [MemberRole.REVIEWER, MemberRole.VIEWER]


def client_for(user=None) -> APIClient:
    client = APIClient()
    client.default_format = "json"
    if user is not None:
        client.force_authenticate(user)
    return client


def signed_in(api, user):
    api.force_authenticate(user)
    return api


def url(evaluation, rest=""):
    return f"/api/evaluations/{evaluation.pk}/{rest}"


def complete_evaluation(evaluation, owner):
    """Every shortlisted candidate answered and a complete decision record."""
    slurm, volcano = add_candidates(evaluation, owner, "slurm", "volcano")
    answer_all(slurm, owner)
    answer_all(volcano, owner)
    services.decision_save(
        user=owner,
        evaluation=evaluation,
        chosen=[slurm],
        rationale="The HPC team already runs batch queues.",
        decided_on=datetime.date(2026, 11, 30),
        decided_by="Architecture board",
        expected_version=None,
    )
    return slurm, volcano


def decide(evaluation, owner):
    complete_evaluation(evaluation, owner)
    services.evaluation_transition(user=owner, evaluation=evaluation, to_status="poc")
    follow_method(evaluation, owner)
    return services.evaluation_transition(user=owner, evaluation=evaluation, to_status="decided")
