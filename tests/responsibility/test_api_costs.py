"""Responsibility API, cost of ownership: hand-checked totals, what-if without saving, missing
inputs, refused values, and query counts that do not grow with candidates or areas."""

from decimal import Decimal

import pytest

from responsibility import services
from responsibility.models import CostInput, CostSettings
from tests.responsibility.api_support import (
    area_count,
    client_for,
    prefilled,
    queries,
    row_url,
    url,
)

pytestmark = pytest.mark.django_db


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
