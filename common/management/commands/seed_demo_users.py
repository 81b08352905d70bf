from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from common.roles import ADMIN, PROCUREMENT, REVIEWER, TECH_LEAD
from common.services import generate_password, user_create

DEMO_USERS = [
    ("admin", ADMIN, "Ada", "Admin"),
    ("techlead", TECH_LEAD, "Tao", "Lead"),
    ("reviewer", REVIEWER, "Rui", "Reviewer"),
    ("procurement", PROCUREMENT, "Pat", "Procurement"),
]


class Command(BaseCommand):
    help = (
        "Create one demo user per role with a random password, printed once. "
        "Users that already exist are left unchanged."
    )

    def handle(self, *args, **options):
        User = get_user_model()
        created = []
        for username, role, first, last in DEMO_USERS:
            if User.objects.filter(username=username).exists():
                continue
            password = generate_password(username=username, first_name=first, last_name=last)
            user_create(
                username=username,
                roles=[role],
                password=password,
                first_name=first,
                last_name=last,
            )
            created.append((username, role, password))
        if not created:
            self.stdout.write(
                "Demo users already exist; their passwords were printed when they were created. "
                "Set a new one with: python manage.py changepassword <username>"
            )
            return
        self.stdout.write(self.style.SUCCESS("Demo users (passwords are shown only this once):"))
        for username, role, password in created:
            self.stdout.write(f"  {username:<12} role={role:<12} password={password}")
