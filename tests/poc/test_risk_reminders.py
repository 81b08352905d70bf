"""Seed risk "the POC tests normal tasks only, not upgrades and failures", as a table: each row
builds a situation through the services and says which of its reminders fire for whom.

    poc-happy-path-only         the plan has no abnormal and long-running case
    poc-abnormal-underweighted  that group carries < ABNORMAL_MIN_SHARE (20 %) of the weight
    poc-abnormal-unscored       a candidate scored elsewhere (or the POC is over) has no score
                                on any of its cases, as the reader may see scores
"""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import translation

from common import roles
from evaluations.models import MemberRole, StatusStamp
from evaluations.reminders import reminders_for
from evaluations.rows import evaluation_list_queryset, evaluation_rows
from evaluations.selectors import evaluation_data
from poc import services
from poc.models import TestCase, TestGroup
from poc.reminders import ABNORMAL_MIN_SHARE
from tests.conftest import make_user
from tests.factories import (
    add_candidates,
    add_member,
    declare_none,
    make_evaluation,
    make_everything,
)

pytestmark = pytest.mark.django_db

KEYS = ("poc-happy-path-only", "poc-abnormal-underweighted", "poc-abnormal-unscored")
ABNORMAL = "abnormal_long_running"


def small_plan(evaluation, owner):
    """Two library cases per group (fast to build), at the seeded group weights."""
    for group in TestGroup.objects.all():
        for case in TestCase.objects.filter(group=group, is_active=True)[:2]:
            services.plan_case_add_library(user=owner, evaluation=evaluation, case=case)


@pytest.fixture
def world(evaluation, owner, people):
    """Two candidates, a small plan at the seeded group weights (every seeded profile gives the
    abnormal and long-running group 25 % or more), a second reviewer. Nothing scored."""
    slurm, volcano = add_candidates(evaluation, owner, "slurm", "volcano")
    small_plan(evaluation, owner)
    second = make_user(roles.REVIEWER, username="rev2")
    add_member(evaluation, second, MemberRole.REVIEWER)
    declare_none(evaluation, owner, people[MemberRole.EDITOR], people[MemberRole.REVIEWER], second)
    return {
        "evaluation": evaluation,
        "owner": owner,
        "slurm": slurm,
        "volcano": volcano,
        "reviewer": people[MemberRole.REVIEWER],
        "rev2": second,
        "editor": people[MemberRole.EDITOR],
        "viewer": people[MemberRole.VIEWER],
    }


def group(w, key):
    return w["evaluation"].poc_groups.get(group__key=key)


def set_group_weight(w, key, weight):
    g = group(w, key)
    services.plan_weight_set(user=w["owner"], obj=g, weight=weight, expected_version=g.version)


def set_weights(w, batch, inference, governance, abnormal):
    for key, weight in zip(
        ("batch_training", "inference_serving", "governance", ABNORMAL),
        (batch, inference, governance, abnormal),
        strict=True,
    ):
        set_group_weight(w, key, weight)


def first_case(w, key):
    return w["evaluation"].poc_cases.filter(group__key=key).order_by("order", "pk").first()


def score(w, who, key, candidate, value="4", *, submit=True):
    services.score_save(
        user=w[who],
        case=first_case(w, key),
        candidate=w[candidate],
        score=value,
        submit=submit,
        expected_version=None,
    )


# --- situations ------------------------------------------------------------------------------


def nothing_scored(w):
    pass


def abnormal_cases_removed(w):
    for case in w["evaluation"].poc_cases.filter(group__key=ABNORMAL):
        services.plan_case_remove(user=w["owner"], case=case)


def abnormal_weight_10(w):  # 10 / (30 + 20 + 25 + 10) = 11.8 %
    set_weights(w, "30", "20", "25", "10")


def abnormal_weight_at_the_threshold(w):  # 20 / (30 + 25 + 25 + 20) = 20 %
    set_weights(w, "30", "25", "25", "20")


def abnormal_weight_just_below(w):  # 19.9 / (30 + 25 + 25.1 + 19.9) = 19.9 %
    set_weights(w, "30", "25", "25.1", "19.9")


def abnormal_weight_0(w):
    set_group_weight(w, ABNORMAL, "0")


def abnormal_cases_weigh_nothing(w):
    for case in w["evaluation"].poc_cases.filter(group__key=ABNORMAL):
        services.plan_weight_set(user=w["owner"], obj=case, weight="0", expected_version=None)


def other_groups_emptied(w):
    """Only batch training keeps cases: the weights of empty groups count for nothing, so the
    abnormal group's 15 is 15 / (30 + 15) = 33 % of what the totals use, not 15 %."""
    set_weights(w, "30", "30", "25", "15")
    for key in ("inference_serving", "governance"):
        for case in w["evaluation"].poc_cases.filter(group__key=key):
            services.plan_case_remove(user=w["owner"], case=case)


def slurm_scored_on_batch_only(w):
    score(w, "reviewer", "batch_training", "slurm")


def slurm_scored_on_batch_and_abnormal(w):
    score(w, "reviewer", "batch_training", "slurm")
    score(w, "reviewer", ABNORMAL, "slurm")


def slurm_scored_on_abnormal_by_consensus_only(w):
    """Two reviewers far apart on an abnormal case, settled by the owner: the cell counts."""
    score(w, "reviewer", "batch_training", "slurm")
    score(w, "reviewer", ABNORMAL, "slurm", "0.5")
    score(w, "rev2", ABNORMAL, "slurm", "5")
    services.consensus_record(
        user=w["owner"],
        case=first_case(w, ABNORMAL),
        candidate=w["slurm"],
        score="3",
        reason="Re-ran the failure drill together.",
        expected_version=None,
    )


def slurm_abnormal_score_only_a_draft(w):
    score(w, "reviewer", "batch_training", "slurm")
    score(w, "reviewer", ABNORMAL, "slurm", submit=False)


def drafts_only(w):
    score(w, "reviewer", "batch_training", "slurm", submit=False)


def both_scored_on_batch_slurm_on_abnormal(w):
    score(w, "reviewer", "batch_training", "slurm")
    score(w, "reviewer", "batch_training", "volcano")
    score(w, "reviewer", ABNORMAL, "slurm")


def volcano_eliminated_unscored(w):
    from evaluations import services as evaluation_services

    score(w, "reviewer", "batch_training", "slurm")
    score(w, "reviewer", ABNORMAL, "slurm")
    score(w, "reviewer", "batch_training", "volcano")
    evaluation_services.candidate_eliminate(
        user=w["owner"], candidate=w["volcano"], reason="Too slow.", expected_version=None
    )


def others_scored_abnormal_blind(w):
    """The reviewer scored slurm on batch training only; rev2 scored its abnormal case only."""
    score(w, "reviewer", "batch_training", "slurm")
    score(w, "rev2", ABNORMAL, "slurm")


# (situation, reader, reminder that fires or None). Readers: None is the services' view
# (everything); otherwise a member, who sees only what blind scoring shows them.
ROWS = [
    (nothing_scored, None, None),
    (abnormal_cases_removed, None, "poc-happy-path-only"),
    (abnormal_weight_10, None, "poc-abnormal-underweighted"),
    (abnormal_weight_at_the_threshold, None, None),
    (abnormal_weight_just_below, None, "poc-abnormal-underweighted"),
    (abnormal_weight_0, None, "poc-abnormal-underweighted"),
    (abnormal_cases_weigh_nothing, None, "poc-abnormal-underweighted"),
    (other_groups_emptied, None, None),
    (slurm_scored_on_batch_only, None, "poc-abnormal-unscored"),
    (slurm_scored_on_batch_and_abnormal, None, None),
    (slurm_scored_on_abnormal_by_consensus_only, None, None),
    (slurm_abnormal_score_only_a_draft, None, "poc-abnormal-unscored"),
    (drafts_only, None, None),
    (both_scored_on_batch_slurm_on_abnormal, None, "poc-abnormal-unscored"),
    (volcano_eliminated_unscored, None, None),
    # Blind scoring: the owner and procurement see rev2's abnormal score, so nothing fires.
    (others_scored_abnormal_blind, "owner", None),
    (others_scored_abnormal_blind, "viewer", None),
    # The reviewer may not see rev2's score yet: for them it is missing, as on the scorecard.
    (others_scored_abnormal_blind, "reviewer", "poc-abnormal-unscored"),
    # The editor scored nothing and sees no score at all: nothing was tested, nothing fires.
    (others_scored_abnormal_blind, "editor", None),
    # rev2 sees their own abnormal score, but no batch score of slurm: nothing fires.
    (others_scored_abnormal_blind, "rev2", None),
]


def fired(w, reader) -> dict:
    viewer = w[reader] if reader else None
    found = reminders_for(evaluation_data(w["evaluation"], viewer=viewer))
    return {r.key: r for r in found if r.key in KEYS}


@pytest.mark.parametrize(
    ("situation", "reader", "expected"),
    ROWS,
    ids=[f"{s.__name__}-{r or 'all'}" for s, r, _e in ROWS],
)
def test_risk_poc_tests_only_normal_tasks(world, situation, reader, expected):
    situation(world)
    found = fired(world, reader)
    assert set(found) == ({expected} if expected else set())
    for r in found.values():
        assert r.fix_url.startswith(f"/evaluations/{world['evaluation'].pk}/poc/")


def test_underweighted_names_the_share_and_the_threshold(world):
    assert str(ABNORMAL_MIN_SHARE) == "20"  # the documented threshold, in percent
    abnormal_weight_10(world)
    r = fired(world, None)["poc-abnormal-underweighted"]
    assert "20%" in r.title and "11.8%" in r.why and "20%" in r.why


def test_unscored_names_the_candidates(world):
    both_scored_on_batch_slurm_on_abnormal(world)
    why = fired(world, None)["poc-abnormal-unscored"].why
    assert "Volcano" in why and "Slurm" not in why and "hidden" not in why


def test_a_blind_reader_is_told_hidden_scores_count_as_missing(world):
    others_scored_abnormal_blind(world)
    assert "hidden from you" in fired(world, "reviewer")["poc-abnormal-unscored"].why
    # Once the reviewer submits their own score for the cell, they see rev2's and it clears.
    score(world, "reviewer", ABNORMAL, "slurm", "3")
    assert "poc-abnormal-unscored" not in fired(world, "reviewer")


def test_clears_when_the_abnormal_case_is_scored(world):
    slurm_scored_on_batch_only(world)
    assert "poc-abnormal-unscored" in fired(world, None)
    score(world, "reviewer", ABNORMAL, "slurm")
    assert "poc-abnormal-unscored" not in fired(world, None)


def test_a_sealed_evaluation_expects_every_candidate_scored(owner, people):
    """Once decided, a candidate nobody scored at all is unscored too (the POC is over)."""
    evaluation = make_everything(owner, people, sealed=True)
    why = fired({"evaluation": evaluation}, None)["poc-abnormal-unscored"].why
    assert "Slurm" in why and "Volcano" in why


def test_text_in_chinese_keeps_the_numbers(world):
    abnormal_weight_10(world)
    with translation.override("zh-hans"):
        r = fired(world, None)["poc-abnormal-underweighted"]
    assert "20%" in r.title and "11.8%" in r.why and "异常与长稳" in r.why


def test_list_pages_stay_at_a_fixed_number_of_queries(client, owner, people):
    """The home page and the API list build every evaluation's reminders, as a blind reviewer
    reads them: the number of queries does not grow with the evaluations."""
    reviewer = people[MemberRole.REVIEWER]

    def add(n):
        for i in range(n):
            evaluation = make_evaluation(owner, title=f"Many {i}")
            add_member(evaluation, reviewer, MemberRole.REVIEWER)
            slurm, _volcano = add_candidates(evaluation, owner, "slurm", "volcano")
            small_plan(evaluation, owner)
            declare_none(evaluation, reviewer)
            case = evaluation.poc_cases.filter(group__key="batch_training").first()
            services.score_save(
                user=reviewer,
                case=case,
                candidate=slurm,
                score="3",
                submit=True,
                expected_version=None,
            )

    def queries():
        """Each list cold (no stored row status: all computed) and warm (all stored)."""
        counts = []
        for path in (reverse("home"), "/api/evaluations/"):
            StatusStamp.objects.all().delete()
            for _ in ("cold", "warm"):
                with CaptureQueriesContext(connection) as captured:
                    assert client.get(path).status_code == 200
                counts.append(len(captured))
        return counts

    add(1)
    client.force_login(reviewer)
    # What the list pages build, as the reviewer reads it:
    rows = evaluation_rows(reviewer, evaluation_list_queryset(reviewer))
    [row] = [r for r in rows if r.evaluation.title == "Many 0"]
    keys = {r.key for r in reminders_for(evaluation_data(row.evaluation, viewer=reviewer))}
    assert "poc-abnormal-unscored" in keys and row.status.reminders == len(keys)
    few = queries()
    add(3)
    assert queries() == few
