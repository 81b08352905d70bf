"""The decided gate follows the method (scenario → type → tools): deciding needs the type that
carries the main responsibility, and the owner's acknowledgement, with a reason, of every open
high reminder; the refusal links each item to its fix, the History tab keeps the
acknowledgements and the report prints them as "decided despite". Blind scoring holds for the
reminders built from scores. Services, pages and the API alike."""

import datetime
import re

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape
from rest_framework.test import APIClient

from common.exceptions import Forbidden
from evaluations import services
from evaluations.models import MemberRole, ReminderAcknowledgement, Status
from poc import services as poc_services
from reports.render import report_html
from reports.snapshot import build_snapshot, snapshot_sha256
from tests.factories import add_candidates, answer_all, declare_none

pytestmark = pytest.mark.django_db

HYBRID = "hybrid-without-owner"
ABNORMAL = "poc-abnormal-unscored"
HYBRID_WHY = "The cloud bursts stay under the platform team's audit until Q3."
ABNORMAL_WHY = "The vendor's failover run is booked for next week; the board accepts the gap."
CELLS_WHY = "The remaining cells are scored after go-live."


@pytest.fixture
def world(evaluation, owner, people):
    """The demo's shape, small: a hybrid route with no owner of the unified view, two candidates
    of different types, a POC under way where a reviewer scored Slurm on an everyday case but no
    abnormal and long-running one (a reminder the blind editor cannot see), and a complete
    decision record choosing Slurm."""
    services.evaluation_update(
        user=owner, evaluation=evaluation, expected_version=evaluation.version, plans_hybrid=True
    )
    slurm, volcano = add_candidates(evaluation, owner, "slurm", "volcano")
    answer_all(slurm, owner)
    answer_all(volcano, owner)
    services.evaluation_transition(user=owner, evaluation=evaluation, to_status="poc")
    poc_services.plan_init(user=owner, evaluation=evaluation)
    everyday = evaluation.poc_cases.filter(group__happy_path=True).order_by("pk").first()
    reviewer = people[MemberRole.REVIEWER]
    declare_none(evaluation, reviewer)
    poc_services.score_save(
        user=reviewer,
        case=everyday,
        candidate=slurm,
        score="4",
        submit=True,
        expected_version=None,
    )
    services.decision_save(
        user=owner,
        evaluation=evaluation,
        chosen=[slurm],
        rationale="The HPC team already runs batch queues.",
        decided_on=datetime.date(2026, 11, 30),
        decided_by="Architecture board",
        expected_version=None,
    )
    evaluation.refresh_from_db()
    return {"slurm": slurm, "volcano": volcano}


def refused_items(user, evaluation, reason=""):
    with pytest.raises(services.GateRefused) as refused:
        services.evaluation_transition(
            user=user, evaluation=evaluation, to_status="decided", reason=reason
        )
    return refused.value.missing


def unified(candidate) -> str:
    """responsibility's reminder: a hybrid route, and this candidate's matrix names nobody
    accountable for the unified view (one key per candidate)."""
    return f"hybrid-without-unified-owner:{candidate.pk}"


def open_keys(user, evaluation, reason="") -> set:
    items = refused_items(user, evaluation, reason)
    return {item.where.get("key") for item in items if item.place == "reminder"}


def decide_type(evaluation, owner, candidate):
    evaluation.refresh_from_db()
    return services.evaluation_type_decide(
        user=owner,
        evaluation=evaluation,
        solution_type=candidate.solution.solution_type,
        reason="Batch training on our own cluster is the main load.",
        expected_version=evaluation.version,
    )


def acknowledge(owner, evaluation, key, reason):
    return services.reminder_acknowledge(
        user=owner, evaluation=evaluation, key=key, reason=reason, expected_version=0
    )


def test_each_gate_item_refuses_until_fixed_or_acknowledged(evaluation, owner, world):
    missing = refused_items(owner, evaluation)
    places = [item.place for item in missing]
    assert places[0] == "type" and str(missing[0]).startswith("No type has been decided")
    reminders = {item.where["key"]: str(item) for item in missing if item.place == "reminder"}
    # The type item stands for the "compared without a type decision" reminder; one reminder
    # of responsibility's is there for each candidate, under its own key.
    slurm, volcano = world["slurm"], world["volcano"]
    assert set(reminders) == {HYBRID, ABNORMAL, unified(slurm), unified(volcano)}
    assert reminders[HYBRID].startswith("High reminder: A hybrid route has no owner")

    decide_type(evaluation, owner, slurm)
    missing = refused_items(owner, evaluation, reason=CELLS_WHY)
    assert "type" not in [item.place for item in missing]
    assert open_keys(owner, evaluation, CELLS_WHY) == set(reminders)

    with pytest.raises(ValidationError) as empty:
        acknowledge(owner, evaluation, HYBRID, "   ")
    assert "Say why" in str(empty.value.message_dict["reason"])
    acknowledge(owner, evaluation, HYBRID, HYBRID_WHY)
    for candidate in (slurm, volcano):
        acknowledge(owner, evaluation, unified(candidate), HYBRID_WHY)
    assert open_keys(owner, evaluation, CELLS_WHY) == {ABNORMAL}

    acknowledge(owner, evaluation, ABNORMAL, ABNORMAL_WHY)
    # What is left are the chosen candidate's open POC cells: decided only with a reason.
    missing = refused_items(owner, evaluation)
    assert missing and {item.place for item in missing} == {"poc"}
    decided = services.evaluation_transition(
        user=owner, evaluation=evaluation, to_status="decided", reason=CELLS_WHY
    )
    assert decided.status == Status.DECIDED

    ack = ReminderAcknowledgement.objects.get(evaluation=evaluation, key=HYBRID)
    assert ack.reason == HYBRID_WHY and ack.acknowledged_by == owner
    assert ack.history.get().history_change_reason == HYBRID_WHY

    for language, heading in (
        ("en", "Decided despite these open high reminders"),
        ("zh-hans", "明知以下高风险提醒未解决，仍作出决定"),
    ):
        snap = build_snapshot(evaluation, language=language, generated_at="2027-01-01T00:00:00Z")
        printed = {a["key"]: a for a in snap["acknowledged"]}
        assert set(printed) == {HYBRID, ABNORMAL, unified(slurm), unified(volcano)}
        assert printed[HYBRID]["reason"] == HYBRID_WHY and printed[HYBRID]["by"]
        assert printed[HYBRID]["on"] == timezone.localdate(ack.acknowledged_at).isoformat()
        body = report_html(snap, snapshot_sha256(snap), language, for_pdf=False)
        assert 'data-testid="decided-despite-reminders"' in body and heading in body
        assert escape(HYBRID_WHY) in body and escape(ABNORMAL_WHY) in body
    assert "A hybrid route has no owner" in str(printed_title(evaluation, "en"))


def printed_title(evaluation, language):
    snap = build_snapshot(evaluation, language=language, generated_at="2027-01-01T00:00:00Z")
    return [a["title"] for a in snap["acknowledged"]]


def test_an_acknowledgement_follows_its_key(evaluation, owner, world):
    decide_type(evaluation, owner, world["slurm"])
    acknowledge(owner, evaluation, HYBRID, HYBRID_WHY)
    # The reminder goes away (an owner is named) and comes back (the name is cleared): the
    # acknowledgement of its key still holds.
    for name in ("Platform team", ""):
        evaluation.refresh_from_db()
        services.evaluation_update(
            user=owner,
            evaluation=evaluation,
            expected_version=evaluation.version,
            unified_view_owner=name,
        )
    others = {ABNORMAL, unified(world["slurm"]), unified(world["volcano"])}
    assert open_keys(owner, evaluation) == others
    # Only an open high reminder is acknowledged.
    with pytest.raises(ValidationError) as closed:
        acknowledge(owner, evaluation, "few-candidates", "Two are enough.")
    assert "not an open high reminder" in str(closed.value.message_dict["key"])
    # Withdrawn: the gate asks about it again, and the history keeps both.
    services.reminder_acknowledgement_withdraw(user=owner, evaluation=evaluation, key=HYBRID)
    assert open_keys(owner, evaluation) == {HYBRID, *others}
    kinds = list(
        ReminderAcknowledgement.history.filter(key=HYBRID).values_list("history_type", flat=True)
    )
    assert sorted(kinds) == ["+", "-"]


def test_only_the_owner_acknowledges(evaluation, owner, people, world):
    for role in (MemberRole.EDITOR, MemberRole.REVIEWER, MemberRole.VIEWER):
        with pytest.raises(Forbidden):
            acknowledge(people[role], evaluation, HYBRID, HYBRID_WHY)
    assert not ReminderAcknowledgement.objects.exists()


def test_blind_editor_is_told_how_many_not_which(evaluation, owner, people, world):
    editor = people[MemberRole.EDITOR]
    decide_type(evaluation, owner, world["slurm"])
    items = [i for i in refused_items(editor, evaluation) if i.place == "reminder"]
    assert {i.where.get("key") for i in items[:-1]} == {
        HYBRID,
        unified(world["slurm"]),
        unified(world["volcano"]),
    }
    hidden = str(items[-1])
    assert hidden.startswith("1 more open high reminder(s) rest on scores hidden from you")
    assert not items[-1].where and not [i for i in items if "abnormal" in str(i).lower()]
    owner_texts = [str(i) for i in refused_items(owner, evaluation) if i.place == "reminder"]
    assert any("Abnormal and long-running cases not scored" in t for t in owner_texts)
    api = APIClient()
    api.force_authenticate(editor)
    body = api.get(f"/api/evaluations/{evaluation.pk}/acknowledgements/").json()
    assert ABNORMAL not in {r["key"] for r in body["reminders"]} and len(body["reminders"]) == 3
    assert body["hidden"] == 1 and body["hidden_unacknowledged"] == 1
    api.force_authenticate(owner)
    body = api.get(f"/api/evaluations/{evaluation.pk}/acknowledgements/").json()
    assert ABNORMAL in {r["key"] for r in body["reminders"]} and body["hidden"] == 0


# --- the page --------------------------------------------------------------------------------


def test_the_page_lists_each_item_with_its_fix_and_takes_acknowledgements(
    client, evaluation, owner, people, world
):
    overview = reverse("evaluations:evaluation_detail", kwargs={"pk": evaluation.pk})
    ack_url = reverse("evaluations:reminder_acknowledge", kwargs={"pk": evaluation.pk})
    client.force_login(owner)
    refused = client.post(overview, {"status": "decided"})
    assert refused.status_code == 409
    body = refused.content.decode()
    shortlist = reverse("evaluations:evaluation_shortlist", kwargs={"pk": evaluation.pk})
    assert f'href="{shortlist}#main-type">No type has been decided' in body
    assert "Open high reminders" in body and body.count('data-testid="acknowledge-form"') == 4
    edit = reverse("evaluations:evaluation_edit", kwargs={"pk": evaluation.pk})
    assert f'href="{edit}#id_unified_view_owner">High reminder: A hybrid route' in body

    empty = client.post(ack_url, {"key": HYBRID, "reason": " ", "version": 0})
    assert empty.status_code == 400
    assert "Say why the evaluation may be decided while this reminder is open." in (
        empty.content.decode()
    )
    assert not ReminderAcknowledgement.objects.exists()

    client.force_login(people[MemberRole.EDITOR])
    assert client.post(ack_url, {"key": HYBRID, "reason": "x", "version": 0}).status_code == 403

    client.force_login(owner)
    done = client.post(ack_url, {"key": HYBRID, "reason": HYBRID_WHY, "version": 0})
    assert done.status_code == 302 and done["Location"].endswith("?gate=1#gate")
    page = client.get(done["Location"]).content.decode()
    listed = re.search(r'data-testid="gate-acknowledged">(.*?)</section>', page, re.S).group(1)
    assert escape(HYBRID_WHY) in listed and 'data-testid="withdraw"' in listed
    assert page.count('data-testid="acknowledge-form"') == 3  # the others are still open

    history = reverse("evaluations:evaluation_history", kwargs={"pk": evaluation.pk})
    assert "A hybrid route has no owner" in client.get(history).content.decode()

    withdraw = reverse("evaluations:reminder_withdraw", kwargs={"pk": evaluation.pk})
    gone = client.post(withdraw, {"key": HYBRID})
    assert gone.status_code == 302
    assert not ReminderAcknowledgement.objects.exists()


# --- the API ---------------------------------------------------------------------------------


def test_the_api_acknowledges_with_the_same_rules(evaluation, owner, people, world):
    api = APIClient()
    base = f"/api/evaluations/{evaluation.pk}/"
    path = f"{base}acknowledgements/{HYBRID}/"
    api.force_authenticate(people[MemberRole.EDITOR])
    assert api.put(path, {"reason": HYBRID_WHY}, format="json").status_code == 403
    api.force_authenticate(owner)
    empty = api.put(path, {"reason": ""}, format="json")
    assert empty.status_code == 400 and "Say why" in str(empty.json()["reason"])
    refused = api.post(f"{base}transition/", {"status": "decided"}, format="json")
    assert refused.status_code == 409
    missing = refused.json()["missing"]
    assert any(m.startswith("No type has been decided") for m in missing)
    assert any(m.startswith("High reminder: A hybrid route") for m in missing)

    created = api.put(path, {"reason": HYBRID_WHY}, format="json")
    assert created.status_code == 201 and created.json()["reason"] == HYBRID_WHY
    assert created.json()["acknowledged_by"] == owner.username
    again = api.put(path, {"reason": "Changed my mind about the wording."}, format="json")
    assert again.status_code == 428  # saved before: say which version you changed
    changed = api.put(path, {"reason": "Q3 audit covers it.", "version": 1}, format="json")
    assert changed.status_code == 200 and changed.json()["version"] == 2
    listed = api.get(f"{base}acknowledgements/").json()
    hybrid = next(r for r in listed["reminders"] if r["key"] == HYBRID)
    assert hybrid["acknowledgement"]["reason"] == "Q3 audit covers it."

    decide_type(evaluation, owner, world["slurm"])
    for key in (ABNORMAL, unified(world["slurm"]), unified(world["volcano"])):
        done = api.put(f"{base}acknowledgements/{key}/", {"reason": ABNORMAL_WHY}, format="json")
        assert done.status_code == 201, done.json()
    decided = api.post(
        f"{base}transition/", {"status": "decided", "reason": CELLS_WHY}, format="json"
    )
    assert decided.status_code == 200, decided.json()
    # Sealed: withdrawing waits for the owner to reopen.
    assert api.delete(path).status_code == 409
