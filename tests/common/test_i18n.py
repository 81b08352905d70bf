"""Both languages are complete: every translatable string has a Chinese translation."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from django.urls import reverse

ROOT = Path(__file__).resolve().parents[2]
PO = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po"
SOURCES = [
    "config",
    "common",
    "catalog",
    "evaluations",
    "responsibility",
    "poc",
    "reports",
    "signoff",
    "portable",
    "apitokens",
    "templates",
]


def msgfmt_statistics(po: Path) -> str:
    result = subprocess.run(
        ["msgfmt", "--statistics", "-o", "/dev/null", str(po)],
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stderr


@pytest.mark.skipif(not shutil.which("msgfmt"), reason="gettext is not installed")
def test_catalog_has_no_untranslated_or_fuzzy_messages():
    stats = msgfmt_statistics(PO)
    assert "untranslated" not in stats and "fuzzy" not in stats, stats


@pytest.mark.skipif(not shutil.which("xgettext"), reason="gettext is not installed")
def test_every_string_in_the_code_is_in_the_catalog(tmp_path):
    """Extract strings afresh from a copy of the sources; none may be missing from the .po."""
    for name in SOURCES:
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "manage.py", tmp_path / "manage.py")
    (tmp_path / "locale" / "zh_Hans" / "LC_MESSAGES").mkdir(parents=True)
    shutil.copy(PO, tmp_path / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po")
    subprocess.run(
        # The .jinja rows (common/jinja.py) use the same catalogue: their _("…") is extracted too.
        [
            sys.executable,
            "manage.py",
            "makemessages",
            "-l",
            "zh_Hans",
            "-e",
            "html,txt,py,jinja",
            "--no-obsolete",
            "-v0",
        ],
        cwd=tmp_path,
        check=True,
        env={"DJANGO_SETTINGS_MODULE": "config.settings.test", "PATH": "/usr/bin:/bin"},
    )
    stats = msgfmt_statistics(tmp_path / "locale" / "zh_Hans" / "LC_MESSAGES" / "django.po")
    assert "untranslated" not in stats and "fuzzy" not in stats, stats


@pytest.mark.django_db
def test_language_switch_changes_the_interface(client, tech_lead):
    client.force_login(tech_lead)
    assert "Solution catalog" in client.get(reverse("catalog:solution_list")).content.decode()
    response = client.post(reverse("set_language"), {"language": "zh-hans", "next": "/catalog/"})
    assert response.status_code == 302
    body = client.get(reverse("catalog:solution_list")).content.decode()
    assert "方案目录" in body and 'lang="zh-hans"' in body
