import getpass

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from common.roles import ROLES
from common.services import generate_password, user_create


class Command(BaseCommand):
    help = "Create a user with one or more roles (admin, tech_lead, reviewer, procurement)."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument(
            "--role", action="append", choices=list(ROLES), required=True, dest="roles"
        )
        parser.add_argument("--email", default="")
        parser.add_argument("--first-name", default="")
        parser.add_argument("--last-name", default="")
        parser.add_argument(
            "--password",
            help="Password to set. Omit to be prompted, or use --generate-password.",
        )
        parser.add_argument(
            "--generate-password", action="store_true", help="Generate and print a password."
        )

    def handle(self, *args, **opts):
        password = opts["password"]
        if opts["generate_password"]:
            password = generate_password(
                username=opts["username"],
                email=opts["email"],
                first_name=opts["first_name"],
                last_name=opts["last_name"],
            )
        elif not password:
            password = getpass.getpass("Password: ")
            if password != getpass.getpass("Password (again): "):
                raise CommandError("The passwords do not match.")
        try:
            user = user_create(
                username=opts["username"],
                roles=opts["roles"],
                password=password,
                email=opts["email"],
                first_name=opts["first_name"],
                last_name=opts["last_name"],
            )
        except ValidationError as exc:
            raise CommandError(" ".join(exc.messages)) from exc
        self.stdout.write(
            self.style.SUCCESS(f"Created {user.username} with role(s): {', '.join(opts['roles'])}.")
        )
        if opts["generate_password"]:
            self.stdout.write(f"Password: {password}")
