"""POC API, the plan: the owner builds it, it is the same for every candidate, and the library's
texts follow the request's language."""

import pytest

from poc.models import PlanCase, TestCase, TestGroup
from tests.poc.api.support import (
    client_for,
    url,
)

pytestmark = pytest.mark.django_db


# --- the plan --------------------------------------------------------------------------------


def test_the_owner_builds_the_plan(evaluation, owner, poc):
    client = client_for(owner)
    plan = client.get(url(evaluation, "plan/")).json()
    assert [g["key"] for g in plan["groups"]] == list(
        TestGroup.objects.values_list("key", flat=True)
    )
    gang = next(c for c in plan["cases"] if c["id"] == poc["case"].pk)
    assert gang["title"] == "Gang scheduling under contention" and gang["acceptance"]
    assert gang["library_case"] == "gang_under_contention"

    # Remove a case, then add it back from the library.
    path = url(evaluation, f"plan/cases/{poc['case'].pk}/")
    assert client.delete(path).status_code == 204
    assert client.get(path).status_code == 404
    added = client.post(url(evaluation, "plan/cases/"), {"library_case": "gang_under_contention"})
    assert added.status_code == 201 and added["ETag"] == '"1"'
    again = client.post(url(evaluation, "plan/cases/"), {"library_case": "gang_under_contention"})
    assert again.status_code == 400 and "already in the plan" in str(again.json())
    assert client.post(url(evaluation, "plan/init/")).json()["added"] == 0

    # An own case with a metric; half a metric is refused.
    own = client.post(
        url(evaluation, "plan/cases/"),
        {
            "group": "governance",
            "title": "Audit export",
            "acceptance": "Exports a day of audit events in under a minute.",
            "weight": "2",
            "metric_name": "Export time",
            "metric_unit": "s",
            "metric_direction": "lower",
            "metric_threshold": "60",
        },
    )
    assert own.status_code == 201, own.json()
    body = own.json()
    assert body["library_case"] is None and body["metric"]["unit"] == "s"
    assert own["Location"] == url(evaluation, f"plan/cases/{body['id']}/")
    half = client.post(
        url(evaluation, "plan/cases/"),
        {"group": "governance", "title": "X", "acceptance": "Y", "metric_direction": "lower"},
    )
    assert half.status_code == 400 and "metric_threshold" in half.json()
    assert client.post(url(evaluation, "plan/cases/"), {"title": "No group"}).status_code == 400

    # Weights change with If-Match; a profile sets the group weights.
    case_path = url(evaluation, f"plan/cases/{body['id']}/")
    etag = client.get(case_path)["ETag"]
    changed = client.patch(case_path, {"weight": "4.5"}, HTTP_IF_MATCH=etag)
    assert changed.status_code == 200 and changed.json()["weight"] == "4.50"
    assert changed["ETag"] == '"2"'
    negative = client.patch(case_path, {"weight": "-1", "version": 2})
    assert negative.status_code == 400 and "weight" in negative.json()
    applied = client.post(url(evaluation, "plan/profile/"), {"profile": "training_heavy"})
    weights = {g["key"]: g["weight"] for g in applied.json()["groups"]}
    assert weights["batch_training"] == "45.00" and weights["inference_serving"] == "10.00"
    group_path = url(evaluation, "plan/groups/batch_training/")
    group = client.get(group_path)
    assert group.status_code == 200 and group.json()["weight"] == "45.00"
    saved = client.patch(group_path, {"weight": "30", "version": group.json()["version"]})
    assert saved.status_code == 200 and saved.json()["weight"] == "30.00"
    assert client.get(url(evaluation, "plan/groups/nope/")).status_code == 404
    assert client.post(url(evaluation, "plan/profile/"), {"profile": "nope"}).status_code == 400


def test_the_plan_is_the_same_for_every_candidate(evaluation, owner, poc):
    client = client_for(owner)
    slurm, volcano = poc["slurm"], poc["volcano"]
    before = PlanCase.objects.count()
    weight_before = poc["case"].weight
    response = client.post(
        url(evaluation, "plan/cases/"),
        {"group": "governance", "title": "Only Slurm", "acceptance": "x", "candidate": slurm.pk},
    )
    assert response.status_code == 400 and "every candidate" in response.json()["candidate"][0]
    assert PlanCase.objects.count() == before
    weight = client.patch(
        url(evaluation, f"plan/cases/{poc['case'].pk}/"),
        {"weight": "0", "version": 1, "candidate": slurm.pk},
    )
    assert weight.status_code == 400
    poc["case"].refresh_from_db()
    assert (poc["case"].weight, poc["case"].version) == (weight_before, 1)

    created = client.post(
        url(evaluation, "plan/cases/"),
        {"group": "governance", "title": "Audit export", "acceptance": "Under a minute."},
    )
    assert created.status_code == 201
    card = client.get(url(evaluation, "scorecard/")).json()
    columns = {c["candidate"] for c in card["cells"] if c["case"] == created.json()["id"]}
    assert columns == {slurm.pk, volcano.pk}


def test_library_texts_follow_the_request_language(evaluation, owner, poc):
    library = TestCase.objects.get(key="gang_under_contention")
    plan = client_for(owner).get(url(evaluation, "plan/"), HTTP_ACCEPT_LANGUAGE="zh-hans").json()
    gang = next(c for c in plan["cases"] if c["id"] == poc["case"].pk)
    assert gang["title"] == library.title_zh_hans != library.title_en
    assert gang["acceptance"] == library.acceptance_zh_hans
