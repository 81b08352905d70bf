"""manage.py export_evaluation <id> <path>: one evaluation as one archive (portable.archive)."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from evaluations.models import Evaluation
from portable.archive import ArchiveRefused, evaluation_export


class Command(BaseCommand):
    help = "Write one evaluation, with its evidence files and report PDFs, to a zip archive."

    def add_arguments(self, parser):
        parser.add_argument("evaluation_id", type=int)
        parser.add_argument("path", help="The archive to write (.zip).")

    def handle(self, *args, evaluation_id, path, **options):
        evaluation = Evaluation.objects.filter(pk=evaluation_id).first()
        if evaluation is None:
            raise CommandError(f"There is no evaluation {evaluation_id}.")
        try:
            manifest = evaluation_export(evaluation, path)
        except ArchiveRefused as exc:
            Path(path).unlink(missing_ok=True)  # never leave half an archive behind
            raise CommandError(" ".join(exc.messages)) from None
        self.stdout.write(
            f"Exported “{evaluation.title}” to {path} ({len(manifest['files'])} files)."
        )
