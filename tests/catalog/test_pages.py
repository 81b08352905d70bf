"""Catalog pages: who may see them, filters, comparison, bad input, languages, query budgets."""

from datetime import date

import pytest
from django.urls import reverse
from django.utils import translation

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
    from tests.catalog.test_entries import CLOUDS

    names = {s.slug for s in response.context["solutions"]}
    assert names == {"cloud-managed-gpu", *CLOUDS}
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
    # +3: accelerator support, the families, and whether the viewer may edit claims
    with django_assert_max_num_queries(15):
        response = client.get(reverse("catalog:solution_detail", kwargs={"slug": "slurm"}))
    body = response.content.decode()
    assert "SL-gres" in body
    assert 'data-level="native"' in body and 'data-level="none"' in body
    assert client.get("/catalog/no-such-thing/").status_code == 404


def test_detail_shows_when_each_claim_was_checked_and_which_are_stale(client, tech_lead):
    from catalog.models import CapabilityClaim, Source, SupportLevel

    claims = CapabilityClaim.objects.filter(solution__slug="volcano").order_by("pk")
    old, bare = claims.filter(level=SupportLevel.NATIVE)[:2]
    old.sources.set([Source.objects.create(key="old", title="Old", as_of="page dated 2023-02")])
    old.as_of_version = ""
    old.checked_on = None
    old.save()
    bare.sources.clear()
    bare.as_of_version = ""
    bare.save()
    unknown = claims.filter(level=SupportLevel.UNKNOWN).count()
    client.force_login(tech_lead)
    body = client.get(reverse("catalog:solution_detail", kwargs={"slug": "volcano"})).content
    body = body.decode()
    stale = body.count('data-testid="stale"')
    assert stale >= 1 and body.count('data-testid="unsourced"') == 1
    assert "checked 2023-02" in body  # a source's date, as written
    assert "checked 2026-12-03" in body  # a claim's checked-on day
    summary = body[body.index('data-testid="freshness-summary"') :].split("</p>")[0]
    assert f"{stale} claim" in summary and f"{unknown} claim" in summary
    with translation.override("zh-hans"):
        chinese = client.get(
            reverse("catalog:solution_detail", kwargs={"slug": "volcano"}),
            HTTP_ACCEPT_LANGUAGE="zh-hans",
        ).content.decode()
    assert "过期" in chinese


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


# --- the pick survives a filter change and a refused comparison -------------------------------


def ticked(html: str) -> set[str]:
    """Slugs of the ticked compare boxes in a catalog page or table."""
    import re

    boxes = re.findall(r'<input type="checkbox" name="s" value="([^"]+)"[^>]*>', html)
    tags = re.findall(r'<input type="checkbox" name="s"[^>]*>', html)
    return {slug for slug, tag in zip(boxes, tags, strict=True) if " checked" in tag}


def test_filter_request_keeps_the_ticked_solutions(client, tech_lead):
    client.force_login(tech_lead)
    response = client.get(
        reverse("catalog:solution_list"),
        {"scenario": "inference", "s": ["kuberay", "slurm"]},
        headers={"HX-Request": "true"},
    )
    body = response.content.decode()
    assert "<html" not in body
    # KubeRay is in the table and still ticked; Slurm is filtered out but stays ticked below.
    assert ticked(body) == {"kuberay", "slurm"}
    table, below = body.split("</table>", 1)
    assert 'id="pick-kuberay"' in table and 'value="slurm"' not in table
    assert 'data-testid="chosen-hidden"' in below and "Slurm" in below
    # Nothing ticked: nothing extra below the table.
    plain = client.get(reverse("catalog:solution_list"), headers={"HX-Request": "true"})
    assert ticked(plain.content.decode()) == set()
    assert 'data-testid="chosen-hidden"' not in plain.content.decode()


def test_full_page_keeps_the_pick_from_the_address(client, tech_lead):
    """A reload (the filters push the pick into the address) shows the same boxes ticked."""
    client.force_login(tech_lead)
    response = client.get(reverse("catalog:solution_list") + "?s=volcano&s=slurm&s=nope")
    assert response.status_code == 200
    assert ticked(response.content.decode()) == {"volcano", "slurm"}
    assert 'hx-include="#compare-form input[name=s]"' in response.content.decode()


def test_the_pick_costs_one_query_however_many_are_ticked(client, tech_lead):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(tech_lead)

    def queries(**params):
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(reverse("catalog:solution_list"), params).status_code == 200
        return len(ctx)

    none = queries(type="open-source")
    two = queries(type="open-source", s=["slurm", "runai"])
    six = queries(
        type="open-source",
        s=["slurm", "runai", "volcano", "kuberay", "cloud-managed-gpu", "kubernetes-gpu"],
    )
    assert two == six == none + 1


@pytest.mark.parametrize(
    "slugs,kept,message",
    [
        (("slurm",), {"slurm"}, "Choose between 2 and 8 solutions to compare (you chose 1)."),
        ((), set(), "Choose between 2 and 8 solutions to compare (you chose 0)."),
        (("slurm", "nope"), {"slurm"}, "There is no solution &#x27;nope&#x27; in the catalog."),
    ],
)
def test_refused_comparison_shows_the_list_with_the_pick_kept(
    client, tech_lead, slugs, kept, message
):
    client.force_login(tech_lead)
    url = compare_url(*slugs) if slugs else reverse("catalog:solution_compare") + "?s="
    response = client.get(url)
    assert response.status_code == 400
    assert "catalog/solution_list.html" in [t.name for t in response.templates]
    body = response.content.decode()
    assert ticked(body) == kept
    # The reason sits next to the compare button, announced to screen readers.
    actions = body[body.index('data-testid="compare-button"') :]
    assert 'role="alert"' in actions and message in actions
    assert 'aria-describedby="compare-error"' in body


def test_refused_comparison_keeps_the_filters_and_hidden_ticks(client, tech_lead):
    from tests.factories import SolutionFactory

    SolutionFactory.create_batch(2)
    slugs = list(Solution.objects.values_list("slug", flat=True)[:9])
    client.force_login(tech_lead)
    response = client.get(compare_url(*slugs) + "&type=open-source")
    assert response.status_code == 400
    body = response.content.decode()
    assert "you chose 9" in body
    assert [s.solution_type.slug for s in response.context["solutions"]] == ["open-source"] * len(
        response.context["solutions"]
    )
    assert ticked(body) == set(slugs)  # the ones the filter hides stay ticked below the table
    assert '<input type="hidden" name="type" value="open-source">' in body


def test_compare_form_carries_the_filters_in_force(client, tech_lead):
    client.force_login(tech_lead)
    body = client.get(
        reverse("catalog:solution_list"), {"type": "open-source", "q": ""}
    ).content.decode()
    form = body[body.index('id="compare-form"') :]
    assert '<input type="hidden" name="type" value="open-source">' in form
    assert 'type="hidden" name="q"' not in form  # an empty filter is not carried


def test_refused_comparison_in_chinese(client, tech_lead):
    client.force_login(tech_lead)
    client.post(reverse("set_language"), {"language": "zh-hans", "next": "/catalog/"})
    with translation.override("en"):  # the requests' language must not outlive the test
        refused = client.get(compare_url("slurm")).content.decode()
        filtered = client.get(
            reverse("catalog:solution_list"), {"type": "cloud-managed", "s": "slurm"}
        ).content.decode()
    assert "请选择 2 至 8 个方案进行比较（当前已选 1 个）。" in refused
    assert "已勾选，但被筛选条件隐藏：" in filtered


def test_a_newer_release_makes_the_claims_about_the_older_one_stale(client, tech_lead):
    from catalog.models import CapabilityClaim, Solution
    from catalog.selectors import catalog_counts

    on_old = CapabilityClaim.objects.filter(solution__slug="volcano", as_of_version="v1.15.1")
    n = on_old.exclude(level="unknown").count()
    # The recorded latest release is what claims are compared with.
    Solution.objects.filter(slug="volcano").update(
        release_version="v1.16.0", release_date=date(2026, 11, 20)
    )
    client.force_login(tech_lead)
    body = client.get(reverse("catalog:solution_detail", kwargs={"slug": "volcano"})).content
    body = body.decode()
    assert body.count("v1.16.0 is out") == n > 20
    counts = {r.solution.slug: r for r in catalog_counts(on=date(2026, 12, 1))}
    assert counts["volcano"].stale >= n
