"""Responsibility API: members only (others get 404), roles from the rules, the services' errors
as 400/403/409, optimistic concurrency through version or If-Match, constant query counts."""

from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from evaluations import services as evaluation_services
from evaluations.models import MemberRole
from responsibility import services
from responsibility.models import Area, AreaRow, Cell, CostInput, CostSettings, Party
from tests.factories import add_candidates, make_evaluation

pytestmark = pytest.mark.django_db

READERS = [MemberRole.OWNER, MemberRole.EDITOR, MemberRole.REVIEWER, MemberRole.VIEWER]
EDITORS = [MemberRole.OWNER, MemberRole.EDITOR]
READ_ONLY = [MemberRole.REVIEWER, MemberRole.VIEWER]


@pytest.fixture
def slurm(evaluation, owner):
    (candidate,) = add_candidates(evaluation, owner, "slurm")
    return candidate


@pytest.fixture
def runai(evaluation, owner):
    (candidate,) = add_candidates(evaluation, owner, "runai")
    return candidate


def client_for(user=None) -> APIClient:
    client = APIClient()
    client.default_format = "json"
    if user is not None:
        client.force_authenticate(user)
    return client


def url(evaluation, rest=""):
    return f"/api/evaluations/{evaluation.pk}/{rest}"


def row_url(evaluation, candidate, area_key, rest=""):
    return url(evaluation, f"matrices/{candidate.pk}/rows/{area_key}/{rest}")


def area_count() -> int:
    """Areas a single solution's matrix has (not those between a stack's layers)."""
    return Area.objects.filter(is_active=True, stack_only=False).count()


def nothing_written(evaluation) -> bool:
    return not (
        AreaRow.objects.exists()
        or Party.objects.filter(evaluation=evaluation).exists()
        or CostSettings.objects.exists()
        or CostInput.objects.exists()
    )


# --- who sees and changes what ---------------------------------------------------------------


def every_endpoint(evaluation, candidate):
    base = url(evaluation)
    matrix = f"{base}matrices/{candidate.pk}/"
    # The row writes come after the prefill, so they name the prefilled rows' version.
    return [
        ("get", base + "parties/", None),
        ("post", base + "parties/", {"name": "Systems integrator", "kind": "vendor"}),
        ("get", base + "matrices/", None),
        ("get", matrix, None),
        ("post", matrix + "prefill/", {}),
        ("get", matrix + "rows/job_execution/", None),
        (
            "put",
            matrix + "rows/job_execution/",
            {"letters": {"internal": "A", "business": "R"}, "version": 1},
        ),
        ("put", matrix + "rows/queue_policy/cells/vendor/", {"letter": "R", "version": 1}),
        ("get", base + "costs/", None),
        ("get", base + "costs/settings/", None),
        ("put", base + "costs/settings/", {"years": 5}),
        ("get", base + f"costs/candidates/{candidate.pk}/", None),
        ("put", base + f"costs/candidates/{candidate.pk}/", {"licence_per_year": "1000"}),
    ]


@pytest.mark.parametrize(
    "path",
    [
        "/api/parties/",
        "/api/areas/",
        "/api/evaluations/{pk}/matrices/",
        "/api/evaluations/{pk}/costs/",
    ],
)
def test_anonymous_is_refused(evaluation, slurm, path):
    response = client_for().get(path.format(pk=evaluation.pk))
    assert response.status_code in (401, 403)
    put = client_for().put(
        row_url(evaluation, slurm, "job_execution"), {"letters": {"internal": "A"}}
    )
    assert put.status_code in (401, 403)
    assert not AreaRow.objects.exists()


def test_an_outsider_gets_404_everywhere_and_changes_nothing(evaluation, people, slurm):
    outsider = client_for(people["outsider"])
    for method, path, body in every_endpoint(evaluation, slurm):
        response = getattr(outsider, method)(path, body, format="json")
        assert response.status_code == 404, (method, path, response.status_code)
    assert nothing_written(evaluation)


@pytest.mark.parametrize("role", READ_ONLY)
def test_reviewers_and_viewers_read_everything_but_change_nothing(evaluation, people, slurm, role):
    client = client_for(people[role])
    for method, path, body in every_endpoint(evaluation, slurm):
        response = getattr(client, method)(path, body, format="json")
        expected = 200 if method == "get" else 403
        assert response.status_code == expected, (method, path, response.status_code)
        if method != "get":
            assert "role" in response.json()["detail"]
    assert nothing_written(evaluation)


@pytest.mark.parametrize("role", EDITORS)
def test_owners_and_editors_change_matrices_and_costs(evaluation, people, slurm, role):
    client = client_for(people[role])
    codes = {
        (method, path): getattr(client, method)(path, body, format="json").status_code
        for method, path, body in every_endpoint(evaluation, slurm)
        if method != "get"
    }
    assert set(codes.values()) <= {200, 201}, codes
    assert Party.objects.get(evaluation=evaluation).name == "Systems integrator"
    row = AreaRow.objects.get(candidate=slurm, area__key="job_execution")
    # The prefill came first; the row PUT then replaced its letters.
    assert {c.party.key: c.letter for c in row.cells.all()} == {"internal": "A", "business": "R"}
    queue = AreaRow.objects.get(candidate=slurm, area__key="queue_policy")
    assert queue.cells.get(party__key="vendor").letter == "R"
    assert CostSettings.objects.get(evaluation=evaluation).years == 5
    assert CostInput.objects.get(candidate=slurm).licence_per_year == Decimal("1000")


def test_the_library_is_for_every_signed_in_user(evaluation, people):
    services.party_add(
        user=people[MemberRole.OWNER], evaluation=evaluation, name="SI", kind="other"
    )
    client = client_for(people["outsider"])
    parties = client.get("/api/parties/")
    assert parties.status_code == 200
    assert [p["key"] for p in parties.json()] == [
        "internal",
        "vendor",
        "cloud",
        "business",
        "security",
    ]
    assert all(p["shared"] for p in parties.json())
    areas = client.get("/api/areas/")
    assert areas.status_code == 200
    assert len(areas.json()) == Area.objects.filter(is_active=True).count()
    by_key = {a["key"]: a for a in areas.json()}
    upgrades = by_key["upgrades_maintenance"]
    assert upgrades["name"] == upgrades["name_en"] == "Upgrades and maintenance"
    assert upgrades["name_zh_hans"] == "升级与维护"
    assert upgrades["group"] == {"key": "operations", "name": "Operations"}
    assert upgrades["description"].startswith("Planning and carrying out version upgrades")
    assert by_key["permissions_audit"]["governance"] and not upgrades["governance"]


# --- parties ---------------------------------------------------------------------------------


def test_an_evaluations_own_party_is_listed_and_usable_only_there(evaluation, owner, slurm):
    client = client_for(owner)
    added = client.post(
        url(evaluation, "parties/"), {"name": "Systems integrator", "kind": "vendor"}
    )
    assert added.status_code == 201, added.json()
    assert added.json()["key"] == "systems_integrator" and not added.json()["shared"]
    listed = client.get(url(evaluation, "parties/")).json()
    assert [p["key"] for p in listed][-1] == "systems_integrator"
    assert listed[0]["key"] == "internal" and listed[0]["shared"]
    saved = client.put(
        row_url(evaluation, slurm, "kubernetes_implements"),
        {"letters": {"internal": "A", "systems_integrator": "R"}},
    )
    assert saved.status_code == 201, saved.json()
    assert saved.json()["letters"] == {"internal": "A", "systems_integrator": "R"}
    assert saved.json()["status"] == "ok" and saved.json()["responsible"] == ["systems_integrator"]

    other = make_evaluation(owner, title="Other")
    (volcano,) = add_candidates(other, owner, "volcano")
    assert "systems_integrator" not in [p["key"] for p in client.get(url(other, "parties/")).json()]
    foreign = client.put(
        row_url(other, volcano, "kubernetes_implements"),
        {"letters": {"internal": "A", "systems_integrator": "R"}},
    )
    assert foreign.status_code == 400 and "systems_integrator" in str(foreign.json()["letters"])
    assert not AreaRow.objects.filter(candidate=volcano).exists()


def test_a_party_needs_a_name_and_a_known_kind(evaluation, owner):
    client = client_for(owner)
    nameless = client.post(url(evaluation, "parties/"), {"name": "  ", "kind": "vendor"})
    assert nameless.status_code == 400 and "name" in nameless.json()
    kind = client.post(url(evaluation, "parties/"), {"name": "SI", "kind": "friend"})
    assert kind.status_code == 400 and "friend" in str(kind.json()["kind"])
    assert not Party.objects.filter(evaluation=evaluation).exists()


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


# --- cost of ownership -----------------------------------------------------------------------


def test_cost_of_ownership_matches_a_hand_checked_example(evaluation, owner, slurm):
    client = client_for(owner)
    # 1.25 + 0.75 = 2 FTE of internal effort, at the default 600 000 per FTE-year.
    client.put(row_url(evaluation, slurm, "job_execution"), {"internal_fte": "1.25"})
    client.put(row_url(evaluation, slurm, "fault_handling"), {"internal_fte": "0.75"})
    client.put(url(evaluation, "costs/settings/"), {"years": 3})
    client.put(url(evaluation, f"costs/candidates/{slurm.pk}/"), {"one_off": "100000"})
    response = client.get(url(evaluation, "costs/"))
    assert response.status_code == 200
    body = response.json()
    assert body["years"] == 3 and body["currency"] == "CNY"
    assert body["fte_cost_per_year"] == "600000.00" and body["what_if"] == {}
    (cost,) = body["candidates"]
    assert cost["candidate"] == slurm.pk and cost["fte"] == "2.00"
    assert [y["people"] for y in cost["years"]] == ["1200000.00"] * 3
    assert [y["one_off"] for y in cost["years"]] == ["100000.00", "0.00", "0.00"]
    assert [y["total"] for y in cost["years"]] == ["1300000.00", "1200000.00", "1200000.00"]
    assert [y["cumulative"] for y in cost["years"]] == [
        "1300000.00",
        "2500000.00",
        "3700000.00",
    ]
    assert cost["total"] == "3700000.00" and cost["people_total"] == "3600000.00"
    assert cost["people_share"] == "97.3"


def test_what_if_changes_the_totals_without_saving(evaluation, owner, slurm):
    client = client_for(owner)
    client.put(row_url(evaluation, slurm, "job_execution"), {"internal_fte": "1"})
    client.put(
        url(evaluation, f"costs/candidates/{slurm.pk}/"),
        {
            "gpu_count": 2,
            "gpu_hours_per_year": "1000",
            "gpu_price_per_hour": "10",
            "utilisation": "0.5",
        },
    )

    def total(**params):
        response = client.get(url(evaluation, "costs/"), params)
        assert response.status_code == 200, response.json()
        (cost,) = response.json()["candidates"]
        return cost["total"], cost["years"][0]["cloud"]

    # Cloud: 2 GPUs × 1000 h × 10 × 0.5 = 10 000 a year; people: 1 FTE × 600 000; 3 years.
    assert total() == ("1830000.00", "10000.00")
    assert total(gpu_count=4) == ("1860000.00", "20000.00")
    assert total(gpu_count=4, utilisation="0.25", fte_cost_per_year="300000") == (
        "930000.00",
        "10000.00",
    )
    tried = client.get(url(evaluation, "costs/"), {"fte_cost_per_year": "300000", "gpu_count": ""})
    assert tried.json()["what_if"] == {"fte_cost_per_year": "300000.00"}
    assert tried.json()["fte_cost_per_year"] == "300000.00"
    # Nothing was saved.
    assert total() == ("1830000.00", "10000.00")
    data = CostInput.objects.get()
    assert data.gpu_count == 2 and data.utilisation == Decimal("0.5") and data.version == 1
    assert not CostSettings.objects.exists()


def test_a_candidate_without_cost_inputs_is_missing_not_zero(evaluation, owner, slurm, runai):
    client = client_for(owner)
    client.put(row_url(evaluation, slurm, "job_execution"), {"internal_fte": "1"})
    client.put(row_url(evaluation, runai, "job_execution"), {"internal_fte": "1"})
    client.put(url(evaluation, f"costs/candidates/{slurm.pk}/"), {"one_off": "0"})

    for params in ({}, {"gpu_count": 4}):  # a what-if does not invent Run:ai's prices
        body = client.get(url(evaluation, "costs/"), params).json()
        costs = {c["solution"]["slug"]: c for c in body["candidates"]}
        assert costs["slurm"]["missing"] is False and costs["slurm"]["total"] == "1800000.00"
        assert costs["runai"]["missing"] is True
        assert costs["runai"]["years"] == []
        assert costs["runai"]["total"] is None and costs["runai"]["people_total"] is None
        assert costs["runai"]["people_share"] is None
        assert costs["runai"]["input_version"] == 0

    # The inputs endpoint says so too, until the first save.
    runai_inputs = url(evaluation, f"costs/candidates/{runai.pk}/")
    assert client.get(runai_inputs).json()["missing"] is True
    saved = client.put(runai_inputs, {"licence_per_year": "0"})
    assert saved.status_code == 201 and saved.json()["missing"] is False
    body = client.get(url(evaluation, "costs/")).json()
    assert not any(c["missing"] for c in body["candidates"])


def test_the_schema_documents_missing_costs(owner):
    schemas = client_for(owner).get("/api/schema/", {"format": "json"}).json()
    components = schemas["components"]["schemas"]
    cost = components["CandidateCost"]["properties"]
    assert cost["missing"]["type"] == "boolean" and "not zero" in cost["missing"]["description"]
    for field in ("total", "people_total", "people_share"):
        assert cost[field]["nullable"] is True, field
    assert "missing" in components["CandidateCost"]["required"]
    assert components["CostInput"]["properties"]["missing"]["type"] == "boolean"


@pytest.mark.parametrize(
    "params,field",
    [
        ({"utilisation": "1.5"}, "utilisation"),
        ({"utilisation": "half"}, "utilisation"),
        ({"gpu_count": "-1"}, "gpu_count"),
        ({"gpu_count": "many"}, "gpu_count"),
        ({"gpu_count": "1_000"}, "gpu_count"),
        ({"fte_cost_per_year": "-100"}, "fte_cost_per_year"),
    ],
)
def test_bad_what_if_values_are_refused_with_a_message(evaluation, owner, slurm, params, field):
    response = client_for(owner).get(url(evaluation, "costs/"), params)
    assert response.status_code == 400
    assert response.json()[field]


# --- query budgets ---------------------------------------------------------------------------


def queries(client, path) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(path)
    assert response.status_code == 200
    return len(captured)


def prefilled(evaluation, owner, *slugs):
    candidates = add_candidates(evaluation, owner, *slugs)
    for candidate in candidates:
        services.matrix_prefill(user=owner, candidate=candidate)
        services.cost_input_save(
            user=owner, candidate=candidate, expected_version=None, one_off=Decimal("1000")
        )
    return candidates


def test_list_queries_do_not_grow_with_candidates_or_areas(
    evaluation, owner, django_assert_max_num_queries
):
    client = client_for(owner)
    services.party_add(user=owner, evaluation=evaluation, name="Integrator", kind="vendor")
    prefilled(evaluation, owner, "slurm")
    with django_assert_max_num_queries(8):
        assert len(client.get(url(evaluation, "matrices/")).json()) == 1
    with django_assert_max_num_queries(10):
        assert len(client.get(url(evaluation, "costs/")).json()["candidates"]) == 1
    few = queries(client, url(evaluation, "matrices/")), queries(client, url(evaluation, "costs/"))
    prefilled(evaluation, owner, "volcano", "kuberay", "runai")
    many = queries(client, url(evaluation, "matrices/")), queries(client, url(evaluation, "costs/"))
    assert len(client.get(url(evaluation, "matrices/")).json()) == 4
    assert many == few


def test_one_matrix_costs_a_fixed_number_of_queries(
    evaluation, owner, django_assert_max_num_queries
):
    (slurm,) = prefilled(evaluation, owner, "slurm")
    client = client_for(owner)
    with django_assert_max_num_queries(9):
        body = client.get(url(evaluation, f"matrices/{slurm.pk}/")).json()
    assert len(body["rows"]) == area_count() and all(r["letters"] for r in body["rows"])


# --- schema ----------------------------------------------------------------------------------


def test_the_schema_lists_the_responsibility_endpoints(owner):
    response = client_for(owner).get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    paths = response.json()["paths"]
    matrix = "/api/evaluations/{evaluation_pk}/matrices/{candidate_pk}/"
    for path, methods in [
        ("/api/parties/", {"get"}),
        ("/api/areas/", {"get"}),
        ("/api/evaluations/{evaluation_pk}/parties/", {"get", "post"}),
        ("/api/evaluations/{evaluation_pk}/matrices/", {"get"}),
        (matrix, {"get"}),
        (matrix + "prefill/", {"post"}),
        (matrix + "rows/{area_key}/", {"get", "put"}),
        (matrix + "rows/{area_key}/cells/{party_key}/", {"put"}),
        ("/api/evaluations/{evaluation_pk}/costs/", {"get"}),
        ("/api/evaluations/{evaluation_pk}/costs/settings/", {"get", "put"}),
        ("/api/evaluations/{evaluation_pk}/costs/candidates/{candidate_pk}/", {"get", "put"}),
    ]:
        assert methods <= set(paths.get(path, {})), path
    what_if = paths["/api/evaluations/{evaluation_pk}/costs/"]["get"]["parameters"]
    assert {"gpu_count", "utilisation", "fte_cost_per_year"} <= {p["name"] for p in what_if}
