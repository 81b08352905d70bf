"""Evaluation archives: a round trip through an instance holding none of the evaluation gives
the same archive back, and every kind of bad archive is refused with nothing created."""

import hashlib
import io
import json
import zipfile

import pytest
from django.apps import apps
from django.core.files.storage import default_storage
from django.db import models

from common import roles
from evaluations.models import (
    Candidate,
    Evaluation,
    MemberRole,
    Membership,
    StatusDigest,
    StatusStamp,
)
from poc.models import Evidence
from portable.archive import PARTS, ArchiveRefused, evaluation_import
from signoff.models import Approval
from tests.conftest import make_user
from tests.factories import (
    make_everything,
)
from tests.portable.archive_world import (
    contents,
    counts,
    export_bytes,
    make_all_kinds,
    stored_files,
)

pytestmark = pytest.mark.django_db


def test_every_model_of_an_evaluation_is_in_the_archive():
    """A new model pointing at an evaluation's rows must be carried (or this test says so)."""
    carried = {p.model for p in PARTS}
    # Stored row status is derived from the rest: an imported evaluation computes its own.
    derived = {StatusStamp, StatusDigest}
    left_out = []
    for model in apps.get_models():
        if (
            model in carried
            or model in derived
            or model.__module__.endswith("historical")
            or "Historical" in (model.__name__)
        ):
            continue
        if model._meta.auto_created:  # many-to-many tables: carried with their model
            continue
        for field in model._meta.concrete_fields:
            if isinstance(field, models.ForeignKey) and field.related_model in carried:
                left_out.append(f"{model._meta.label}.{field.name}")
    assert left_out == []


def test_round_trip_into_an_instance_without_it_gives_the_same_archive(owner, people):
    evaluation = make_all_kinds(owner, people)
    assert evaluation.candidates.filter(stack_name__gt="").exists()
    first = export_bytes(evaluation)
    document, manifest = contents(first)
    data = json.loads(document)
    objects = data["objects"]
    assert data["schema_version"] == 1
    # every kind of row is there
    assert {label for label, rows in objects.items() if not rows} == set()
    assert len(objects["reports.reportrun"]) == 2 and len(objects["poc.evidence"]) >= 2
    assert "pk" not in objects["evaluations.candidate"][0]
    # evidence, the import's file and both PDFs, each once
    paths = {e["path"] for e in manifest["files"]}
    assert "evaluation.json" in paths and len(paths) == 1 + 4

    # the other instance: the same catalog and people, none of the evaluation's rows or files
    for name in stored_files():
        default_storage.delete(name)
    Approval.objects.all().delete()  # they protect the report runs from the cascade
    Evaluation.objects.all().delete()
    assert set(counts().values()) == {0} and stored_files() == set()

    imported = evaluation_import(source=io.BytesIO(first), user=owner)
    assert imported.title == "Everything" and imported.status == "decided"
    own_parties = objects.pop("responsibility.party")
    assert counts() == {
        **{label: len(rows) for label, rows in objects.items()},
        "own parties": len(own_parties),
    }
    second = export_bytes(imported)
    document_again, manifest_again = contents(second)
    assert document_again == document  # timestamps, versions and references included
    assert manifest_again["files"] == manifest["files"]
    # each file is stored once and read back where its rows say
    assert len(stored_files()) == len(paths) - 1
    for evidence in Evidence.objects.filter(score__case__evaluation=imported):
        with evidence.file.open("rb") as stored:
            assert hashlib.sha256(stored.read()).hexdigest() == evidence.sha256
    for run in imported.report_runs.all():
        with run.pdf.open("rb") as pdf:
            assert hashlib.sha256(pdf.read()).hexdigest() == run.pdf_sha256
    # timestamps kept, not the time of the import; the history starts at the import
    assert imported.created_at.isoformat() == objects["evaluations.evaluation"][0]["created_at"]
    assert imported.history.get().history_change_reason == "Imported from an archive"


def test_the_importer_owns_an_evaluation_they_are_not_a_member_of(owner, people):
    evaluation = make_everything(owner, people)
    data = export_bytes(evaluation)
    admin = make_user(roles.ADMIN, username="importer")
    imported = evaluation_import(source=io.BytesIO(data), user=admin)
    assert imported.pk != evaluation.pk
    assert Membership.objects.get(evaluation=imported, user=admin).role == MemberRole.OWNER
    owner_again = Membership.objects.get(evaluation=imported, user=owner)
    assert owner_again.role == MemberRole.OWNER  # the archive's members keep their roles


def test_people_are_matched_by_email_when_the_username_differs(owner, people):
    evaluation = make_everything(owner, people)
    data = export_bytes(evaluation)
    viewer = people[MemberRole.VIEWER]
    viewer.username, viewer.email = "renamed", viewer.email.upper()
    viewer.save()
    imported = evaluation_import(source=io.BytesIO(data), user=owner)
    assert imported.memberships.filter(user=viewer, role=MemberRole.VIEWER).exists()


# --- refusals ----------------------------------------------------------------------------------


def rebuild(data: bytes, change) -> bytes:
    """The archive with `change(files)` applied to {name: bytes}, the manifest left as is
    unless `change` rewrites it."""
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        files = {name: z.read(name) for name in z.namelist()}
    change(files)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, content in files.items():
            z.writestr(name, content)
    return out.getvalue()


def resealed(files: dict) -> None:
    """Rewrite the manifest to match the files (an archive edited by someone who knows how)."""
    manifest = json.loads(files["manifest.json"])
    manifest["files"] = [
        {"path": n, "sha256": hashlib.sha256(c).hexdigest(), "size": len(c)}
        for n, c in sorted(files.items())
        if n != "manifest.json"
    ]
    files["manifest.json"] = json.dumps(manifest).encode()


def edit_document(change):
    def edit(files):
        document = json.loads(files["evaluation.json"])
        change(document)
        files["evaluation.json"] = json.dumps(document).encode()
        resealed(files)

    return edit


def first_file(files) -> str:
    return next(n for n in sorted(files) if n.startswith("files/"))


def tamper_file(files):
    files[first_file(files)] += b"!"


def tamper_manifest(files):
    manifest = json.loads(files["manifest.json"])
    manifest["files"][0]["sha256"] = "0" * 64
    files["manifest.json"] = json.dumps(manifest).encode()


def add_extra(files):
    files["files/extra.txt"] = b"not listed"


def drop_file(files):
    del files[first_file(files)]


def traversal(files):
    files["../outside.txt"] = b"x"
    resealed(files)


def absolute(files):
    files["/etc/cron.d/x"] = b"x"


def unknown_person(document):
    document["people"].append({"username": "ghost", "email": "ghost@nowhere.test"})
    document["objects"]["evaluations.membership"][1]["user"] = "ghost"


def unknown_catalog(document):
    document["objects"]["evaluations.candidate"][0]["solution"] = "no-such-solution"


REFUSALS = [
    (tamper_file, "does not match the archive's manifest"),
    (tamper_manifest, "does not match the archive's manifest"),
    (add_extra, "files its manifest does not list: files/extra.txt"),
    (drop_file, "Files the manifest lists are missing from the archive: files/"),
    (traversal, "unsafe names: ../outside.txt"),
    (absolute, "unsafe names: /etc/cron.d/x"),
    (edit_document(lambda d: d.update(schema_version=2)), "schema version is 2"),
    (edit_document(unknown_person), "no account here (by username or e-mail): ghost"),
    (edit_document(unknown_catalog), "not in this instance's catalog: solution “no-such"),
    (edit_document(lambda d: d["objects"].update(bogus=[])), "does not have the shape"),
]


@pytest.mark.parametrize(("change", "message"), REFUSALS, ids=[r[0].__name__ for r in REFUSALS])
def test_a_bad_archive_is_refused_and_creates_nothing(owner, people, change, message):
    evaluation = make_everything(owner, people)
    data = rebuild(export_bytes(evaluation), change)
    before, files_before = counts(), stored_files()
    with pytest.raises(ArchiveRefused) as refused:
        evaluation_import(source=io.BytesIO(data), user=owner)
    assert message in " ".join(refused.value.messages)
    assert counts() == before
    assert stored_files() == files_before


def test_a_failure_after_files_were_written_removes_them(owner, people):
    """A row refused late (a value the model refuses) rolls back rows and stored files."""
    evaluation = make_everything(owner, people)

    def bad_status(document):
        document["objects"]["reports.reportrun"] = []
        document["objects"]["evaluations.approval"] = []
        document["objects"]["poc.consensus"][0]["score"] = "9"

    data = rebuild(export_bytes(evaluation), edit_document(bad_status))
    before, files_before = counts(), stored_files()
    with pytest.raises(ArchiveRefused, match="does not fit this instance"):
        evaluation_import(source=io.BytesIO(data), user=owner)
    assert counts() == before and stored_files() == files_before


def test_an_archive_over_the_limit_is_refused(owner, people, settings):
    evaluation = make_everything(owner, people)
    data = export_bytes(evaluation)
    settings.PORTABLE_MAX_BYTES = len(data) - 1
    before = counts()
    with pytest.raises(ArchiveRefused, match="imports archives up to"):
        evaluation_import(source=io.BytesIO(data), user=owner)
    assert counts() == before


def test_an_archive_that_unpacks_over_the_limit_is_refused(owner, people, settings):
    evaluation = make_everything(owner, people)
    bomb = rebuild(export_bytes(evaluation), lambda f: f.update({"files/zeros": b"\0" * 100000}))
    settings.PORTABLE_MAX_BYTES = len(bomb) + 1000  # the zip fits, its content does not
    with pytest.raises(ArchiveRefused, match="Unpacked, the archive is over"):
        evaluation_import(source=io.BytesIO(bomb), user=owner)


def test_not_a_zip_is_refused():
    with pytest.raises(ArchiveRefused, match="not a zip archive"):
        evaluation_import(source=io.BytesIO(b"PK not really"))


def test_no_candidate_left_behind_when_refused(owner, people):
    """The refusals above compare counts; this one reads the candidates themselves."""
    evaluation = make_everything(owner, people)
    data = rebuild(export_bytes(evaluation), edit_document(unknown_catalog))
    ids = set(Candidate.objects.values_list("pk", flat=True))
    with pytest.raises(ArchiveRefused):
        evaluation_import(source=io.BytesIO(data))
    assert set(Candidate.objects.values_list("pk", flat=True)) == ids


# --- hostile archives: bounded reading -------------------------------------------------------


def crafted(manifest_chunks, *, document: bytes = b"{}") -> bytes:
    """A small zip whose manifest.json unpacks to the chunks given (written as they come)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open("manifest.json", "w") as stream:
            for chunk in manifest_chunks:
                stream.write(chunk)
        archive.writestr("evaluation.json", document)
    return out.getvalue()


def import_peak(data: bytes) -> tuple[str, int]:
    """The refusal of importing `data`, and the most memory Python held meanwhile."""
    import tracemalloc

    source = io.BytesIO(data)
    tracemalloc.start()
    try:
        with pytest.raises(ArchiveRefused) as refused:
            evaluation_import(source=source)
        return " ".join(refused.value.messages), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_huge_manifest_is_refused_by_its_size_before_it_is_read():
    """A manifest of ten million zeros (20 MB unpacked, a zip of about 20 KB, under the archive
    limit) is refused by the manifest's own limit without being read: parsed, it would take
    hundreds of megabytes."""
    data = crafted([b"[" + b"0," * 1_000_000] + [b"0," * 1_000_000] * 9 + [b"0]"])
    assert len(data) < 100 * 1024
    message, peak = import_peak(data)
    assert peak < 4 * 1024 * 1024, f"{peak / 2**20:.1f} MiB held while refusing"
    assert "manifest.json is larger than 4.0" in message


def test_a_document_too_large_for_memory_is_refused(owner, people, settings):
    evaluation = make_everything(owner, people)
    data = export_bytes(evaluation)
    _document, manifest = contents(data)
    settings.PORTABLE_DOCUMENT_MAX_BYTES = 1000
    with pytest.raises(ArchiveRefused, match="evaluation.json is larger than 1000"):
        evaluation_import(source=io.BytesIO(data), user=owner)
    assert manifest["files"]  # the manifest, small, was read


def test_an_archive_nested_too_deeply_is_refused():
    with pytest.raises(ArchiveRefused, match="nested more than"):
        evaluation_import(source=io.BytesIO(crafted([b"[" * 200000])))
