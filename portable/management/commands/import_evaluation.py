"""manage.py import_evaluation <path> [--as <username>]: create the evaluation an archive holds
(portable.archive), in one transaction; a refused archive creates nothing."""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from portable.archive import ArchiveRefused, evaluation_import


class Command(BaseCommand):
    help = (
        "Import an evaluation archive. People are matched by username, else by e-mail; "
        "with --as, that user imports it and owns it unless the archive makes them a member."
    )

    def add_arguments(self, parser):
        parser.add_argument("path", help="The archive (.zip) export_evaluation wrote.")
        parser.add_argument("--as", dest="username", help="The user who imports it.")

    def handle(self, *args, path, username=None, **options):
        user = None
        if username:
            User = get_user_model()
            user = User.objects.filter(**{User.USERNAME_FIELD: username}).first()
            if user is None:
                raise CommandError(f"There is no user {username}.")
        try:
            evaluation = evaluation_import(source=path, user=user)
        except ArchiveRefused as exc:
            raise CommandError(" ".join(exc.messages)) from None
        except OSError as exc:
            raise CommandError(f"Cannot read {path}: {exc.strerror}") from None
        self.stdout.write(f"Imported “{evaluation.title}” as evaluation {evaluation.pk}.")
