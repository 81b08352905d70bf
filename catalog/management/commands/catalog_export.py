"""manage.py catalog_export <path> [--as <username>]: write this installation's catalog as a
bundle (catalog/bundle/) for another installation to import."""

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from catalog.bundle.export import bundle_export


def user_named(username: str | None):
    if not username:
        return None
    User = get_user_model()
    user = User.objects.filter(**{User.USERNAME_FIELD: username}).first()
    if user is None:
        raise CommandError(f"There is no user {username}.")
    return user


class Command(BaseCommand):
    help = "Write the whole catalog as a bundle (.zip) that catalog_import reads."

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path, help="Where to write the bundle (.zip).")
        parser.add_argument("--as", dest="username", help="The user the manifest names.")

    def handle(self, *args, path: Path, username=None, **options):
        data = bundle_export(user=user_named(username))
        try:
            path.write_bytes(data)
        except OSError as exc:
            raise CommandError(f"Cannot write {path}: {exc.strerror}") from None
        self.stdout.write(f"Wrote the catalog to {path} ({len(data)} bytes).")
