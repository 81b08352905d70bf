"""The administrators' queue of catalog claims to check again (evaluations/catalog_review.py):
stale and unsourced claims, the ones open evaluations use first, counted (never named) in one
aggregate query however many evaluations there are."""

import datetime

import pytest
from django.urls import reverse
from django.utils import timezone

from catalog.models import CapabilityClaim, Solution, Source, SupportLevel
from evaluations.catalog_review import claims_to_review, open_evaluations_by_solution
from evaluations.models import Status
from tests.factories import add_candidates, compose_stack, make_evaluation

pytestmark = pytest.mark.django_db

URL = reverse("evaluations:catalog_review")


def age(solution_slug: str, level=SupportLevel.NATIVE) -> CapabilityClaim:
    """One of the solution's claims, now backed only by a page read in 2023."""
    claim = CapabilityClaim.objects.filter(solution__slug=solution_slug, level=level).first()
    old = Source.objects.create(
        key=f"old-{solution_slug}", title="An old page", as_of="page dated 2023-03-01"
    )
    claim.sources.set([old])
    claim.as_of_version = ""
    claim.checked_on = None
    claim.save()
    return claim


def test_the_most_used_stale_claims_come_first_with_their_counts(owner):
    slurm, volcano = age("slurm"), age("volcano")
    for n in range(3):
        add_candidates(make_evaluation(owner, title=f"Volcano {n}"), owner, "volcano")
    add_candidates(make_evaluation(owner, title="Slurm"), owner, "slurm")
    decided = make_evaluation(owner, title="Closed")
    add_candidates(decided, owner, "slurm", "volcano")
    type(decided).objects.filter(pk=decided.pk).update(status=Status.DECIDED)  # not open
    # A stack with Slurm as a layer counts for Slurm too, once per evaluation.
    stacked = make_evaluation(owner, title="Stack")
    add_candidates(stacked, owner, "slurm")
    compose_stack(
        stacked,
        owner,
        "Slurm under Kueue",
        "execution",
        execution="slurm",
        batch_queue="kubernetes-gpu",
    )

    rows = claims_to_review(timezone.localdate())
    mine = [r for r in rows if r.claim.pk in (slurm.pk, volcano.pk)]
    assert [(r.claim.pk, r.open_evaluations) for r in mine] == [(volcano.pk, 3), (slurm.pk, 2)]
    assert all(r.freshness.staleness for r in rows)
    assert rows.index(mine[0]) < rows.index(mine[1])
    assert not any(r.claim.level == SupportLevel.UNKNOWN for r in rows)


def test_counting_costs_one_query_however_many_evaluations(owner, django_assert_num_queries):
    for n in range(5):
        add_candidates(make_evaluation(owner, title=f"E{n}"), owner, "volcano", "slurm")
    ids = list(Solution.objects.values_list("pk", flat=True))
    with django_assert_num_queries(1):
        found = open_evaluations_by_solution(ids)
    assert found[Solution.objects.get(slug="volcano").pk] == 5
    assert found[Solution.objects.get(slug="runai").pk] == 0


def test_only_admins_see_the_page_and_it_names_no_evaluation(
    client, admin_user, owner, user_for_role, django_assert_max_num_queries
):
    age("volcano")
    add_candidates(make_evaluation(owner, title="Secret plan 7"), owner, "volcano")
    client.force_login(owner)
    assert client.get(URL).status_code == 403
    client.force_login(admin_user)
    with django_assert_max_num_queries(12):
        page = client.get(URL)
    body = page.content.decode()
    assert page.status_code == 200 and 'data-testid="catalog-review"' in body
    assert "Secret plan 7" not in body and "Volcano" in body
    assert 'data-testid="stale"' in body and "checked 2023-03-01" in body
    first = page.context["page"][0].claim
    assert reverse("catalog:claim_edit", args=[first.solution.slug, first.capability.slug]) in body
    assert (
        reverse("evaluations:catalog_review")
        in client.get(reverse("catalog:solution_list")).content.decode()
    )
    assert client.get(URL + "?page=x").status_code == 200
    assert client.get(URL, HTTP_ACCEPT_LANGUAGE="zh-hans").status_code == 200


def test_the_queue_lists_entries_whose_latest_release_is_older_than_six_months(client, admin_user):
    client.force_login(admin_user)
    body = client.get(URL).content.decode()
    outdated = body.split('data-testid="release-outdated"')[1].split("</table>")[0]
    # v1.15.1 of 2026-07-30: recent enough on the suite's freshness day (2026-12-01)
    assert ">Volcano<" not in outdated
    assert ">Volcano<" not in body.split('data-testid="release-unrecorded"')[1]
    Solution.objects.filter(slug="volcano").update(release_date=datetime.date(2025, 12, 1))
    body = client.get(URL).content.decode()
    outdated = body.split('data-testid="release-outdated"')[1].split("</table>")[0]
    assert ">Volcano<" in outdated and "v1.15.1" in outdated
    assert (
        reverse("admin:catalog_solution_change", args=[Solution.objects.get(slug="volcano").pk])
        in outdated
    )
    unrecorded = body.split('data-testid="release-unrecorded"')[1].split("</p>")[0]
    assert "NVIDIA Run:ai" in unrecorded
