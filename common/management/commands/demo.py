"""Load the demo evaluations, one per language, through the services as the demo users would.

The apps register their parts of the demo with common.demo; each keeps its data and texts in
its own demo/ folder (data.yaml, en.yaml, zh-hans.yaml)."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from common.demo import (
    LANGUAGE_NAMES,
    LANGUAGES,
    demo_existing,
    demo_load,
    demo_missing,
    demo_summary,
)
from common.exceptions import DomainError


class Command(BaseCommand):
    help = (
        "Load the demo evaluations, in English and in Simplified Chinese (shortlist, five "
        "questions, matrices, costs, POC scores, decision record), through the services, acting "
        "as the demo users. Each loads once: if a language's demo evaluation exists, nothing "
        "about it changes."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--language",
            choices=LANGUAGES,
            help="Load only this language's demo (default: every language, English first).",
        )

    def handle(self, *args, **options):
        languages = [options["language"]] if options.get("language") else list(LANGUAGES)
        missing = []
        for language in languages:
            existing = demo_existing(language)
            if existing is None:
                missing.append(language)
                continue
            self.stdout.write(
                f"The {LANGUAGE_NAMES[language]} demo evaluation already exists "
                f"(id {existing}); nothing was changed."
            )
        if missing:
            self._check_seeded()
        for language in missing:
            self._load(language)

    def _check_seeded(self) -> None:
        """Fail with the command to run when the seeded content the demo builds on is missing."""
        unseeded = demo_missing()
        if unseeded:
            raise CommandError(
                f"Seeded content is missing ({', '.join(unseeded)}). Run: python manage.py seed"
            )

    def _load(self, language: str) -> None:
        try:
            with transaction.atomic():
                state = demo_load(language)
        except (ValidationError, DomainError) as exc:
            message = getattr(exc, "message", None) or "; ".join(getattr(exc, "messages", []))
            raise CommandError(
                f"Could not load the {LANGUAGE_NAMES[language]} demo: {message or exc}"
            ) from exc
        if state.created:
            self.stdout.write(
                f"Created demo users {', '.join(state.created)} with random passwords; set one "
                "with: python manage.py changepassword <username>"
            )
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo evaluation {state.evaluation.pk} loaded ({LANGUAGE_NAMES[language]}): "
                f"{', '.join(demo_summary(state))}."
            )
        )
