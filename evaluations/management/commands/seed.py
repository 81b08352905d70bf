from django.core.management.base import BaseCommand

from catalog.services import catalog_load_seed
from evaluations.services_seed import questions_load_seed


class Command(BaseCommand):
    help = "Load or refresh all seeded content: the catalog and the question libraries."

    def handle(self, *args, **options):
        counts = {**catalog_load_seed(), **questions_load_seed()}
        summary = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in counts.items())
        self.stdout.write(self.style.SUCCESS(f"Seeded: {summary}."))
