"""The scenario chooses the POC plan's default profile: one profile per seeded scenario, a
research/HPC one among them, and "balanced" when an evaluation's scenarios disagree."""

import html
import re
from decimal import Decimal as D

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from catalog.models import Scenario
from poc import services
from poc.models import ScenarioProfile, TestGroup
from poc.selectors import plan_default_profile, profile_choice, profiles_with_scenarios
from tests.factories import make_evaluation

pytestmark = pytest.mark.django_db

EXPECTED = {
    "training": "training_heavy",
    "inference": "inference_heavy",
    "research-hpc": "research_hpc",
    "platform-governance": "governance_heavy",
}


def choice_for(*slugs):
    return profile_choice(Scenario.objects.filter(slug__in=slugs), profiles_with_scenarios())


def plan_weights(evaluation) -> dict[str, D]:
    return {g.group.key: g.weight for g in evaluation.poc_groups.select_related("group")}


def profile_weights(key) -> dict[str, D]:
    profile = ScenarioProfile.objects.get(key=key)
    return {w.group.key: w.weight for w in profile.weights.select_related("group")}


def test_every_seeded_scenario_leads_to_its_own_profile():
    assert set(Scenario.objects.values_list("slug", flat=True)) == set(EXPECTED)
    for scenario, key in EXPECTED.items():
        choice = choice_for(scenario)
        assert choice.profile.key == key and choice.scenario_led, scenario
        name = Scenario.objects.get(slug=scenario).name
        assert name in choice.reason and choice.profile.name in choice.reason


def test_the_research_hpc_profile_weights_batch_and_long_running_work():
    weights = profile_weights("research_hpc")
    assert set(weights) == set(TestGroup.objects.values_list("key", flat=True))
    assert sum(weights.values()) == D("100")
    assert weights["batch_training"] > weights["governance"] > weights["inference_serving"]
    assert weights["abnormal_long_running"] > profile_weights("balanced")["abnormal_long_running"]
    assert ScenarioProfile.objects.get(key="research_hpc").name_zh_hans


def test_several_scenarios_start_balanced_unless_they_agree():
    mixed = choice_for("training", "inference")
    assert mixed.profile.key == "balanced" and not mixed.scenario_led
    assert mixed.reason == (
        "The evaluation's scenarios (Training-heavy, Inference-heavy) lead to different "
        "profiles (Training-heavy, Inference-heavy). The plan starts from the neutral Balanced "
        "profile instead."
    )
    # Two scenarios an admin made one profile serve: that profile.
    ScenarioProfile.objects.get(key="training_heavy").scenarios.add(
        Scenario.objects.get(slug="research-hpc")
    )
    ScenarioProfile.objects.get(key="research_hpc").scenarios.clear()
    agreed = choice_for("training", "research-hpc")
    assert agreed.profile.key == "training_heavy" and agreed.scenario_led
    assert agreed.reason.startswith("All the evaluation's scenarios")


def test_a_scenario_no_profile_serves_starts_balanced_or_from_default_weights():
    ScenarioProfile.objects.get(key="governance_heavy").scenarios.clear()
    choice = choice_for("platform-governance")
    assert choice.profile.key == "balanced"
    assert choice.reason.startswith("No profile serves Enterprise AI platform governance.")
    ScenarioProfile.objects.filter(key="balanced").delete()
    without = choice_for("platform-governance")
    assert without.profile is None
    assert without.reason.endswith("Each group starts from its default weight instead.")


@pytest.mark.parametrize("scenario", sorted(EXPECTED))
def test_a_new_plan_takes_the_weights_of_the_scenarios_profile(owner, scenario):
    evaluation = make_evaluation(owner, scenarios=(scenario,))
    services.plan_init(user=owner, evaluation=evaluation)
    assert plan_weights(evaluation) == profile_weights(EXPECTED[scenario])


def test_a_mixed_plan_starts_balanced_and_existing_group_weights_stay(owner):
    evaluation = make_evaluation(owner, scenarios=("training", "inference"))
    assert plan_default_profile(evaluation).profile.key == "balanced"
    services.plan_init(user=owner, evaluation=evaluation)
    assert set(plan_weights(evaluation).values()) == {D("25")}
    group = evaluation.poc_groups.get(group__key="governance")
    services.plan_weight_set(user=owner, obj=group, weight="60", expected_version=group.version)
    services.plan_init(user=owner, evaluation=evaluation)
    assert plan_weights(evaluation)["governance"] == D("60")


def test_the_plan_page_shows_the_default_profile_and_why(client, owner):
    evaluation = make_evaluation(owner, scenarios=("research-hpc",))
    client.force_login(owner)
    path = reverse("poc:plan", kwargs={"pk": evaluation.pk})
    body = html.unescape(client.get(path).content.decode())
    notice = body[body.index('data-testid="default-profile"') :].split("</div>")[0]
    assert "<strong>Research / HPC</strong>" in notice
    assert (
        "The evaluation's scenario, Research / HPC computing, is served by the Research / HPC "
        "profile." in notice
    )
    assert "Starting the plan gives each group the weight of this profile." in notice
    services.plan_init(user=owner, evaluation=evaluation)
    body = client.get(path).content.decode()
    assert re.search(r'<option value="research_hpc"\s+selected>', body)
    notice = body.split('data-testid="default-profile"')[1]
    assert "The group weights are now those of the Research / HPC profile." in notice
    group = evaluation.poc_groups.get(group__key="governance")
    services.plan_weight_set(user=owner, obj=group, weight="1", expected_version=group.version)
    notice = client.get(path).content.decode().split('data-testid="default-profile"')[1]
    assert "The group weights now match no profile" in notice

    client.post(reverse("set_language"), {"language": "zh-hans", "next": "/"})
    zh = client.get(path).content.decode().split('data-testid="default-profile"')[1]
    assert "科研与 HPC" in zh and "The evaluation" not in zh


def test_the_api_names_each_profiles_scenarios_and_the_plans_default(owner):
    evaluation = make_evaluation(owner, scenarios=("inference",))
    api = APIClient()
    api.force_authenticate(owner)
    profiles = {p["key"]: p for p in api.get("/api/poc/profiles/").json()}
    assert {k: p["scenarios"] for k, p in profiles.items()} == {
        **{key: [scenario] for scenario, key in EXPECTED.items()},
        "balanced": [],
    }
    plan = api.get(f"/api/evaluations/{evaluation.pk}/poc/plan/").json()
    assert plan["default_profile"] == {
        "key": "inference_heavy",
        "name": "Inference-heavy",
        "scenario_led": True,
        "reason": "The evaluation's scenario, Inference-heavy, is served by the Inference-heavy "
        "profile.",
    }
    started = api.post(f"/api/evaluations/{evaluation.pk}/poc/plan/init/").json()
    weights = {g["key"]: D(g["weight"]) for g in started["groups"]}
    assert weights == profile_weights("inference_heavy")
