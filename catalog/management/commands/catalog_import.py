"""manage.py catalog_import <path> [--dry-run] [--as <username>]: say what a catalog bundle
would change, then apply it all or nothing (catalog/bundle/); --dry-run changes nothing."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from catalog.bundle.apply import bundle_apply
from catalog.bundle.common import KINDS, MAX_BYTES, BundleRefused
from catalog.bundle.diff import bundle_diff
from catalog.bundle.read import bundle_read
from catalog.management.commands.catalog_export import user_named


class Command(BaseCommand):
    help = (
        "Import a catalog bundle: prints what it changes (new, changed, unchanged rows, and "
        "rows kept because only this installation has them), then applies it unless --dry-run."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="The bundle (.zip) catalog_export wrote.")
        parser.add_argument("--dry-run", action="store_true", help="Only print the changes.")
        parser.add_argument("--as", dest="username", help="The user who imports it.")

    def handle(self, *args, path: Path, dry_run=False, username=None, **options):
        user = user_named(username)
        try:
            with path.open("rb") as f:
                data = f.read(MAX_BYTES + 1)
        except OSError as exc:
            raise CommandError(f"Cannot read {path}: {exc.strerror}") from None
        try:
            bundle = bundle_read(data)
            diff = bundle_diff(bundle)
            self.summary(diff)
            if dry_run:
                self.stdout.write("Dry run: nothing was changed.")
                return
            record = bundle_apply(bundle, user=user)
        except BundleRefused as exc:
            raise CommandError("\n".join(exc.messages)) from None
        who = user.get_username() if user else "nobody (use --as to name the importer)"
        self.stdout.write(
            self.style.SUCCESS(f"Imported catalog {record.sha256[:12]} by {who}: "
                               f"{record.new_rows} new, {record.changed_rows} changed rows.")
        )  # fmt: skip

    def summary(self, diff) -> None:
        counts = diff.counts()
        width = max(len(k) for k in KINDS)
        self.stdout.write(f"{'':{width}}  {'new':>5} {'changed':>7} {'unchanged':>9} {'kept':>5}")
        for kind in KINDS:
            c = counts[kind]
            self.stdout.write(
                f"{kind:{width}}  {c['new']:>5} {c['changed']:>7} {c['unchanged']:>9} "
                f"{c['kept']:>5}"
            )
        for row in diff.of("claims", "changed"):
            fields = ", ".join(f"{ch.field}: {ch.old!r} -> {ch.new!r}" for ch in row.changes)
            self.stdout.write(f"  claim {row.key}: {fields}")
