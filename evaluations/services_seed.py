"""Load the seeded question libraries (idempotent: matched by key, texts refreshed)."""

from pathlib import Path

import yaml
from django.db import transaction

from .models import ContextQuestion, FiveQuestion

SEED_FILE = Path(__file__).resolve().parent / "seed" / "questions.yaml"


def _texts(field: str, value: dict | None) -> dict[str, str]:
    value = value or {}
    return {f"{field}_en": value.get("en", ""), f"{field}_zh_hans": value.get("zh", "")}


@transaction.atomic
def questions_load_seed(*, path: Path = SEED_FILE) -> dict[str, int]:
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    for order, item in enumerate(data["context_questions"], start=1):
        ContextQuestion.objects.update_or_create(
            key=item["key"],
            defaults={
                "order": order,
                **_texts("text", item["text"]),
                **_texts("help_text", item.get("help")),
                **_texts("detail_label", item.get("detail_label")),
            },
        )
    for order, item in enumerate(data["five_questions"], start=1):
        FiveQuestion.objects.update_or_create(
            key=item["key"],
            defaults={
                "order": order,
                **_texts("text", item["text"]),
                **_texts("help_text", item.get("help")),
            },
        )
    return {
        "context_questions": len(data["context_questions"]),
        "five_questions": len(data["five_questions"]),
    }
