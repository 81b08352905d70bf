from datetime import timedelta

from django.conf import settings
from django.core.management.base import BaseCommand

from common.files import sweep_orphan_files


class Command(BaseCommand):
    help = (
        "Delete stored files (evidence, report PDFs) that no row refers to, e.g. after a rolled "
        "back upload or a killed worker. Celery beat runs this every hour."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--older-than",
            type=int,
            default=settings.FILE_SWEEP_GRACE,
            help="Leave files modified within this many seconds alone (default: FILE_SWEEP_GRACE).",
        )
        parser.add_argument("--dry-run", action="store_true", help="List them, delete nothing.")

    def handle(self, *args, **options):
        names = sweep_orphan_files(
            older_than=timedelta(seconds=options["older_than"]), dry_run=options["dry_run"]
        )
        verb = "Would delete" if options["dry_run"] else "Deleted"
        for name in names:
            self.stdout.write(f"{verb} {name}")
        self.stdout.write(self.style.SUCCESS(f"{verb} {len(names)} unreferenced file(s)."))
