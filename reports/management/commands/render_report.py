from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from common.i18n import missing_translations
from evaluations.models import Evaluation
from reports.gc_tuning import gc_tuned
from reports.render import render_pdf
from reports.sections import ALL as ALL_SECTIONS
from reports.sections import clean_sections
from reports.snapshot import build_snapshot, snapshot_sha256


class Command(BaseCommand):
    help = "Render an evaluation's PDF report now, in this process (for operators and scripts)."

    def add_arguments(self, parser):
        parser.add_argument("evaluation", type=int, help="Evaluation id.")
        parser.add_argument(
            "--language",
            default=settings.LANGUAGE_CODE,
            choices=[c for c, _n in settings.LANGUAGES],
        )
        parser.add_argument("--output", type=Path, required=True, help="Where to write the PDF.")
        parser.add_argument(
            "--sections",
            help=f"Comma-separated sections to print after the cover (default: all): "
            f"{', '.join(ALL_SECTIONS)}.",
        )

    def handle(self, *args, **options):
        evaluation = Evaluation.objects.filter(pk=options["evaluation"]).first()
        if evaluation is None:
            raise CommandError(f"There is no evaluation {options['evaluation']}.")
        if options["language"] in missing_translations():
            raise CommandError(
                f"No compiled translations for {options['language']}: run "
                "`python manage.py compilemessages` first."
            )
        chosen = None
        if options["sections"] is not None:
            chosen = [key.strip() for key in options["sections"].split(",") if key.strip()]
        try:
            chosen = clean_sections(chosen)
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from exc
        snapshot = build_snapshot(
            evaluation,
            language=options["language"],
            generated_at=timezone.now().isoformat(),
            sections=chosen,
        )
        with gc_tuned():
            pdf = render_pdf(snapshot, snapshot_sha256(snapshot), options["language"])
        options["output"].write_bytes(pdf.content)
        self.stdout.write(
            self.style.SUCCESS(
                f"Wrote {options['output']} ({pdf.pages} pages, {len(pdf.content)} bytes, "
                f"SHA-256 {pdf.sha256})."
            )
        )
