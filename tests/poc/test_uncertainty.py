"""Uncertainty, not only weights: the bootstrap share on the results page, in the API and in
the report; no leader named below 80 %; and the low-agreement reminder (α < 0.667 in a
weighted group)."""

from decimal import Decimal as D

import pytest
from django.urls import reverse
from django.utils import translation

from common import roles
from evaluations.models import MemberRole
from evaluations.reminders import reminders_for
from evaluations.selectors import evaluation_data
from poc import scoring
from poc import services as poc_services
from poc.selectors import results
from reports.render import report_html
from reports.snapshot import build_snapshot, snapshot_sha256
from tests.conftest import make_user
from tests.factories import add_candidates, add_member, declare_none
from tests.poc.api.support import client_for, url

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(evaluation, owner, people):
    slurm, volcano = add_candidates(evaluation, owner, "slurm", "volcano")
    poc_services.plan_init(user=owner, evaluation=evaluation)
    second = make_user(roles.REVIEWER, username="rev2")
    add_member(evaluation, second, MemberRole.REVIEWER)
    first = people[MemberRole.REVIEWER]
    declare_none(evaluation, first, second)
    return evaluation, owner, (first, second), slurm, volcano


def score(reviewer, case, candidate, value):
    poc_services.score_save(
        user=reviewer,
        case=case,
        candidate=candidate,
        score=str(value),
        submit=True,
        expected_version=None,
    )


def cases_by_group(evaluation):
    out: dict[str, list] = {}
    for case in evaluation.poc_cases.order_by("group__order", "order", "pk"):
        out.setdefault(case.group.key, []).append(case)
    return out


def near_tie(world):
    """Case by case the two candidates mirror each other (5 against 0, then 0 against 5) in
    every group; slurm is ahead only because volcano got 4.5 instead of 5 once."""
    evaluation, _owner, reviewers, slurm, volcano = world
    first = True
    for cases in cases_by_group(evaluation).values():
        for j, case in enumerate(cases):
            if j == len(cases) - 1 and len(cases) % 2:
                a = b = 3
            else:
                a, b = (5, 0) if j % 2 == 0 else (0, 5)
                if b == 5 and first:
                    b, first = D("4.5"), False
            for reviewer in reviewers:
                score(reviewer, case, slurm, a)
                score(reviewer, case, volcano, b)


def clear_leader(world):
    evaluation, _owner, reviewers, slurm, volcano = world
    for cases in cases_by_group(evaluation).values():
        for case in cases:
            for reviewer in reviewers:
                score(reviewer, case, slurm, 5)
                score(reviewer, case, volcano, 1)


def api_type(world):
    evaluation, owner, *_ = world
    body = client_for(owner).get(url(evaluation, "results/")).json()
    (entry,) = body["by_type"]
    return entry


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_near_tie_names_no_leader_and_says_why(world, client, language):
    evaluation, owner, _reviewers, slurm, _volcano = world
    near_tie(world)
    res = results(evaluation, owner)
    (t,) = res.by_type
    assert t.sufficiency.enough and t.leaders == (str(slurm.pk),)  # ahead on the totals…
    assert t.bootstrap.share < scoring.MIN_SHARE and not t.bootstrap.names_leader  # …not reliably

    api = client_for(owner).get(url(evaluation, "results/"), HTTP_ACCEPT_LANGUAGE=language)
    entry = api.json()["by_type"][0]
    assert entry["leaders"] == []
    boot = entry["bootstrap"]
    assert boot["leader"] == slurm.pk and not boot["names_leader"] and boot["resamples"] >= 1000
    assert D(boot["share"]) == t.bootstrap.share
    why = "80%" if language == "en" else "至少需要 80%"
    assert why in boot["note"] and slurm.name in boot["note"]

    client.force_login(owner)
    page = client.get(
        reverse("poc:results", kwargs={"pk": evaluation.pk}), HTTP_ACCEPT_LANGUAGE=language
    )
    body = page.content.decode()
    assert 'data-testid="bootstrap-no-leader"' in body and 'data-testid="bootstrap-share"' in body
    plan_row = body.split('data-testid="scenario-fit"')[1].split("</tr>")[1]
    assert 'class="lead-cell"' not in plan_row  # under the plan's weights no one is marked

    snap = build_snapshot(evaluation, language=language, generated_at="2027-03-01T09:00:00+08:00")
    (rb,) = snap["poc"]["robustness"]["types"]
    assert rb["leader"] == [] and rb["bootstrap"]["note"]
    (fit,) = snap["summary"]["scenario_fit"]["types"]
    assert fit["profiles"][0]["leaders"] == []
    html = report_html(snap, snapshot_sha256(snap), language, for_pdf=False)
    assert 'data-testid="bootstrap-no-leader"' in html


def test_a_clear_leader_stays_leader_in_every_resample(world, client):
    evaluation, owner, _reviewers, slurm, _volcano = world
    clear_leader(world)
    entry = api_type(world)
    assert entry["leaders"] == [slurm.pk]
    assert entry["bootstrap"]["share"] == "1.000" and entry["bootstrap"]["note"] == ""
    client.force_login(owner)
    body = client.get(reverse("poc:results", kwargs={"pk": evaluation.pk})).content.decode()
    assert "the leader stays leader in 100.0% of them" in body
    assert 'data-testid="bootstrap-no-leader"' not in body
    snap = build_snapshot(evaluation, language="zh-hans", generated_at="2027-03-01T09:00:00+08:00")
    (rb,) = snap["poc"]["robustness"]["types"]
    assert rb["bootstrap"]["percent"] == "100.0" and "100.0%" in rb["bootstrap"]["text"]
    assert "仍然领先" in rb["bootstrap"]["text"]


# Two batch-training cases × two candidates, scored by two reviewers. Only the second
# reviewer's last score differs: α = 0.611 (fires) against α = 0.672 (does not).
LOW = ((5, 3), (1, 1), (4, 3), (2, 3))
FINE = ((5, 3), (1, 1), (4, 3), (2, 1))


def agreement_reminder(evaluation):
    return next(
        (r for r in reminders_for(evaluation_data(evaluation)) if r.key == "poc-low-agreement"),
        None,
    )


@pytest.mark.parametrize(("pairs", "alpha", "fires"), [(LOW, 0.611, True), (FINE, 0.672, False)])
def test_low_agreement_in_a_weighted_group_is_a_reminder(world, pairs, alpha, fires):
    evaluation, owner, (first, second), slurm, volcano = world
    c1, c2 = cases_by_group(evaluation)["batch_training"][:2]
    cells = [(c1, slurm), (c2, slurm), (c1, volcano), (c2, volcano)]
    for (case, candidate), (a, b) in zip(cells, pairs, strict=True):
        score(first, case, candidate, a)
        score(second, case, candidate, b)
    # The reminder's alpha is the one the results show for the group.
    shown = results(evaluation, owner).agreement_by_group["batch_training"]
    assert shown == pytest.approx(alpha, abs=0.001)
    reminder = agreement_reminder(evaluation)
    assert (reminder is not None) is fires
    if fires:
        assert reminder.severity == "medium" and "α = 0.61" in reminder.why
        assert reminder.fix_url == reverse("poc:scorecard", kwargs={"pk": evaluation.pk})
        with translation.override("zh-hans"):
            zh = agreement_reminder(evaluation)
        assert "一致性过低" in zh.title and "α = 0.61" in zh.why


def test_low_agreement_in_a_group_without_weight_is_no_reminder(world):
    evaluation, owner, (first, second), slurm, volcano = world
    c1, c2 = cases_by_group(evaluation)["batch_training"][:2]
    group = evaluation.poc_groups.get(group__key="batch_training")
    poc_services.plan_weight_set(user=owner, obj=group, weight="0", expected_version=None)
    cells = [(c1, slurm), (c2, slurm), (c1, volcano), (c2, volcano)]
    for (case, candidate), (a, b) in zip(cells, LOW, strict=True):
        score(first, case, candidate, a)
        score(second, case, candidate, b)
    assert agreement_reminder(evaluation) is None
