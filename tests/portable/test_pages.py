"""The archive's entry points: the owner's download (page and API, members only), the import
page (its refusals shown in the form, never a 500) and the two commands."""

import html
import io
import json
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient

from common import roles
from evaluations.models import Evaluation, MemberRole, Membership
from tests.conftest import make_user
from tests.factories import make_everything
from tests.portable.test_archive import counts, export_bytes, rebuild, tamper_file

pytestmark = pytest.mark.django_db

NOT_OWNERS = [MemberRole.EDITOR, MemberRole.REVIEWER, MemberRole.VIEWER]


@pytest.fixture
def everything(owner, people):
    return make_everything(owner, people, sealed=True)


def zip_names(response) -> set[str]:
    body = b"".join(response.streaming_content)
    with zipfile.ZipFile(io.BytesIO(body)) as z:
        return set(z.namelist())


def test_the_owner_downloads_the_archive_from_the_overview(client, owner, everything):
    client.force_login(owner)
    overview = client.get(reverse("evaluations:evaluation_detail", args=[everything.pk]))
    url = reverse("portable:evaluation_archive", args=[everything.pk])
    assert f'href="{url}"' in overview.content.decode()
    response = client.get(url)
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    assert "attachment" in response["Content-Disposition"]
    names = zip_names(response)
    assert {"evaluation.json", "manifest.json"} <= names and any(
        n.startswith("files/") for n in names
    )


@pytest.mark.parametrize("role", NOT_OWNERS)
def test_other_members_are_refused_and_see_no_button(client, people, everything, role):
    client.force_login(people[role])
    url = reverse("portable:evaluation_archive", args=[everything.pk])
    overview = client.get(reverse("evaluations:evaluation_detail", args=[everything.pk]))
    assert url not in overview.content.decode()
    response = client.get(url)
    assert response.status_code == 403
    api = APIClient()
    api.force_authenticate(people[role])
    refused = api.get(f"/api/evaluations/{everything.pk}/archive/")
    assert refused.status_code == 403 and "owner" in refused.json()["detail"]


def test_non_members_get_404_on_page_and_api(client, people, everything):
    outsider = people["outsider"]
    client.force_login(outsider)
    assert (
        client.get(reverse("portable:evaluation_archive", args=[everything.pk])).status_code == 404
    )
    api = APIClient()
    api.force_authenticate(outsider)
    assert api.get(f"/api/evaluations/{everything.pk}/archive/").status_code == 404
    assert APIClient().get(f"/api/evaluations/{everything.pk}/archive/").status_code == 401


def test_the_api_streams_the_same_archive(owner, everything):
    api = APIClient()
    api.force_authenticate(owner)
    response = api.get(f"/api/evaluations/{everything.pk}/archive/")
    assert response.status_code == 200 and response.streaming
    body = b"".join(response.streaming_content)
    with zipfile.ZipFile(io.BytesIO(body)) as z:
        document = json.loads(z.read("evaluation.json"))
    assert document["objects"]["evaluations.evaluation"][0]["title"] == "Everything"


# --- the import page -------------------------------------------------------------------------


def upload(client, content: bytes, name="evaluation.zip"):
    return client.post(
        reverse("portable:evaluation_import"),
        {"archive": SimpleUploadedFile(name, content, "application/zip")},
    )


def test_a_tech_lead_imports_and_lands_on_the_evaluation(client, owner, everything):
    data = export_bytes(everything)
    lead = make_user(roles.TECH_LEAD, username="lead-elsewhere")
    client.force_login(lead)
    page = client.get(reverse("evaluations:evaluation_list"))
    assert reverse("portable:evaluation_import") in page.content.decode()
    assert client.get(reverse("portable:evaluation_import")).status_code == 200
    response = upload(client, data)
    imported = Evaluation.objects.exclude(pk__in=[everything.pk]).get(title="Everything")
    assert response.status_code == 302
    assert response["Location"] == reverse("evaluations:evaluation_detail", args=[imported.pk])
    assert Membership.objects.get(evaluation=imported, user=lead).role == MemberRole.OWNER
    assert client.get(response["Location"]).status_code == 200
    history = client.get(reverse("evaluations:evaluation_history", args=[imported.pk]))
    assert history.status_code == 200


BAD_UPLOADS = [
    (b"", "Choose the archive file to import."),
    (b"just text", "This is not a zip archive exported by Shortlist."),
    ("tampered", "does not match the archive's manifest"),
]


@pytest.mark.parametrize(("content", "message"), BAD_UPLOADS, ids=["empty", "text", "tampered"])
def test_the_import_page_shows_refusals_in_the_form(client, owner, everything, content, message):
    if content == "tampered":
        content = rebuild(export_bytes(everything), tamper_file)
    client.force_login(owner)
    before = counts()
    response = (
        client.post(reverse("portable:evaluation_import"), {})
        if content == b""
        else upload(client, content)
    )
    assert response.status_code == 400
    assert message in html.unescape(response.content.decode())
    assert counts() == before


def test_the_import_page_stops_reading_an_archive_over_the_limit(client, owner, settings):
    settings.PORTABLE_MAX_BYTES = 1000
    client.force_login(owner)
    before = counts()
    response = upload(client, b"PK" + b"\0" * 5000)
    assert response.status_code == 400
    assert "larger than 1000" in response.content.decode()
    assert counts() == before


def test_only_those_who_create_evaluations_import(client, people):
    client.force_login(people[MemberRole.REVIEWER])  # a reviewer (and procurement) cannot
    assert client.get(reverse("portable:evaluation_import")).status_code == 403
    assert upload(client, b"x").status_code == 403
    client.logout()
    assert client.get(reverse("portable:evaluation_import")).status_code == 302


# --- the commands ----------------------------------------------------------------------------


def test_the_commands_export_and_import(owner, everything, tmp_path):
    path = tmp_path / "e.zip"
    out = io.StringIO()
    call_command("export_evaluation", str(everything.pk), str(path), stdout=out)
    assert "Exported" in out.getvalue() and zipfile.is_zipfile(path)
    admin = make_user(roles.ADMIN, username="ops")
    call_command("import_evaluation", str(path), "--as", "ops", stdout=out)
    imported = Evaluation.objects.exclude(pk=everything.pk).get(title="Everything")
    assert f"as evaluation {imported.pk}" in out.getvalue()
    assert imported.memberships.filter(user=admin, role=MemberRole.OWNER).exists()


def test_the_import_command_refuses_with_the_reason(owner, everything, tmp_path):
    path = tmp_path / "e.zip"
    path.write_bytes(rebuild(export_bytes(everything), tamper_file))
    before = counts()
    with pytest.raises(CommandError, match="does not match the archive's manifest"):
        call_command("import_evaluation", str(path))
    with pytest.raises(CommandError, match="no user nobody"):
        call_command("import_evaluation", str(path), "--as", "nobody")
    with pytest.raises(CommandError, match="no evaluation"):
        call_command("export_evaluation", "0", str(tmp_path / "x.zip"))
    assert counts() == before


def test_a_missing_stored_file_stops_the_export(owner, everything, tmp_path):
    """An archive without one of its files would not be the evaluation: 409, and the command
    leaves no half-written archive."""
    from django.core.files.storage import default_storage

    from poc.models import Evidence

    evidence = Evidence.objects.filter(score__case__evaluation=everything).first()
    default_storage.delete(evidence.file.name)
    api = APIClient()
    api.force_authenticate(owner)
    response = api.get(f"/api/evaluations/{everything.pk}/archive/")
    assert response.status_code == 409 and "is missing" in response.json()["detail"]
    path = tmp_path / "e.zip"
    with pytest.raises(CommandError, match="is missing"):
        call_command("export_evaluation", str(everything.pk), str(path))
    assert not path.exists()


def test_an_imported_evaluation_is_marked_in_the_list(client, owner, everything):
    """Importing next to the original (a restore test, a copy for another team) gives two rows
    with the same title: the imported one says where it came from and when."""
    client.force_login(owner)
    upload(client, export_bytes(everything), name="platform-2027.zip")
    imported = Evaluation.objects.exclude(pk=everything.pk).get(title="Everything")
    assert imported.imported_from == "platform-2027.zip" and imported.imported_at
    body = client.get(reverse("evaluations:evaluation_list")).content.decode()
    rows = {
        pk: body.split(f'href="/evaluations/{pk}/"', 1)[1].split("</tr>", 1)[0]
        for pk in (imported.pk, everything.pk)
    }
    assert (
        'data-testid="imported"' in rows[imported.pk] and "platform-2027.zip" in rows[imported.pk]
    )
    assert 'data-testid="imported"' not in rows[everything.pk]
    # An archive of the copy does not carry the mark to the next instance as its own.
    again = export_bytes(imported)
    upload(client, again, name="copy-of-copy.zip")
    third = Evaluation.objects.exclude(pk__in=[everything.pk, imported.pk]).get(title="Everything")
    assert third.imported_from == "copy-of-copy.zip"
