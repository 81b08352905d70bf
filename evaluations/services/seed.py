"""Load the seeded question libraries (idempotent: matched by key, texts refreshed)."""

from pathlib import Path

from django.db import transaction

from catalog.models import Capability
from common.seeding import load_yaml, texts

from ..models import Constraint, ContextQuestion, FiveQuestion

SEED_FILE = Path(__file__).resolve().parents[1] / "seed" / "questions.yaml"
CONSTRAINTS_FILE = SEED_FILE.with_name("constraints.yaml")


@transaction.atomic
def questions_load_seed(*, path: Path = SEED_FILE) -> dict[str, int]:
    data = load_yaml(Path(path).read_text(encoding="utf-8"))
    for order, item in enumerate(data["context_questions"], start=1):
        ContextQuestion.objects.update_or_create(
            key=item["key"],
            defaults={
                "order": order,
                **texts("text", item["text"]),
                **texts("help_text", item.get("help")),
                **texts("detail_label", item.get("detail_label")),
            },
        )
    for order, item in enumerate(data["five_questions"], start=1):
        FiveQuestion.objects.update_or_create(
            key=item["key"],
            defaults={
                "order": order,
                "scale": item.get("scale", "assessment"),
                **texts("text", item["text"]),
                **texts("help_text", item.get("help")),
            },
        )
    return {
        "context_questions": len(data["context_questions"]),
        "five_questions": len(data["five_questions"]),
        **constraints_load_seed(),
    }


@transaction.atomic
def constraints_load_seed(*, path: Path = CONSTRAINTS_FILE) -> dict[str, int]:
    """The hard constraints and the capabilities each needs (after the catalog is seeded)."""
    data = load_yaml(Path(path).read_text(encoding="utf-8"))
    capabilities = {c.slug: c for c in Capability.objects.all()}
    for order, item in enumerate(data["constraints"], start=1):
        constraint, _created = Constraint.objects.update_or_create(
            key=item["key"],
            defaults={
                "order": order,
                "flag": item.get("flag", ""),
                "facts": item.get("facts", []),
                "checks_families": bool(item.get("checks_families", False)),
                **texts("name", item["name"]),
                **texts("description", item.get("description")),
            },
        )
        missing = sorted(set(item["capabilities"]) - set(capabilities))
        if missing:
            raise ValueError(f"constraint {item['key']}: unknown capabilities {missing}")
        constraint.capabilities.set([capabilities[slug] for slug in item["capabilities"]])
    return {"constraints": len(data["constraints"])}
