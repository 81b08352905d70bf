"""Responsibility API, matrices: prefill by type, the services' errors as 400/403/409, and
optimistic concurrency through version or If-Match."""

from decimal import Decimal

import pytest

from evaluations import services as evaluation_services
from evaluations.models import MemberRole
from responsibility.models import Area, AreaRow, Cell, CostInput, CostSettings
from tests.factories import add_candidates, make_evaluation
from tests.responsibility.api_support import (
    area_count,
    client_for,
    row_url,
    url,
)

pytestmark = pytest.mark.django_db


# --- matrices --------------------------------------------------------------------------------


def test_prefill_gives_an_open_source_candidate_an_internal_owner(evaluation, owner, slurm):
    client = client_for(owner)
    response = client.post(url(evaluation, f"matrices/{slurm.pk}/prefill/"))
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["added"] == area_count() and body["started"]
    rows = {r["area"]: r for r in body["rows"]}
    upgrades = rows["upgrades_maintenance"]
    assert upgrades["letters"] == {"internal": "AR", "security": "C", "business": "I"}
    assert upgrades["accountable"] == ["internal"] and upgrades["internal_fte"] == "0.50"
    assert upgrades["responsible"] == ["internal"] and upgrades["status"] == "ok"
    assert body["coverage"] == "100.0" and body["complete"]
    assert upgrades["version"] == 1
    assert Decimal(body["fte_total"]) > 0


def test_prefill_gives_an_enterprise_platform_a_vendor_owner_and_keeps_edited_rows(
    evaluation, owner, runai
):
    client = client_for(owner)
    edited = client.put(
        row_url(evaluation, runai, "upgrade_cadence"),
        {"letters": {"internal": "A", "vendor": "R"}, "note": "We upgrade ourselves"},
    )
    assert edited.status_code == 201
    response = client.post(url(evaluation, f"matrices/{runai.pk}/prefill/"))
    assert response.status_code == 200
    body = response.json()
    assert body["added"] == area_count() - 1
    rows = {r["area"]: r for r in body["rows"]}
    assert rows["upgrade_cadence"]["letters"] == {"internal": "A", "vendor": "R"}
    assert rows["upgrade_cadence"]["note"] == "We upgrade ourselves"
    assert rows["security_patches"]["accountable"] == ["vendor"]
    again = client.post(url(evaluation, f"matrices/{runai.pk}/prefill/")).json()
    assert again["added"] == 0


def test_prefill_on_a_fresh_enterprise_platform_makes_the_vendor_accountable(
    evaluation, owner, runai
):
    body = client_for(owner).post(url(evaluation, f"matrices/{runai.pk}/prefill/")).json()
    cadence = next(r for r in body["rows"] if r["area"] == "upgrade_cadence")
    assert cadence["letters"] == {"vendor": "A", "internal": "R", "business": "I"}
    assert cadence["status"] == "ok"


def test_two_accountable_parties_are_refused_and_nothing_is_saved(evaluation, owner, slurm):
    client = client_for(owner)
    response = client.put(
        row_url(evaluation, slurm, "fault_handling"),
        {"letters": {"internal": "A", "vendor": "A"}, "note": "Both", "internal_fte": "1"},
    )
    assert response.status_code == 400
    assert "Only one party can be accountable" in str(response.json()["letters"])
    assert not AreaRow.objects.exists() and not Cell.objects.exists()
    row = client.get(row_url(evaluation, slurm, "fault_handling"))
    assert row["ETag"] == '"0"' and row.json()["letters"] == {} and row.json()["note"] == ""


def test_a_letter_outside_raci_is_refused(evaluation, owner, slurm):
    client = client_for(owner)
    row = client.put(row_url(evaluation, slurm, "fault_handling"), {"letters": {"internal": "X"}})
    assert row.status_code == 400 and "'X'" in str(row.json()["letters"])
    cell = client.put(
        row_url(evaluation, slurm, "fault_handling", "cells/internal/"), {"letter": "Q"}
    )
    assert cell.status_code == 400 and "'Q'" in str(cell.json()["letter"])
    assert not AreaRow.objects.exists()


def test_unknown_areas_and_parties_are_named(evaluation, owner, slurm):
    client = client_for(owner)
    area = client.put(row_url(evaluation, slurm, "time_travel"), {"letters": {"internal": "A"}})
    assert area.status_code == 404 and "time_travel" in area.json()["detail"]
    assert client.get(row_url(evaluation, slurm, "time_travel")).status_code == 404
    party = client.put(
        row_url(evaluation, slurm, "fault_handling"), {"letters": {"internal": "A", "ghost": "R"}}
    )
    assert party.status_code == 400 and "ghost" in str(party.json()["letters"])
    cell = client.put(row_url(evaluation, slurm, "fault_handling", "cells/ghost/"), {"letter": "R"})
    assert cell.status_code == 404 and "ghost" in cell.json()["detail"]
    Area.objects.filter(key="training").update(is_active=False)
    retired = client.get(row_url(evaluation, slurm, "training"))
    assert retired.status_code == 404
    assert not AreaRow.objects.exists()


def test_another_evaluations_candidate_is_404(evaluation, owner, slurm):
    other = make_evaluation(owner, title="Other")
    (foreign,) = add_candidates(other, owner, "volcano")
    client = client_for(owner)
    for method, path, body in [
        ("get", url(evaluation, f"matrices/{foreign.pk}/"), None),
        ("post", url(evaluation, f"matrices/{foreign.pk}/prefill/"), {}),
        ("get", row_url(evaluation, foreign, "job_execution"), None),
        ("put", row_url(evaluation, foreign, "job_execution"), {"letters": {"internal": "A"}}),
        ("put", row_url(evaluation, foreign, "job_execution", "cells/internal/"), {"letter": "A"}),
        ("get", url(evaluation, f"costs/candidates/{foreign.pk}/"), None),
        ("put", url(evaluation, f"costs/candidates/{foreign.pk}/"), {"one_off": "5"}),
    ]:
        response = getattr(client, method)(path, body, format="json")
        assert response.status_code == 404, (method, path, response.status_code)
    assert not AreaRow.objects.exists() and not CostInput.objects.exists()


def test_an_eliminated_candidate_is_read_only(evaluation, owner, slurm):
    evaluation_services.candidate_eliminate(
        user=owner, candidate=slurm, reason="No HPC team", expected_version=1
    )
    client = client_for(owner)
    assert client.get(url(evaluation, "matrices/")).json() == []
    assert client.get(url(evaluation, f"matrices/{slurm.pk}/")).status_code == 200
    for method, path, body in [
        ("post", url(evaluation, f"matrices/{slurm.pk}/prefill/"), {}),
        ("put", row_url(evaluation, slurm, "job_execution"), {"letters": {"internal": "A"}}),
        ("put", url(evaluation, f"costs/candidates/{slurm.pk}/"), {"one_off": "5"}),
    ]:
        response = getattr(client, method)(path, body, format="json")
        assert response.status_code == 409, (path, response.status_code)
        assert "restore it first" in response.json()["detail"]
    assert not AreaRow.objects.exists() and not CostInput.objects.exists()


def test_the_check_follows_every_write(evaluation, owner, slurm):
    client = client_for(owner)
    total = area_count()

    def summary():
        (item,) = client.get(url(evaluation, "matrices/")).json()
        return item

    fresh = summary()
    assert fresh["candidate"] == slurm.pk and fresh["solution"]["slug"] == "slurm"
    assert fresh["coverage"] == "0.0" and fresh["unanswered"] == total and not fresh["started"]
    ok = client.put(
        row_url(evaluation, slurm, "job_execution"),
        {"letters": {"internal": "A", "business": "R"}, "internal_fte": "0.5"},
    )
    assert ok.json()["status"] == "ok" and ok["ETag"] == '"1"'
    after_ok = summary()
    assert after_ok["ok"] == 1 and after_ok["started"] and after_ok["fte_total"] == "0.50"
    assert after_ok["coverage"] == str((Decimal(100) / total).quantize(Decimal("0.1")))

    conflict = client.put(
        row_url(evaluation, slurm, "job_execution", "cells/vendor/"), {"letter": "A", "version": 1}
    )
    assert conflict.status_code == 200
    assert conflict.json()["status"] == "conflict"
    assert conflict.json()["accountable"] == ["internal", "vendor"]
    gap = client.put(row_url(evaluation, slurm, "queue_policy"), {"letters": {"business": "R"}})
    assert gap.json()["status"] == "gap"
    lone = client.put(row_url(evaluation, slurm, "fault_handling"), {"letters": {"internal": "A"}})
    assert lone.json()["status"] == "no_responsible"
    item = summary()
    assert (item["ok"], item["conflicts"], item["gaps"], item["no_responsible"]) == (0, 1, 1, 1)
    assert item["unanswered"] == total - 3 and item["coverage"] == "0.0"
    # Clearing the vendor's A settles the conflict.
    cleared = client.put(
        row_url(evaluation, slurm, "job_execution", "cells/vendor/"), {"letter": "", "version": 2}
    )
    assert cleared.json()["letters"] == {"internal": "A", "business": "R"}
    assert cleared.json()["status"] == "ok" and cleared["ETag"] == '"3"'
    detail = client.get(url(evaluation, f"matrices/{slurm.pk}/")).json()
    statuses = {r["area"]: r["status"] for r in detail["rows"]}
    assert statuses["job_execution"] == "ok" and statuses["queue_policy"] == "gap"
    assert detail["ok"] == 1 and detail["conflicts"] == 0
    assert [p["key"] for p in detail["parties"]][:2] == ["internal", "vendor"]
    assert "permissions_audit" in detail["governance_without_internal_owner"]


def test_a_row_keeps_what_a_put_leaves_out(evaluation, owner, slurm):
    client = client_for(owner)
    path = row_url(evaluation, slurm, "user_support")
    client.put(path, {"letters": {"internal": "A", "business": "R"}, "note": "Helpdesk"})
    response = client.put(path, {"internal_fte": "0.75", "version": 1})
    assert response.status_code == 200
    body = response.json()
    assert body["note"] == "Helpdesk" and body["internal_fte"] == "0.75"
    assert body["letters"] == {"internal": "A", "business": "R"}
    negative = client.put(path, {"internal_fte": "-0.5", "version": 2})
    assert negative.status_code == 400 and "internal_fte" in negative.json()
    assert AreaRow.objects.get().internal_fte == Decimal("0.75")


# --- concurrency -----------------------------------------------------------------------------


def test_two_people_editing_one_row(evaluation, people, slurm):
    path = row_url(evaluation, slurm, "fault_handling")
    owner = client_for(people[MemberRole.OWNER])
    editor = client_for(people[MemberRole.EDITOR])
    assert owner.get(path)["ETag"] == '"0"'
    created = owner.put(path, {"letters": {"internal": "A", "vendor": "R"}}, HTTP_IF_MATCH='"0"')
    assert created.status_code == 201 and created["ETag"] == '"1"'
    # The editor also saw nothing saved: a second "create" must not overwrite the first.
    late = editor.put(path, {"letters": {"vendor": "A"}, "version": 0})
    assert late.status_code == 409
    assert late.json()["current"]["letters"] == {"internal": "A", "vendor": "R"}
    # Updating a saved row without saying which version is refused.
    for blind in [
        editor.put(path, {"letters": {"vendor": "A"}}),
        editor.put(path + "cells/vendor/", {"letter": "A"}),
    ]:
        assert blind.status_code == 428 and "If-Match" in blind.json()["detail"]
    updated = editor.put(path, {"letters": {"vendor": "A", "internal": "R"}, "version": 1})
    assert updated.status_code == 200 and updated["ETag"] == '"2"'
    stale = owner.put(path, {"note": "Mine", "version": 1})
    assert stale.status_code == 409
    assert stale.json()["current"]["version"] == 2
    assert stale.json()["current"]["letters"] == {"vendor": "A", "internal": "R"}
    stale_header = owner.put(path + "cells/cloud/", {"letter": "C"}, HTTP_IF_MATCH=created["ETag"])
    assert stale_header.status_code == 412
    assert stale_header.json()["current"]["accountable"] == ["vendor"]
    row = AreaRow.objects.get()
    assert row.version == 2 and row.note == ""
    assert {c.party.key: c.letter for c in row.cells.all()} == {"vendor": "A", "internal": "R"}


def test_cost_settings_and_inputs_are_versioned(evaluation, owner, slurm):
    client = client_for(owner)
    settings = client.get(url(evaluation, "costs/settings/"))
    assert settings["ETag"] == '"0"'
    assert settings.json() == {
        "years": 3,
        "currency": "CNY",
        "fte_cost_per_year": "600000.00",
        "version": 0,
    }
    created = client.put(url(evaluation, "costs/settings/"), {"years": 5, "currency": "usd"})
    assert created.status_code == 201 and created["ETag"] == '"1"'
    assert created.json()["currency"] == "USD"
    blind = client.put(url(evaluation, "costs/settings/"), {"years": 4})
    assert blind.status_code == 428
    stale = client.put(url(evaluation, "costs/settings/"), {"years": 4}, HTTP_IF_MATCH='"0"')
    assert stale.status_code == 412 and stale.json()["current"]["years"] == 5

    inputs = url(evaluation, f"costs/candidates/{slurm.pk}/")
    empty = client.get(inputs)
    assert empty["ETag"] == '"0"' and empty.json()["one_off"] == "0.00"
    assert not empty.json()["has_price"]
    saved = client.put(inputs, {"licence_per_year": "1200.5", "gpu_price_per_hour": "2.5"})
    assert saved.status_code == 201 and saved.json()["licence_per_year"] == "1200.50"
    assert saved.json()["gpu_price_per_hour"] == "2.5000" and saved.json()["has_price"]
    assert client.put(inputs, {"one_off": "1"}).status_code == 428
    stale = client.put(inputs, {"one_off": "1", "version": 0})
    assert stale.status_code == 409 and stale.json()["current"]["licence_per_year"] == "1200.50"
    updated = client.put(inputs, {"one_off": "1", "version": 1})
    assert updated.status_code == 200 and updated["ETag"] == '"2"'
    assert updated.json()["licence_per_year"] == "1200.50" and updated.json()["one_off"] == "1.00"


@pytest.mark.parametrize(
    "path,body,field",
    [
        ("costs/settings/", {"fte_cost_per_year": "-1"}, "fte_cost_per_year"),
        ("costs/settings/", {"years": 0}, "years"),
        ("costs/settings/", {"currency": "12"}, "currency"),
        ("costs/candidates/{c}/", {"licence_per_year": "-0.01"}, "licence_per_year"),
        ("costs/candidates/{c}/", {"hardware_one_off": "-5"}, "hardware_one_off"),
        ("costs/candidates/{c}/", {"gpu_count": -1}, "gpu_count"),
        ("costs/candidates/{c}/", {"gpu_count": "1_000"}, "gpu_count"),
        ("costs/candidates/{c}/", {"gpu_count": "١٢٣"}, "gpu_count"),
        ("costs/candidates/{c}/", {"gpu_count": 2.5}, "gpu_count"),
        ("costs/candidates/{c}/", {"licence_per_year": "1_000"}, "licence_per_year"),
        ("costs/candidates/{c}/", {"utilisation": "1.5"}, "utilisation"),
    ],
)
def test_negative_or_out_of_range_costs_are_refused(evaluation, owner, slurm, path, body, field):
    response = client_for(owner).put(url(evaluation, path.format(c=slurm.pk)), body)
    assert response.status_code == 400
    assert field in response.json()
    assert not CostSettings.objects.exists() and not CostInput.objects.exists()
