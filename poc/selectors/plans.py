"""Reads of an evaluation's POC plan: its cases and groups, and the scenario profile the plan
starts from (ProfileChoice: the rule, and why)."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _

from catalog.models import Scenario
from common.templatetags.lists import listing
from evaluations.models import Evaluation

from ..models import PlanGroup, ScenarioProfile, Score


def plan_cases(evaluation: Evaluation):
    return evaluation.poc_cases.select_related("group", "source_case").order_by(
        "group__order", "order", "pk"
    )


def scored_case_ids(evaluation: Evaluation) -> set[int]:
    """The plan cases with at least one score (removing one asks first): one small query, not a
    count joined to every case row."""
    return set(Score.objects.filter(case__evaluation=evaluation).values_list("case_id", flat=True))


# Where a plan starts when the evaluation's scenarios do not agree on one profile.
BALANCED_PROFILE = "balanced"


@dataclass(frozen=True)
class ProfileChoice:
    """The scenario profile an evaluation's POC plan starts from, and why.

    The rule (scenario first, SPEC §1.1): each primary scenario leads to the first profile, in
    profile order, that serves it (`ScenarioProfile.scenarios`). When every scenario leads to
    the same profile, that profile is the choice. When they lead to different profiles, or one
    leads to none, the plan starts from the balanced profile rather than favouring one scenario;
    without a balanced profile, from each group's default weight (`profile` is None)."""

    profile: ScenarioProfile | None
    matches: tuple[tuple[Scenario, ScenarioProfile | None], ...]

    @property
    def scenario_led(self) -> bool:
        """True when the evaluation's scenarios agree on this profile."""
        led = {p.pk if p else None for _s, p in self.matches}
        return bool(self.matches) and None not in led and len(led) == 1

    @property
    def reason(self) -> str:
        """Why this profile, in one or two sentences of the active language."""
        scenarios = [s for s, _p in self.matches]
        names = {
            "scenarios": listing(scenarios),
            "profile": self.profile.name if self.profile else "",
        }
        if self.scenario_led:
            if len(scenarios) == 1:
                return (
                    _(
                        "The evaluation's scenario, %(scenarios)s, is served by the %(profile)s "
                        "profile."
                    )
                    % names
                )
            return (
                _(
                    "All the evaluation's scenarios (%(scenarios)s) are served by the "
                    "%(profile)s profile."
                )
                % names
            )
        unserved = [s for s, p in self.matches if p is None]
        if not scenarios:
            why = _("The evaluation names no scenario.")
        elif unserved:
            why = _("No profile serves %(unserved)s.") % {"unserved": listing(unserved)}
        else:
            led = {p.pk: p.name for _s, p in self.matches}
            why = _(
                "The evaluation's scenarios (%(scenarios)s) lead to different profiles (%(led)s)."
            ) % {**names, "led": listing(led.values())}
        if self.profile is not None:
            then = _("The plan starts from the neutral %(profile)s profile instead.") % names
        else:
            then = _("Each group starts from its default weight instead.")
        # Two sentences: English puts a space between them, Chinese does not.
        return _("%(why)s %(then)s") % {"why": why, "then": then}


def profile_choice(scenarios, profiles) -> ProfileChoice:
    """The default profile for `scenarios` among `profiles` (each with `scenarios` prefetched),
    by the rule of ProfileChoice."""
    profiles = sorted(profiles, key=lambda p: (p.order, p.pk))
    matches = tuple(
        (
            scenario,
            next((p for p in profiles if scenario.pk in {s.pk for s in p.scenarios.all()}), None),
        )
        for scenario in sorted(scenarios, key=lambda s: (s.order, s.pk))
    )
    agreed = ProfileChoice(matches[0][1] if matches else None, matches)
    if agreed.scenario_led:
        return agreed
    balanced = next((p for p in profiles if p.key == BALANCED_PROFILE), None)
    return ProfileChoice(balanced, matches)


def profiles_with_scenarios() -> list[ScenarioProfile]:
    return list(ScenarioProfile.objects.prefetch_related("scenarios", "weights"))


def plan_default_profile(evaluation: Evaluation, profiles=None) -> ProfileChoice:
    """The profile this evaluation's POC plan starts from (see ProfileChoice for the rule)."""
    if profiles is None:
        profiles = profiles_with_scenarios()
    return profile_choice(evaluation.scenarios.all(), profiles)


def profile_in_use(groups: list[PlanGroup], profiles) -> ScenarioProfile | None:
    """The profile whose weights the plan's groups have now, if any (weights read from
    `profile.weights.all()`, prefetched)."""
    plan = {g.group_id: g.weight for g in groups}
    if not plan:
        return None
    for profile in profiles:
        weights = {w.group_id: w.weight for w in profile.weights.all()}
        if all(weights.get(group_id) == weight for group_id, weight in plan.items()):
            return profile
    return None


def plan_groups(evaluation: Evaluation) -> list[PlanGroup]:
    return list(evaluation.poc_groups.select_related("group").order_by("group__order"))
