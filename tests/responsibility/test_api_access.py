"""Responsibility API: members only (others get 404), roles from the rules, parties, and the
schema listing every endpoint."""

from decimal import Decimal

import pytest

from evaluations.models import MemberRole
from responsibility import services
from responsibility.models import Area, AreaRow, CostInput, CostSettings, Party
from tests.factories import add_candidates, make_evaluation
from tests.responsibility.api_support import (
    EDITORS,
    READ_ONLY,
    client_for,
    nothing_written,
    row_url,
    url,
)

pytestmark = pytest.mark.django_db


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
