"""Catalog API: reads for every signed-in user, writes for admins, 400s with field messages."""

import pytest
from rest_framework.test import APIClient

from catalog.models import CapabilityClaim, Solution
from common import roles
from tests.factories import unused_pk

pytestmark = pytest.mark.django_db

ALL_ROLES = [roles.ADMIN, roles.TECH_LEAD, roles.REVIEWER, roles.PROCUREMENT]
NEW_SOLUTION = {
    "slug": "yunikorn",
    "solution_type": "open-source",
    "name_en": "Apache YuniKorn",
    "name_zh_hans": "Apache YuniKorn",
    "maintainer_en": "kubernetes-sigs",
    "maintainer_zh_hans": "kubernetes-sigs",
    "summary_en": "Job queueing for Kubernetes.",
    "summary_zh_hans": "Kubernetes 的作业排队。",
    "deployment_modes": ["kubernetes"],
    "scenarios": ["training"],
}


@pytest.fixture
def api():
    return APIClient()


def as_role(api, user_for_role, role):
    api.force_authenticate(user_for_role(role))
    return api


@pytest.mark.parametrize(
    "path",
    ["/api/catalog/solutions/", "/api/catalog/claims/", "/api/catalog/shortlist-rules/"],
)
def test_anonymous_gets_nothing(api, path):
    assert api.get(path).status_code in (401, 403)


@pytest.mark.parametrize("role", ALL_ROLES)
def test_every_role_reads(api, user_for_role, role, django_assert_max_num_queries):
    as_role(api, user_for_role, role)
    with django_assert_max_num_queries(8):
        response = api.get("/api/catalog/solutions/")
    assert response.status_code == 200
    slugs = {s["slug"] for s in response.json()["results"]}
    assert {"slurm", "volcano", "runai"} <= slugs
    with django_assert_max_num_queries(8):
        claims = api.get("/api/catalog/claims/", {"solution": "slurm", "limit": 100})
    assert claims.status_code == 200
    assert claims.json()["count"] >= 20


@pytest.mark.parametrize("role", [roles.TECH_LEAD, roles.REVIEWER, roles.PROCUREMENT])
def test_non_admin_writes_are_forbidden(api, user_for_role, role):
    as_role(api, user_for_role, role)
    assert api.post("/api/catalog/solutions/", NEW_SOLUTION, format="json").status_code == 403
    assert (
        api.patch("/api/catalog/solutions/slurm/", {"licence": "x"}, format="json").status_code
        == 403
    )
    assert api.delete("/api/catalog/solutions/slurm/").status_code == 403
    assert Solution.objects.get(slug="slurm").licence != "x"


def test_admin_creates_a_solution_and_a_claim(api, admin_user):
    api.force_authenticate(admin_user)
    response = api.post("/api/catalog/solutions/", NEW_SOLUTION, format="json")
    assert response.status_code == 201, response.json()
    assert Solution.objects.get(slug="yunikorn").name_zh_hans == "Apache YuniKorn"
    claim = {
        "solution": "yunikorn",
        "capability": "gang-scheduling",
        "level": "native",
        "as_of_version": "v0.19.2",
        "sources": ["KQ-aon"],
        "note_en": "All-or-nothing admission.",
        "note_zh_hans": "全有或全无的准入。",
    }
    response = api.post("/api/catalog/claims/", claim, format="json")
    assert response.status_code == 201, response.json()


def test_reads_follow_the_request_language(api, tech_lead):
    api.force_authenticate(tech_lead)
    zh = api.get("/api/catalog/solution-types/open-source/", HTTP_ACCEPT_LANGUAGE="zh-hans")
    en = api.get("/api/catalog/solution-types/open-source/", HTTP_ACCEPT_LANGUAGE="en")
    assert zh.json()["name"] == zh.json()["name_zh_hans"]
    assert en.json()["name"] == en.json()["name_en"]
    assert zh.json()["name"] != en.json()["name"]


def test_unknown_support_level_is_rejected(api, admin_user):
    api.force_authenticate(admin_user)
    response = api.patch(
        f"/api/catalog/claims/{CapabilityClaim.objects.first().pk}/",
        {"level": "excellent"},
        format="json",
    )
    assert response.status_code == 400
    assert "level" in response.json()


def test_known_level_without_source_is_rejected_and_nothing_changes(api, admin_user):
    api.force_authenticate(admin_user)
    claim = CapabilityClaim.objects.filter(level="unknown").first()
    response = api.patch(
        f"/api/catalog/claims/{claim.pk}/", {"level": "native", "sources": []}, format="json"
    )
    assert response.status_code == 400
    assert "source" in str(response.json()["sources"])
    claim.refresh_from_db()
    assert claim.level == "unknown"


def test_duplicate_slug_is_rejected(api, admin_user):
    api.force_authenticate(admin_user)
    response = api.post("/api/catalog/solutions/", {**NEW_SOLUTION, "slug": "slurm"}, format="json")
    assert response.status_code == 400
    assert "slug" in response.json()


def test_bad_fields_each_get_a_message_and_nothing_is_saved(api, admin_user):
    api.force_authenticate(admin_user)
    before = Solution.objects.count()
    response = api.post(
        "/api/catalog/solutions/",
        {
            **NEW_SOLUTION,
            "slug": "Not A Slug",
            "solution_type": "no-such-type",
            "scenarios": ["training", "no-such-scenario"],
            "name_zh_hans": "",
        },
        format="json",
    )
    assert response.status_code == 400
    body = response.json()
    assert {"slug", "solution_type", "scenarios", "name_zh_hans"} <= set(body)
    assert Solution.objects.count() == before


def test_unknown_deployment_mode_is_rejected(api, admin_user):
    api.force_authenticate(admin_user)
    response = api.post(
        "/api/catalog/solutions/",
        {**NEW_SOLUTION, "deployment_modes": ["kubernetes", "mainframe"]},
        format="json",
    )
    assert response.status_code == 400
    assert "mainframe" in str(response.json()["deployment_modes"])


def test_duplicate_claim_is_rejected(api, admin_user):
    api.force_authenticate(admin_user)
    response = api.post(
        "/api/catalog/claims/",
        {"solution": "slurm", "capability": "gang-scheduling", "level": "unknown"},
        format="json",
    )
    assert response.status_code == 400


def test_compare_returns_the_matrix(api, tech_lead, django_assert_max_num_queries):
    api.force_authenticate(tech_lead)
    slugs = list(Solution.objects.values_list("slug", flat=True)[:8])
    with django_assert_max_num_queries(8):
        response = api.get("/api/catalog/solutions/compare/", {"solutions": ",".join(slugs)})
    assert response.status_code == 200
    body = response.json()
    assert [s["slug"] for s in body["solutions"]] == slugs
    row = body["groups"][0]["rows"][0]
    assert set(row["levels"]) == set(slugs)


@pytest.mark.parametrize(
    "param,message",
    [
        ("", "at least 2"),
        ("slurm", "at least 2"),
        (
            "slurm,volcano,kuberay,runai,kubernetes-gpu,cloud-managed-gpu,"
            "enterprise-container-platform,a,b",
            "at most 8",
        ),
        ("slurm,not-a-solution", "Unknown solution(s): not-a-solution"),
        ("slurm,slurm", "only once"),
    ],
)
def test_compare_rejects_bad_input(api, tech_lead, param, message):
    api.force_authenticate(tech_lead)
    response = api.get("/api/catalog/solutions/compare/", {"solutions": param})
    assert response.status_code == 400
    assert message in str(response.json()["solutions"])


def test_unknown_object_is_404(api, tech_lead):
    api.force_authenticate(tech_lead)
    assert api.get("/api/catalog/solutions/nope/").status_code == 404
    assert api.get(f"/api/catalog/claims/{unused_pk(CapabilityClaim)}/").status_code == 404


def test_schema_and_docs_are_served_without_a_cdn(client, tech_lead):
    client.force_login(tech_lead)
    schema = client.get("/api/schema/")
    assert schema.status_code == 200
    assert b"/api/catalog/solutions/compare/" in schema.content
    docs = client.get("/api/docs/")
    assert docs.status_code == 200
    html = docs.content.decode()
    assert "swagger-ui" in html
    assert "https://" not in html and "http://cdn" not in html
    asset = client.get("/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js")
    assert asset.status_code == 200
