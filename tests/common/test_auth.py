"""Sign in/out, password change, roles, Django admin for admins only, operator commands."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.urls import reverse

from common import roles
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


def test_sign_in_and_out(client, tech_lead):
    page = client.get(reverse("login"))
    assert page.status_code == 200 and b'name="password"' in page.content
    bad = client.post(reverse("login"), {"username": "tao", "password": "wrong"})
    assert bad.status_code == 200
    assert b"correct username and password" in bad.content
    ok = client.post(reverse("login"), {"username": "tao", "password": PASSWORD})
    assert ok.status_code == 302 and ok["Location"] == reverse("home")
    home = client.get(reverse("home"))
    assert b"Tech lead" in home.content  # the current user's role is shown
    client.post(reverse("logout"))
    assert client.get(reverse("home")).status_code == 302


def test_password_change(client, tech_lead):
    client.force_login(tech_lead)
    weak = client.post(
        reverse("password_change"),
        {"old_password": PASSWORD, "new_password1": "123", "new_password2": "123"},
    )
    assert weak.status_code == 200 and b"too short" in weak.content
    done = client.post(
        reverse("password_change"),
        {
            "old_password": PASSWORD,
            "new_password1": "a-much-better-passphrase",
            "new_password2": "a-much-better-passphrase",
        },
    )
    assert done.status_code == 302
    tech_lead.refresh_from_db()
    assert tech_lead.check_password("a-much-better-passphrase")


@pytest.mark.parametrize("role", [roles.TECH_LEAD, roles.REVIEWER, roles.PROCUREMENT])
def test_django_admin_is_for_admins_only(client, user_for_role, role):
    user = user_for_role(role)
    user.is_staff = True  # even a staff flag does not open admin without the admin role
    user.save()
    client.force_login(user)
    response = client.get(reverse("admin:index"))
    assert response.status_code == 302 and "login" in response["Location"]
    assert client.get(reverse("admin:catalog_solution_changelist")).status_code == 302


def test_admin_edits_the_catalog_in_django_admin(client, admin_user):
    from catalog.models import Solution

    client.force_login(admin_user)
    assert client.get(reverse("admin:index")).status_code == 200
    slurm = Solution.objects.get(slug="slurm")
    change = client.get(reverse("admin:catalog_solution_change", args=[slurm.pk]))
    assert change.status_code == 200
    assert b"name_zh_hans" in change.content and b"claims-TOTAL_FORMS" in change.content
    search = client.get(reverse("admin:catalog_solution_changelist"), {"q": "volcano"})
    assert b"Volcano" in search.content


def test_admin_rejects_a_sourceless_claim(client, admin_user):
    from catalog.models import CapabilityClaim

    claim = CapabilityClaim.objects.filter(level="unknown").select_related("solution").first()
    client.force_login(admin_user)
    url = reverse("admin:catalog_capabilityclaim_change", args=[claim.pk])
    response = client.post(
        url,
        {
            "solution": claim.solution_id,
            "capability": claim.capability_id,
            "level": "native",
            "as_of_version": "1.0",
            "note_en": "",
            "note_zh_hans": "",
        },
    )
    assert response.status_code == 200
    assert b"at least one source" in response.content
    claim.refresh_from_db()
    assert claim.level == "unknown"


def test_create_user_command(capsys):
    call_command("create_user", "lin", "--role", "tech_lead", "--generate-password")
    out = capsys.readouterr().out
    assert "Created lin" in out and "Password:" in out
    user = get_user_model().objects.get(username="lin")
    assert list(user.groups.values_list("name", flat=True)) == ["tech_lead"]
    assert not user.is_staff
    with pytest.raises(CommandError, match="already exists"):
        call_command("create_user", "lin", "--role", "reviewer", "--password", "x-long-enough-1")
    with pytest.raises(CommandError, match="too short"):
        call_command("create_user", "mei", "--role", "reviewer", "--password", "short")
    assert not get_user_model().objects.filter(username="mei").exists()


def test_demo_users_print_passwords_once(capsys):
    call_command("seed_demo_users")
    first = capsys.readouterr().out
    for name in ("admin", "techlead", "reviewer", "procurement"):
        assert name in first
    assert first.count("password=") == 4
    call_command("seed_demo_users")
    second = capsys.readouterr().out
    assert "password=" not in second and "already exist" in second
    admin = get_user_model().objects.get(username="admin")
    assert admin.is_staff and roles.is_admin(admin)


def test_production_refuses_to_start_without_a_secret_key():
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SECRET_KEY"}
    env["DJANGO_SETTINGS_MODULE"] = "config.settings.production"
    code = "import django; django.setup()"
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert result.returncode != 0
    assert "DJANGO_SECRET_KEY must be set" in result.stderr
    env["DJANGO_SECRET_KEY"] = "x" * 50
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env).returncode == 0


def test_production_settings_pass_the_deployment_checks():
    """`check --deploy` at WARNING level with production settings and a real secret: HTTPS
    redirect, HSTS, secure cookies, no debug. A new setting that weakens them fails here."""
    import os
    import secrets
    import subprocess
    import sys

    # A production process's environment: not the test process's (a browser test in the same
    # worker sets DJANGO_ALLOW_ASYNC_UNSAFE for Playwright, which --deploy rightly refuses).
    env = {
        **{k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"},
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(60),
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
