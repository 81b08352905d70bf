"""Load the seeded question libraries (idempotent: matched by key, texts refreshed)."""

from pathlib import Path

import yaml
from django.db import transaction

from common.seeding import texts

from .models import ContextQuestion, FiveQuestion

SEED_FILE = Path(__file__).resolve().parent / "seed" / "questions.yaml"


@transaction.atomic
def questions_load_seed(*, path: Path = SEED_FILE) -> dict[str, int]:
    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
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
                **texts("text", item["text"]),
                **texts("help_text", item.get("help")),
            },
        )
    return {
        "context_questions": len(data["context_questions"]),
        "five_questions": len(data["five_questions"]),
    }
