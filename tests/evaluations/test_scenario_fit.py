"""Scenario first: every suggestion and candidate says whether the catalog lists the solution
for the evaluation's scenarios, and why; off-scenario suggestions stay, marked, after the rest."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from catalog.models import Scenario, Solution
from evaluations import services
from evaluations.models import ContextQuestion
from evaluations.selectors import FitLevel, scenario_fit, shortlist_suggest
from tests.factories import add_candidates, make_evaluation

pytestmark = pytest.mark.django_db


def answer_yes(evaluation, user, *keys):
    for key in keys:
        services.context_answer_save(
            user=user,
            evaluation=evaluation,
            question=ContextQuestion.objects.get(key=key),
            value="yes",
            expected_version=None,
        )


def scenarios(*slugs):
    return list(Scenario.objects.filter(slug__in=slugs))


def fit_of(slug, *scenario_slugs):
    return scenario_fit(Solution.objects.get(slug=slug), scenarios(*scenario_slugs))


def slugs(rows):
    return [row.slug for row in rows]


def test_a_solution_listed_for_the_scenario_fits():
    fit = fit_of("slurm", "research-hpc")
    assert fit.level == FitLevel.FITS and fit.on_scenario
    assert slugs(fit.fits) == ["research-hpc"] and fit.misses == ()
    assert fit.reason == "The catalog lists Slurm for Research / HPC computing."


def test_a_solution_not_listed_for_the_scenario_is_off_scenario_with_the_reason():
    fit = fit_of("slurm", "inference")
    assert fit.level == FitLevel.OFF and not fit.on_scenario
    assert fit.fits == () and slugs(fit.misses) == ["inference"]
    # The why: the scenarios the catalog does list it for, in catalog order.
    assert slugs(fit.listed) == ["training", "research-hpc"]
    assert fit.reason == (
        "The catalog does not list Slurm for Inference-heavy; it lists it for "
        "Training-heavy, Research / HPC computing."
    )


def test_several_scenarios_fit_in_part_and_each_side_is_named():
    fit = fit_of("kuberay", "platform-governance", "inference")
    assert fit.level == FitLevel.PARTIAL and fit.on_scenario
    assert slugs(fit.fits) == ["inference"]
    assert slugs(fit.misses) == ["platform-governance"]
    assert fit.reason == (
        "The catalog lists KubeRay for Inference-heavy, not for Enterprise AI platform governance."
    )
    assert fit_of("runai", "training", "inference", "platform-governance").level == FitLevel.FITS


def test_a_solution_listed_for_no_scenario_says_so():
    solution = Solution.objects.get(slug="slurm")
    solution.scenarios.clear()
    fit = scenario_fit(solution, scenarios("training"))
    assert fit.level == FitLevel.OFF
    assert fit.reason == "The catalog lists Slurm for no scenario."


def test_suggestions_come_on_scenario_first_and_off_scenario_ones_stay(owner):
    evaluation = make_evaluation(owner, scenarios=("inference",))
    answer_yes(evaluation, owner, "hpc_batch_queues", "k8s_batch_jobs", "ray_workloads")
    answer_yes(evaluation, owner, "container_platform_inference")
    suggestions = shortlist_suggest(evaluation)
    order = [(s.solution.slug, s.fit.level) for s in suggestions]
    assert order == [
        ("kuberay", "fits"),
        ("kubernetes-gpu", "fits"),
        ("kueue", "off"),
        ("slurm", "off"),
        ("volcano", "off"),
    ]
    # Off-scenario suggestions are still accepted like any other.
    added = services.candidates_accept_suggestions(
        user=owner,
        evaluation=evaluation,
        solution_ids=[Solution.objects.get(slug="slurm").pk],
    )
    assert [c.solution.slug for c in added] == ["slurm"]


def test_the_shortlist_page_marks_fit_and_off_scenario_rows(client, owner):
    evaluation = make_evaluation(owner, scenarios=("inference",))
    answer_yes(evaluation, owner, "hpc_batch_queues", "ray_workloads")
    add_candidates(evaluation, owner, "volcano", "kubernetes-gpu")
    client.force_login(owner)
    path = reverse("evaluations:evaluation_shortlist", kwargs={"pk": evaluation.pk})
    body = client.get(path).content.decode()
    suggestions = body[
        body.index('data-testid="suggestions"') : body.index('data-testid="candidates"')
    ]
    assert suggestions.index("suggestion-kuberay") < suggestions.index("suggestion-slurm")
    kuberay = suggestions[suggestions.index("suggestion-kuberay") :]
    assert 'data-fit="fits"' in kuberay.split("</tr>")[0]
    assert "Fits the scenario" in kuberay.split("</tr>")[0]
    slurm = suggestions[suggestions.index("suggestion-slurm") :].split("</tr>")[0]
    assert 'class="off-scenario"' in slurm and 'data-fit="off"' in slurm
    assert "Off-scenario" in slurm
    assert "it lists it for Training-heavy, Research / HPC computing." in slurm
    # The fitting scenario's description is the why of a fit.
    assert Scenario.objects.get(slug="inference").description in kuberay.split("</tr>")[0]
    # Candidates already on the shortlist carry the same marker.
    candidates = body[body.index('data-testid="candidates"') :].split("</table>")[0]
    volcano = candidates[candidates.index("Volcano") :].split("</tr>")[0]
    assert 'data-fit="off"' in volcano
    k8s = candidates[candidates.index("Kubernetes GPU") :].split("</tr>")[0]
    assert 'data-fit="fits"' in k8s

    # The same in Chinese.
    client.post(reverse("set_language"), {"language": "zh-hans", "next": "/"})
    zh = client.get(path).content.decode()
    assert "偏离场景" in zh and "适配场景" in zh


def test_the_shortlist_page_costs_the_same_for_many_suggestions_and_candidates(client, owner):
    """Scenario fit reads prefetched rows: no query per suggestion or candidate."""
    keys = list(ContextQuestion.objects.values_list("key", flat=True))

    def queries(n_candidates):
        evaluation = make_evaluation(owner, title=f"n={n_candidates}", scenarios=("inference",))
        answer_yes(evaluation, owner, *keys)
        slugs_ = list(Solution.objects.values_list("slug", flat=True)[:n_candidates])
        add_candidates(evaluation, owner, *slugs_)
        path = reverse("evaluations:evaluation_shortlist", kwargs={"pk": evaluation.pk})
        with CaptureQueriesContext(connection) as captured:
            assert client.get(path).status_code == 200
        return len(captured)

    client.force_login(owner)
    assert queries(1) == queries(6)


def test_the_api_gives_each_suggestion_its_scenario_fit(owner):
    evaluation = make_evaluation(owner, scenarios=("inference", "training"))
    answer_yes(evaluation, owner, "hpc_batch_queues", "ray_workloads", "single_cloud")
    answer_yes(evaluation, owner, "heterogeneous_accelerators", "governance_localised")
    api = APIClient()
    api.force_authenticate(owner)
    response = api.get(f"/api/evaluations/{evaluation.pk}/suggestions/")
    assert response.status_code == 200
    rows = [(s["solution"]["slug"], s["scenario_fit"]) for s in response.json()]
    # Grouped by type, as on the page; within a type: fits both, then in part, then off.
    assert [(slug, fit["level"]) for slug, fit in rows] == [
        ("hami", "fits"),
        ("kuberay", "fits"),
        ("slurm", "partial"),
        ("volcano", "partial"),
        ("cloud-managed-gpu", "fits"),
        ("enterprise-container-platform", "off"),
    ]
    fits = dict(rows)
    assert fits["slurm"] == {
        "level": "partial",
        "on_scenario": True,
        "fits": ["training"],
        "misses": ["inference"],
        "listed": ["training", "research-hpc"],
        "reason": "The catalog lists Slurm for Training-heavy, not for Inference-heavy.",
    }
    ecp = fits["enterprise-container-platform"]
    assert ecp["level"] == "off" and ecp["on_scenario"] is False
    assert ecp["fits"] == [] and ecp["misses"] == ["training", "inference"]
    assert ecp["listed"] == ["platform-governance"]
    zh = api.get(
        f"/api/evaluations/{evaluation.pk}/suggestions/", HTTP_ACCEPT_LANGUAGE="zh-hans"
    ).json()
    assert (
        "目录" in next(s for s in zh if s["solution"]["slug"] == "slurm")["scenario_fit"]["reason"]
    )

    schema = api.get("/api/schema/", {"format": "json"}).json()["components"]["schemas"]
    fit_schema = schema["ScenarioFit"]["properties"]
    assert {"level", "on_scenario", "fits", "misses", "listed", "reason"} <= set(fit_schema)
    assert all(fit_schema[name].get("description") for name in fit_schema)
    assert "scenario_fit" in schema["Suggestion"]["properties"]
