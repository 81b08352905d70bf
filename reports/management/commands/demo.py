"""Load the demo evaluations, one per language, through the services as the demo users would.

The demo's data and texts live in reports.demo (data.py, en.yaml, zh-hans.yaml, loader.py)."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from common.exceptions import DomainError
from evaluations.models import CandidateStatus, Evaluation
from poc.models import Score
from reports.demo.data import LANGUAGES
from reports.demo.loader import DemoLoader, check_seeded
from reports.demo.texts import DEMO_TITLES, texts

__all__ = ["DEMO_ORGANISATION", "DEMO_TITLE", "DEMO_TITLES", "LANGUAGES", "Command"]

# The English demo, as it has always been called.
DEMO_TITLE = DEMO_TITLES["en"]
DEMO_ORGANISATION = texts("en")["organisation"]

LANGUAGE_NAMES = {"en": "English", "zh-hans": "Simplified Chinese"}


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
            existing = Evaluation.objects.filter(title=DEMO_TITLES[language]).first()
            if existing is None:
                missing.append(language)
                continue
            self.stdout.write(
                f"The {LANGUAGE_NAMES[language]} demo evaluation already exists "
                f"(id {existing.pk}); nothing was changed."
            )
        if missing:
            check_seeded()
        for language in missing:
            self._load(language)

    def _load(self, language: str) -> None:
        try:
            with transaction.atomic():
                evaluation, created = DemoLoader(language).load()
        except (ValidationError, DomainError) as exc:
            message = getattr(exc, "message", None) or "; ".join(getattr(exc, "messages", []))
            raise CommandError(
                f"Could not load the {LANGUAGE_NAMES[language]} demo: {message or exc}"
            ) from exc
        if created:
            self.stdout.write(
                f"Created demo users {', '.join(created)} with random passwords; set one with: "
                "python manage.py changepassword <username>"
            )
        shortlisted = evaluation.candidates.filter(status=CandidateStatus.SHORTLISTED).count()
        eliminated = evaluation.candidates.filter(status=CandidateStatus.ELIMINATED).count()
        scores = Score.objects.filter(case__evaluation=evaluation).count()
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo evaluation {evaluation.pk} loaded ({LANGUAGE_NAMES[language]}): "
                f"{shortlisted} shortlisted and {eliminated} eliminated candidate(s), "
                f"{scores} POC scores."
            )
        )
