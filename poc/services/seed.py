"""The POC seed: the test-case library (groups and cases) and the scenario profiles, loaded
from seed/poc.yaml (`manage.py seed`, registered by PocConfig.ready)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from django.db import transaction

from catalog.models import Capability, Scenario
from common.seeding import load_yaml, texts

from ..models import ProfileWeight, ScenarioProfile, TestCase, TestGroup

SEED_FILE = Path(__file__).resolve().parents[1] / "seed" / "poc.yaml"


@transaction.atomic
def poc_load_seed(*, path: Path = SEED_FILE) -> dict[str, int]:
    """Load the test-case library and scenario profiles (idempotent, matched by key)."""
    data = load_yaml(Path(path).read_text(encoding="utf-8"))
    groups = {}
    for order, item in enumerate(data["groups"], start=1):
        groups[item["key"]], _created = TestGroup.objects.update_or_create(
            key=item["key"],
            defaults={
                "order": order,
                "default_weight": Decimal(str(item["default_weight"])),
                "happy_path": bool(item.get("happy_path", True)),
                **texts("name", item["name"]),
                **texts("description", item.get("description")),
            },
        )
    capabilities = {c.slug: c for c in Capability.objects.all()}
    for order, item in enumerate(data["cases"], start=1):
        metric = item.get("metric") or {}
        case, _created = TestCase.objects.update_or_create(
            key=item["key"],
            defaults={
                "group": groups[item["group"]],
                "order": order,
                "default_weight": Decimal(str(item["default_weight"])),
                "sources": ", ".join(item.get("sources", [])),
                "metric_unit": metric.get("unit", ""),
                "metric_direction": metric.get("direction", ""),
                "metric_threshold": (
                    Decimal(str(metric["threshold"])) if "threshold" in metric else None
                ),
                "metric_good": Decimal(str(metric["good"])) if "good" in metric else None,
                "metric_excellent": (
                    Decimal(str(metric["excellent"])) if "excellent" in metric else None
                ),
                **texts("title", item["title"]),
                **texts("steps", item.get("steps")),
                **texts("acceptance", item["acceptance"]),
                **texts("metric_name", metric.get("name")),
            },
        )
        unknown = sorted(set(item.get("verifies", [])) - set(capabilities))
        if unknown:
            raise ValueError(f"case {item['key']}: unknown capabilities {unknown}")
        case.verifies.set([capabilities[slug] for slug in item.get("verifies", [])])
    scenarios = {s.slug: s for s in Scenario.objects.all()}
    for order, item in enumerate(data["profiles"], start=1):
        profile, _created = ScenarioProfile.objects.update_or_create(
            key=item["key"], defaults={"order": order, **texts("name", item["name"])}
        )
        unknown = sorted(set(item.get("scenarios", [])) - set(scenarios))
        if unknown:
            raise ValueError(f"profile {item['key']}: unknown scenarios {unknown}")
        profile.scenarios.set([scenarios[slug] for slug in item.get("scenarios", [])])
        for group_key, weight in item["weights"].items():
            ProfileWeight.objects.update_or_create(
                profile=profile,
                group=groups[group_key],
                defaults={"weight": Decimal(str(weight))},
            )
    return {
        "test_groups": len(groups),
        "test_cases": len(data["cases"]),
        "scenario_profiles": len(data["profiles"]),
    }
