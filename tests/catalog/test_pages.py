"""Catalog pages: who may see them, filters, comparison, bad input, languages, query budgets."""

import pytest
from django.urls import reverse

from catalog.models import Solution
from common import roles

pytestmark = pytest.mark.django_db

ALL_ROLES = [roles.ADMIN, roles.TECH_LEAD, roles.REVIEWER, roles.PROCUREMENT]


def compare_url(*slugs):
    return reverse("catalog:solution_compare") + "?" + "&".join(f"s={s}" for s in slugs)


@pytest.mark.parametrize(
    "url",
    [
        reverse("home"),
        reverse("catalog:solution_list"),
        reverse("catalog:solution_detail", kwargs={"slug": "slurm"}),
        compare_url("slurm", "volcano"),
    ],
)
def test_anonymous_users_are_sent_to_sign_in(client, url):
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("role", ALL_ROLES)
def test_every_role_reads_the_catalog(client, user_for_role, role):
    user = user_for_role(role)
    client.force_login(user)
    listing = client.get(reverse("catalog:solution_list"))
    assert listing.status_code == 200
    assert b"Slurm" in listing.content and b"KubeRay" in listing.content
    detail = client.get(reverse("catalog:solution_detail", kwargs={"slug": "volcano"}))
    assert detail.status_code == 200
    assert b"Gang" in detail.content
    edit_link = reverse("admin:catalog_solution_changelist").encode()
    assert (edit_link in listing.content) == (role == roles.ADMIN)


def test_list_filters_by_type_and_scenario(client, tech_lead):
    client.force_login(tech_lead)
    response = client.get(reverse("catalog:solution_list"), {"type": "cloud-managed"})
    names = [s.slug for s in response.context["solutions"]]
    assert names == ["cloud-managed-gpu"]
    response = client.get(reverse("catalog:solution_list"), {"scenario": "inference"})
    slugs = {s.slug for s in response.context["solutions"]}
    assert "kuberay" in slugs and "slurm" not in slugs
    response = client.get(reverse("catalog:solution_list"), {"type": "no-such-type"})
    assert response.status_code == 200
    assert "type" in response.context["filter"].form.errors


def test_list_answers_htmx_with_the_table_only(client, tech_lead):
    client.force_login(tech_lead)
    response = client.get(
        reverse("catalog:solution_list"), {"q": "ray"}, headers={"HX-Request": "true"}
    )
    assert response.status_code == 200
    body = response.content.decode()
    assert "<html" not in body and "KubeRay" in body and "Slurm" not in body


def test_list_page_query_budget(client, tech_lead, django_assert_max_num_queries):
    client.force_login(tech_lead)
    with django_assert_max_num_queries(10):
        assert client.get(reverse("catalog:solution_list")).status_code == 200


def test_detail_shows_claims_with_sources(client, tech_lead, django_assert_max_num_queries):
    client.force_login(tech_lead)
    with django_assert_max_num_queries(12):
        response = client.get(reverse("catalog:solution_detail", kwargs={"slug": "slurm"}))
    body = response.content.decode()
    assert "SL-gres" in body
    assert 'data-level="native"' in body and 'data-level="none"' in body
    assert client.get("/catalog/no-such-thing/").status_code == 404


def test_comparison_of_eight_runs_in_a_fixed_query_budget(
    client, tech_lead, django_assert_max_num_queries
):
    from tests.factories import SolutionFactory

    SolutionFactory(slug="extra-one")
    slugs = list(Solution.objects.values_list("slug", flat=True)[:8])
    assert len(slugs) == 8
    client.force_login(tech_lead)
    with django_assert_max_num_queries(12):
        response = client.get(compare_url(*slugs))
    assert response.status_code == 200
    comparison = response.context["comparison"]
    assert [s.slug for s in comparison.solutions] == slugs
    rows = [row for g in comparison.groups for row in g.rows]
    assert len(rows) >= 20 and all(len(r.claims) == 8 for r in rows)


def test_comparison_keeps_the_chosen_order_and_marks_differences(client, tech_lead):
    client.force_login(tech_lead)
    response = client.get(compare_url("volcano", "slurm", "kuberay"))
    assert response.status_code == 200
    html = response.content.decode()
    assert html.index(">Volcano<") < html.index(">Slurm<") < html.index(">KubeRay<")
    assert 'class="differs"' in html
    assert 'data-testid="compare-matrix"' in html


@pytest.mark.parametrize(
    "slugs,message",
    [
        ((), "Choose between 2 and 8"),
        (("slurm",), "Choose between 2 and 8"),
        (("slurm", "nope"), "no solution &#x27;nope&#x27;"),
    ],
)
def test_comparison_rejects_bad_choices(client, tech_lead, slugs, message):
    client.force_login(tech_lead)
    url = compare_url(*slugs) if slugs else reverse("catalog:solution_compare") + "?s="
    response = client.get(url)
    assert response.status_code == 400
    assert message in response.content.decode()


def test_comparison_rejects_nine(client, tech_lead):
    from tests.factories import SolutionFactory

    SolutionFactory.create_batch(2)
    client.force_login(tech_lead)
    slugs = list(Solution.objects.values_list("slug", flat=True)[:9])
    response = client.get(compare_url(*slugs))
    assert response.status_code == 400
    assert "you chose 9" in response.content.decode()


def test_pages_render_in_chinese(client, tech_lead):
    client.force_login(tech_lead)
    client.post(reverse("set_language"), {"language": "zh-hans", "next": "/catalog/"})
    body = client.get(compare_url("slurm", "volcano")).content.decode()
    assert "比较方案" in body  # page title
    assert "原生支持" in body or "原生" in body  # support level label
    volcano = Solution.objects.get(slug="volcano")
    assert volcano.summary_zh_hans[:10] in client.get(volcano.get_absolute_url()).content.decode()
