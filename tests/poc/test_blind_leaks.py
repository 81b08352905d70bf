"""Blind scoring on every route that shows something derived from others' scores: a member who
has not scored a cell learns nothing about it (no disagreement mark or reminder, no consensus
reason, no value), while the owner, viewers and the reviewers who scored it see everything."""

import pytest
from django.urls import reverse

from common import roles
from evaluations.models import MemberRole
from poc import services
from tests.conftest import make_user
from tests.factories import add_candidates, add_member, declare_none

pytestmark = pytest.mark.django_db

REASON = "MARKER-consensus-reason-7f3"


@pytest.fixture
def split(evaluation, owner, people):
    """Two reviewers scored two cells far apart; the owner settled one of them."""
    slurm, _volcano = add_candidates(evaluation, owner, "slurm", "volcano")
    services.plan_init(user=owner, evaluation=evaluation)
    first, second = evaluation.poc_cases.order_by("pk")[:2]
    scorers = [people[MemberRole.REVIEWER], make_user(roles.REVIEWER, username="rev2")]
    add_member(evaluation, scorers[1], MemberRole.REVIEWER)
    declare_none(evaluation, owner, people[MemberRole.EDITOR], *scorers)
    for scorer, value in zip(scorers, ("0.5", "5"), strict=True):
        for case in (first, second):
            services.score_save(
                user=scorer, case=case, candidate=slurm, score=value, expected_version=None
            )
        services.scores_submit(user=scorer, evaluation=evaluation)
    services.consensus_record(
        user=owner, case=second, candidate=slurm, score="3", reason=REASON, expected_version=None
    )
    return first, second, slurm


def visible_routes(evaluation, first, slurm):
    pk = evaluation.pk
    return [
        reverse("home"),
        reverse("evaluations:evaluation_detail", args=[pk]),
        reverse("poc:scorecard", args=[pk]),
        f"/api/evaluations/{pk}/reminders/",
        "/api/evaluations/?limit=5",
    ]


def test_a_member_who_has_not_scored_learns_nothing(client, evaluation, people, split):
    first, second, slurm = split
    editor = people[MemberRole.EDITOR]  # may score, has not
    client.force_login(editor)
    for path in visible_routes(evaluation, first, slurm):
        body = client.get(path).content.decode()
        assert REASON not in body, path
        assert "1.5 points or more apart" not in body, path
        assert "poc-disagreements" not in body, path
    scorecard = client.get(reverse("poc:scorecard", args=[evaluation.pk])).content.decode()
    assert f'id="cell-{first.pk}-{slurm.pk}"' in scorecard
    cell = scorecard.split(f'id="cell-{first.pk}-{slurm.pk}"', 1)[1].split("</td>", 1)[0]
    assert "disagree" not in scorecard.split(f'id="cell-{first.pk}-{slurm.pk}"', 1)[0][-200:]
    assert "hidden" in cell
    # the htmx fragment of a cell after a draft save of my own says no more
    fragment = client.post(
        reverse("poc:cell", args=[evaluation.pk, second.pk, slurm.pk]),
        {"score": "2", "outcome": "not_run", "version": 0},
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert REASON not in fragment and "disagree" not in fragment.split(">", 1)[0]


def test_the_owner_viewers_and_the_scorers_see_it(client, evaluation, people, split):
    for user in (people[MemberRole.OWNER], people[MemberRole.VIEWER], people[MemberRole.REVIEWER]):
        client.force_login(user)
        detail = client.get(reverse("evaluations:evaluation_detail", args=[evaluation.pk]))
        assert "1.5 points or more apart" in detail.content.decode(), user
        scorecard = client.get(reverse("poc:scorecard", args=[evaluation.pk])).content.decode()
        assert REASON in scorecard and "pcell disagree" in scorecard, user
