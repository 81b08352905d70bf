"""`manage.py catalog_summary`: each catalog entry with the number of its claims that are
sourced, unknown and stale, as a Markdown table (the catalog table in docs/guide/admin.md is this
output)."""

from datetime import date

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone, translation

from catalog.freshness import STALE_AFTER_MONTHS
from catalog.selectors import catalog_counts

HEADER = (
    "| Entry | Type | Claims | Sourced | of which none | Unknown | Stale | Unsourced |",
    "|---|---|---:|---:|---:|---:|---:|---:|",
)


def summary_lines(on: date) -> list[str]:
    rows = catalog_counts(on=on)
    lines = [
        f"As of {on.isoformat()}: sourced claims have a level other than unknown and a source; "
        f"stale ones were last checked more than {STALE_AFTER_MONTHS} months before.",
        "",
        *HEADER,
    ]
    fields = ("claims", "sourced", "none", "unknown", "stale", "unsourced")
    for row in rows:
        numbers = " | ".join(str(getattr(row, name)) for name in fields)
        lines.append(f"| {row.solution.name} | {row.solution.solution_type.name} | {numbers} |")
    totals = " | ".join(str(sum(getattr(row, name) for row in rows)) for name in fields)
    lines.append(f"| **All {len(rows)} entries** | | {totals} |")
    return lines


class Command(BaseCommand):
    help = "Print each catalog entry's sourced, unknown and stale claims as a Markdown table."

    def add_arguments(self, parser):
        parser.add_argument(
            "--on", help="The day staleness is judged on, YYYY-MM-DD (default: today)."
        )
        parser.add_argument("--language", default="en", help="Language of the names (en, zh-hans).")

    def handle(self, *args, **options):
        given = options["on"]
        try:
            on = date.fromisoformat(given) if given else timezone.localdate()
        except ValueError:
            raise CommandError(f"--on must be a date as YYYY-MM-DD, not {given!r}.") from None
        with translation.override(options["language"]):
            self.stdout.write("\n".join(summary_lines(on)))
