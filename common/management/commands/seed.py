from django.core.management.base import BaseCommand
from django.db import transaction

from common.seeding import seed_all


class Command(BaseCommand):
    help = "Load or refresh all seeded content (catalog, question libraries, areas, ...)."

    def handle(self, *args, **options):
        with transaction.atomic():
            counts = seed_all()
        summary = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in counts.items())
        self.stdout.write(self.style.SUCCESS(f"Seeded: {summary}."))
