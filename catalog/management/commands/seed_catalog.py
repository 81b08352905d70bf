from pathlib import Path

from django.core.management.base import BaseCommand

from catalog.services import SEED_FILE, catalog_load_seed


class Command(BaseCommand):
    help = "Load or refresh the seeded solution catalog (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument("--file", type=Path, default=SEED_FILE, help="Seed YAML file.")

    def handle(self, *args, **options):
        counts = catalog_load_seed(path=options["file"])
        summary = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in counts.items())
        self.stdout.write(self.style.SUCCESS(f"Catalog loaded: {summary}."))
