"""The decided gate lists the chosen candidates' open POC cells (unscored, or disputed without a
consensus); the owner may decide anyway only by giving the reason, which the history and the
report keep. Pages and API alike; blind scoring holds for who sees which cell is disputed."""

import datetime

import pytest
from django.urls import reverse
from django.utils.html import escape
from rest_framework.test import APIClient

from common import roles
from common.exceptions import Conflict
from evaluations import services
from evaluations.models import MemberRole, Status, StatusChange
from poc import services as poc_services
from reports.render import report_html
from reports.snapshot import build_snapshot, snapshot_sha256
from tests.conftest import make_user
from tests.factories import add_candidates, add_member, answer_all, declare_none, follow_method

pytestmark = pytest.mark.django_db

REASON = "The board accepts the open latency run: the vendor's rerun is contractual."


@pytest.fixture
def world(evaluation, owner, people):
    """Slurm chosen over Volcano; three plan cases. Slurm: case 0 unscored, case 1 disputed
    (5 vs 1, no consensus), case 2 agreed. Volcano's cells are all unscored (not chosen)."""
    slurm, volcano = add_candidates(evaluation, owner, "slurm", "volcano")
    answer_all(slurm, owner)
    answer_all(volcano, owner)
    services.evaluation_transition(user=owner, evaluation=evaluation, to_status="poc")
    poc_services.plan_init(user=owner, evaluation=evaluation)
    cases = list(evaluation.poc_cases.order_by("group__order", "order", "pk"))
    evaluation.poc_cases.exclude(pk__in=[c.pk for c in cases[:3]]).delete()
    cases = cases[:3]
    r1 = people[MemberRole.REVIEWER]
    r2 = make_user(roles.REVIEWER, username="rev2")
    add_member(evaluation, r2, MemberRole.REVIEWER)
    declare_none(evaluation, owner, people[MemberRole.EDITOR], r1, r2)
    for reviewer, scores in ((r1, ("5", "4")), (r2, ("1", "4"))):
        for case, score in zip(cases[1:], scores, strict=True):
            poc_services.score_save(
                user=reviewer,
                case=case,
                candidate=slurm,
                score=score,
                submit=True,
                expected_version=None,
            )
    services.decision_save(
        user=owner,
        evaluation=evaluation,
        chosen=[slurm],
        rationale="Fits the training scenario.",
        decided_on=datetime.date(2026, 11, 30),
        decided_by="Architecture board",
        expected_version=None,
    )
    follow_method(evaluation, owner, chosen=[slurm])
    return {"slurm": slurm, "volcano": volcano, "cases": cases, "r1": r1}


def test_refused_without_a_reason_listing_the_open_cells(evaluation, owner, world):
    cases = world["cases"]
    with pytest.raises(Conflict) as refused:
        services.evaluation_transition(user=owner, evaluation=evaluation, to_status="decided")
    missing = [str(m) for m in refused.value.missing]
    title = [c.shown_title for c in cases]
    assert missing == [
        f"Slurm — POC case “{title[0]}”: not scored yet.",
        f"Slurm — POC case “{title[1]}”: the reviewers disagree and no consensus is recorded.",
    ]
    assert "give the reason" in refused.value.message
    evaluation.refresh_from_db()
    assert evaluation.status == Status.POC


def test_only_the_owner_decides_anyway_and_blindness_holds(evaluation, people, world):
    editor = people[MemberRole.EDITOR]
    with pytest.raises(Conflict) as refused:
        services.evaluation_transition(
            user=editor, evaluation=evaluation, to_status="decided", reason=REASON
        )
    assert "Only the owner" in refused.value.message
    missing = [str(m) for m in refused.value.missing]
    # The editor may not see every score: the disputed cell is counted, not named.
    assert len(missing) == 2 and "not scored yet" in missing[0]
    assert missing[1].startswith("1 POC cell(s)") and "Slurm" not in missing[1]


def test_other_gaps_are_not_waived_by_a_reason(evaluation, owner, world):
    answer_all(world["slurm"], owner, assessment="unknown")
    with pytest.raises(Conflict) as refused:
        services.evaluation_transition(
            user=owner, evaluation=evaluation, to_status="decided", reason=REASON
        )
    missing = [str(m) for m in refused.value.missing]
    assert any("missing assessment" in m for m in missing)
    assert any("not scored yet" in m for m in missing)


def test_accepted_with_a_reason_kept_in_history_and_report(evaluation, owner, world):
    decided = services.evaluation_transition(
        user=owner, evaluation=evaluation, to_status="decided", reason=f"  {REASON} "
    )
    assert decided.status == Status.DECIDED
    change = StatusChange.objects.get(evaluation=evaluation, to_status=Status.DECIDED)
    assert change.reason == REASON and change.changed_by == owner
    assert evaluation.history.latest().history_change_reason == REASON
    for language in ("en", "zh-hans"):
        snap = build_snapshot(evaluation, language=language, generated_at="2027-01-01T00:00:00Z")
        despite = snap["summary"]["decision"]["decided_despite"]
        assert despite["reason"] == REASON
        assert len(despite["unscored"]) == 1 and len(despite["disputed"]) == 1
        assert all(item.startswith("Slurm") for item in despite["unscored"] + despite["disputed"])
        body = report_html(snap, snapshot_sha256(snap), language, for_pdf=False)
        assert 'data-testid="decided-despite"' in body and escape(REASON) in body


def test_no_reason_needed_once_the_cells_are_closed(evaluation, owner, world):
    slurm, cases, r1 = world["slurm"], world["cases"], world["r1"]
    poc_services.score_save(
        user=r1, case=cases[0], candidate=slurm, score="3", submit=True, expected_version=None
    )
    poc_services.consensus_record(
        user=owner,
        case=cases[1],
        candidate=slurm,
        score="3",
        reason="Rerun agreed",
        expected_version=None,
    )
    decided = services.evaluation_transition(user=owner, evaluation=evaluation, to_status="decided")
    assert decided.status == Status.DECIDED
    snap = build_snapshot(evaluation, language="en", generated_at="2027-01-01T00:00:00Z")
    assert snap["summary"]["decision"]["decided_despite"] is None


def test_api_parity(evaluation, owner, world):
    api = APIClient()
    api.force_authenticate(owner)
    path = f"/api/evaluations/{evaluation.pk}/transition/"
    refused = api.post(path, {"status": "decided"}, format="json")
    assert refused.status_code == 409
    assert [m for m in refused.json()["missing"] if "not scored yet" in m]
    accepted = api.post(path, {"status": "decided", "reason": REASON}, format="json")
    assert accepted.status_code == 200, accepted.json()
    assert StatusChange.objects.get(to_status=Status.DECIDED).reason == REASON


def test_page_offers_the_owner_a_reason_and_links_the_cells(client, evaluation, owner, world):
    client.force_login(owner)
    page = reverse("evaluations:evaluation_detail", kwargs={"pk": evaluation.pk})
    body = client.post(page, {"status": "decided", "reason": ""}).content.decode()
    assert 'data-testid="gate-missing"' in body and 'data-testid="decide-anyway"' in body
    case, slurm = world["cases"][0], world["slurm"]
    assert f"/poc/#cell-{case.pk}-{slurm.pk}" in body
    done = client.post(page, {"status": "decided", "reason": REASON})
    assert done.status_code == 302
    evaluation.refresh_from_db()
    assert evaluation.status == Status.DECIDED
