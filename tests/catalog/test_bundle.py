"""Catalog bundles (catalog/bundle/): export, refusals, what a bundle would change, an apply
that is all or nothing and names who imported it, the commands and the page."""

import hashlib
import io
import json
import zipfile

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.forms.models import model_to_dict
from django.urls import reverse

from catalog.bundle.apply import bundle_apply
from catalog.bundle.common import CATALOG_NAME, MANIFEST_NAME, BundleRefused, BundleStale
from catalog.bundle.diff import bundle_diff
from catalog.bundle.export import bundle_export
from catalog.bundle.read import bundle_read
from catalog.models import (
    AcceleratorFamily,
    AcceleratorSupport,
    Capability,
    CapabilityClaim,
    CapabilityGroup,
    CatalogImport,
    Scenario,
    ShortlistRule,
    Solution,
    SolutionType,
    Source,
)
from catalog.services import catalog_load_seed
from tests.factories import SolutionFactory

pytestmark = pytest.mark.django_db

URL = reverse("catalog:bundle")
MODELS = (
    Source,
    SolutionType,
    Scenario,
    CapabilityGroup,
    Capability,
    Solution,
    CapabilityClaim,
    ShortlistRule,
    AcceleratorFamily,
    AcceleratorSupport,
)


def snapshot() -> dict:
    """Every catalog row's stored values, m2m included, by model and primary key."""
    out = {}
    for model in MODELS:
        for obj in model.objects.all():
            values = model_to_dict(obj)
            for name, value in values.items():
                if isinstance(value, list) and value and hasattr(value[0], "pk"):
                    values[name] = sorted(v.pk for v in value)
            out[(model.__name__, obj.pk)] = values
    return out


def claim(solution="slurm", capability="gang-scheduling") -> CapabilityClaim:
    return CapabilityClaim.objects.get(solution__slug=solution, capability__slug=capability)


def rezip(data: bytes, *, yaml_text=None, manifest=None, rehash=True, drop=(), add=None) -> bytes:
    """A copy of bundle `data` with its catalog.yaml and/or manifest replaced."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        files = {n: archive.read(n) for n in archive.namelist()}
    if yaml_text is not None:
        files[CATALOG_NAME] = yaml_text.encode("utf-8")
    meta = json.loads(files[MANIFEST_NAME])
    meta.update(manifest or {})
    if rehash:
        meta["sha256"] = {CATALOG_NAME: hashlib.sha256(files[CATALOG_NAME]).hexdigest()}
    files[MANIFEST_NAME] = json.dumps(meta).encode()
    files.update(add or {})
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, content in files.items():
            if name not in drop:
                archive.writestr(name, content)
    return out.getvalue()


def edited(data: bytes, change) -> bytes:
    """The bundle with `change(parsed_catalog)` applied to its catalog.yaml, re-hashed."""
    parsed = yaml.safe_load(bundle_read(data).yaml_bytes)
    change(parsed)
    return rezip(data, yaml_text=yaml.safe_dump(parsed, allow_unicode=True, sort_keys=False))


def slurm(parsed) -> dict:
    return next(s for s in parsed["solutions"] if s["slug"] == "slurm")


def change_gang_scheduling(parsed) -> None:
    gang = slurm(parsed)["claims"]["gang-scheduling"]
    gang["level"] = "partial"
    gang["note"]["zh"] = "仅在整体分配节点时成立。"


# --- export and round trip -------------------------------------------------------------------


def test_export_holds_the_whole_catalog_and_a_manifest(admin_user):
    data = bundle_export(user=admin_user)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert sorted(archive.namelist()) == [CATALOG_NAME, MANIFEST_NAME]
        manifest = json.loads(archive.read(MANIFEST_NAME))
        text = archive.read(CATALOG_NAME)
    assert manifest["format_version"] == 1 and manifest["created_by"] == "ada"
    assert manifest["sha256"][CATALOG_NAME] == hashlib.sha256(text).hexdigest()
    assert manifest["counts"]["claims"] == CapabilityClaim.objects.count()
    assert manifest["counts"]["sources"] == Source.objects.count()
    parsed = yaml.safe_load(text)
    assert (
        "阿里云" in next(s for s in parsed["solutions"] if s["slug"] == "alibaba-cloud")["aliases"]
    )
    assert any(f.get("domestic") for f in parsed["accelerator_families"])
    assert any("checked" in s for s in parsed["sources"])
    assert any(r.get("by_detail") for r in parsed["shortlist_rules"])


def test_loading_the_export_into_the_same_database_changes_nothing(tmp_path):
    # Texts the seed never has: lines that do not pair up, aliases without spaces.
    volcano = Solution.objects.get(slug="volcano")
    volcano.limits_en += "\nOne more limit, in English only."
    volcano.aliases = "Volcano-sh,火山"
    volcano.save()
    before = snapshot()
    bundle = bundle_read(bundle_export())
    path = tmp_path / "catalog.yaml"
    path.write_bytes(bundle.yaml_bytes)
    catalog_load_seed(path=path)
    assert snapshot() == before
    counts = bundle_diff(bundle).counts()
    assert all(c["new"] == c["changed"] == c["kept"] == 0 for c in counts.values()), counts


# --- refusals --------------------------------------------------------------------------------


def refusal(data: bytes) -> str:
    with pytest.raises(BundleRefused) as caught:
        bundle_read(data)
    return " ".join(caught.value.messages)


def test_a_changed_catalog_without_a_new_hash_is_refused():
    data = bundle_export()
    text = bundle_read(data).yaml_bytes.decode().replace("level: native", "level: none", 1)
    message = refusal(rezip(data, yaml_text=text, rehash=False))
    assert "does not match the SHA-256" in message and "Export the bundle again" in message


@pytest.mark.parametrize(
    "make,expected",
    [
        (lambda d: rezip(d, manifest={"format_version": 2}), "format version 2"),
        (lambda d: b"PK\x03\x04 not really a zip", "not a zip file"),
        (lambda d: "名称,等级\n".encode(), "not a zip file"),
        (lambda d: rezip(d, drop=[MANIFEST_NAME]), "lacks manifest.json"),
        (lambda d: rezip(d, drop=[CATALOG_NAME]), "lacks catalog.yaml"),
        (lambda d: rezip(d, add={"../evil.py": b"x"}), "never has: ../evil.py"),
        (lambda d: rezip(d, manifest={"format": "other"}), "not a catalog bundle's manifest"),
        (lambda d: rezip(d, yaml_text="sources: [unclosed"), "not valid YAML (line 1)"),
        (lambda d: rezip(d, yaml_text="a: 1\n  b: 2\nc: 3\n"), "not valid YAML (line 2)"),
        (lambda d: rezip(d, yaml_text="!!python/object:os.system {}"), "not valid YAML"),
    ],
)
def test_damaged_or_foreign_files_are_refused_with_what_to_do(make, expected):
    assert expected in refusal(make(bundle_export()))


def test_a_file_over_the_limit_is_refused(monkeypatch):
    monkeypatch.setattr("catalog.bundle.read.MAX_BYTES", 1000)
    assert "larger than" in refusal(bundle_export())


def test_entries_the_loader_cannot_read_are_listed_with_where_they_are():
    def break_it(parsed):
        claims = slurm(parsed)["claims"]
        claims["gang-scheduling"]["level"] = "sometimes"
        claims["queues"]["sources"] = ["NO-SUCH-SOURCE"]
        claims["backfill"]["sources"] = []
        parsed["shortlist_rules"][0]["solutions"].append("no-such-solution")

    message = refusal(edited(bundle_export(), break_it))
    assert "nothing was changed" in message
    assert "slurm.claims.gang-scheduling.level: 'sometimes' is not a level" in message
    assert "slurm.claims.queues.sources: 'NO-SUCH-SOURCE' is not in the bundle" in message
    assert "slurm.claims.backfill: a 'native' claim needs a source" in message
    assert "'no-such-solution' is not in the bundle" in message


# --- diff and apply --------------------------------------------------------------------------


def test_the_diff_names_each_changed_field_and_keeps_rows_only_here():
    data = edited(bundle_export(), change_gang_scheduling)
    SolutionFactory(slug="our-own")  # only in this installation
    gang = claim()
    gang.as_of_version = "25.11"  # edited here after the export
    gang.save()

    diff = bundle_diff(bundle_read(data))
    (row,) = diff.of("claims", "changed")
    assert row.key == "slurm/gang-scheduling"
    assert {c.field: (c.old, c.new) for c in row.changes} == {
        "level": ("native", "partial"),
        "note_zh_hans": (gang.note_zh_hans, "仅在整体分配节点时成立。"),
        "as_of": ("25.11", "26.05.3"),
    }
    assert [r.key for r in diff.of("solutions", "kept")] == ["our-own"]
    assert diff.counts()["claims"]["unchanged"] == CapabilityClaim.objects.count() - 1


def test_apply_changes_the_claim_and_records_who_imported(admin_user):
    data = edited(bundle_export(), change_gang_scheduling)
    bundle = bundle_read(data)
    before = claim().history.count()
    other_claims = claim("slurm", "queues").history.count()

    record = bundle_apply(bundle, user=admin_user)

    gang = claim()
    assert gang.level == "partial" and gang.note_zh_hans == "仅在整体分配节点时成立。"
    assert record.imported_by == admin_user and record.sha256 == bundle.sha256
    assert record.changes["claims"]["changed"] == 1
    assert record.counts["claims"] == CapabilityClaim.objects.count()
    latest = gang.history.order_by("-history_id").first()
    assert latest.history_user == admin_user
    assert latest.history_change_reason.startswith("Imported from a catalog bundle")
    assert gang.history.count() == before + 1
    assert claim("slurm", "queues").history.count() == other_claims  # unchanged: no record

    # The same bundle again: nothing changes, and the import is recorded again.
    again = bundle_apply(bundle_read(data), user=admin_user)
    assert again.changes["claims"]["changed"] == 0
    assert CatalogImport.objects.count() == 2
    assert gang.history.count() == before + 1


def test_a_claim_the_database_refuses_rolls_back_the_whole_bundle(admin_user):
    def break_last(parsed):
        parsed["sources"][0]["title"] = "Changed title that must not be saved"
        last = parsed["solutions"][-1]
        next(iter(last["claims"].values()))["as_of"] = "v" * 200  # longer than the column

    before = snapshot()
    with pytest.raises(BundleRefused) as caught:
        bundle_apply(bundle_read(edited(bundle_export(), break_last)), user=admin_user)
    assert "nothing was changed" in caught.value.messages[0]
    assert snapshot() == before
    assert not CatalogImport.objects.exists()


def test_apply_refuses_when_the_catalog_changed_since_the_preview(admin_user):
    bundle = bundle_read(edited(bundle_export(), change_gang_scheduling))
    state = bundle_diff(bundle).state
    queues = claim("slurm", "queues")
    queues.note_en = "Edited by someone else meanwhile."
    queues.save()
    with pytest.raises(BundleStale):
        bundle_apply(bundle, user=admin_user, expected_state=state)
    assert claim().level == "native"


# --- commands --------------------------------------------------------------------------------


def test_commands_export_preview_and_import(tmp_path, admin_user):
    path = tmp_path / "catalog.zip"
    call_command("catalog_export", str(path), "--as", "ada", stdout=io.StringIO())
    path.write_bytes(edited(path.read_bytes(), change_gang_scheduling))
    before = snapshot()

    out = io.StringIO()
    call_command("catalog_import", str(path), "--dry-run", stdout=out)
    assert "claim slurm/gang-scheduling: level: 'native' -> 'partial'" in out.getvalue()
    assert "Dry run: nothing was changed." in out.getvalue()
    assert snapshot() == before and not CatalogImport.objects.exists()

    out = io.StringIO()
    call_command("catalog_import", str(path), "--as", "ada", stdout=out)
    assert "by ada: 0 new, 1 changed rows" in out.getvalue()
    assert claim().level == "partial"
    assert CatalogImport.objects.get().imported_by == admin_user


def test_the_import_command_refuses_a_damaged_file(tmp_path):
    path = tmp_path / "catalog.zip"
    path.write_bytes(b"not a zip")
    with pytest.raises(CommandError, match="not a zip file"):
        call_command("catalog_import", str(path), stdout=io.StringIO())
    with pytest.raises(CommandError, match="Cannot read"):
        call_command("catalog_import", str(tmp_path / "missing.zip"), stdout=io.StringIO())


# --- the page --------------------------------------------------------------------------------


def upload(client, data: bytes, name="catalog.zip"):
    file = SimpleUploadedFile(name, data, content_type="application/zip")
    return client.post(URL, {"action": "preview", "bundle": file})


def test_only_catalog_administrators_use_the_page(client, admin_user, tech_lead):
    export = reverse("catalog:bundle_export")
    for url in (URL, export):
        response = client.get(url)
        assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    assert client.post(URL, {"action": "preview"}).status_code == 302
    client.force_login(tech_lead)
    assert client.get(URL).status_code == 403
    assert client.get(export).status_code == 403
    assert upload(client, bundle_export()).status_code == 403
    client.force_login(admin_user)
    assert client.get(URL).status_code == 200
    download = client.get(export)
    assert download.status_code == 200 and download["Content-Type"] == "application/zip"
    assert "attachment" in download["Content-Disposition"]
    assert bundle_read(download.content).manifest["created_by"] == "ada"
    assert URL in client.get(reverse("catalog:solution_list")).content.decode()
    client.force_login(tech_lead)
    assert URL not in client.get(reverse("catalog:solution_list")).content.decode()


@pytest.mark.parametrize(
    "data,expected",
    [
        (b"\x00\x01 garbage", "not a zip file"),
        (None, "does not match the SHA-256"),
    ],
)
def test_a_bad_upload_is_a_400_with_what_to_do(client, admin_user, data, expected):
    if data is None:
        good = bundle_export()
        text = bundle_read(good).yaml_bytes.decode().replace("level: native", "level: none", 1)
        data = rezip(good, yaml_text=text, rehash=False)
    client.force_login(admin_user)
    response = upload(client, data)
    assert response.status_code == 400
    assert expected in response.content.decode()
    assert 'data-testid="bundle-apply"' not in response.content.decode()


def test_a_missing_file_or_unknown_action_is_a_400(client, admin_user):
    client.force_login(admin_user)
    response = client.post(URL, {"action": "preview"})
    assert response.status_code == 400
    assert "Choose the bundle file" in response.content.decode()
    assert client.post(URL, {"action": "drop-tables"}).status_code == 400
    response = client.post(URL, {"action": "apply", "sha256": "0" * 64, "state": "0" * 64})
    assert response.status_code == 400
    assert "no longer on the server" in response.content.decode()


def test_preview_then_apply_in_both_languages(client, admin_user):
    data = edited(bundle_export(), change_gang_scheduling)
    client.force_login(admin_user)
    response = upload(client, data)
    body = response.content.decode()
    assert response.status_code == 200 and 'data-testid="bundle-claims"' in body
    (row,) = response.context["claim_changes"]
    assert (row.solution, row.capability) == ("Slurm", "Gang scheduling")
    assert (row.old_level["label"], row.new_level["label"]) == ("Native", "Partial")
    assert row.others == ["note (Chinese)"]  # the English note is the same
    assert "note (Chinese)" in body and 'data-level="partial"' in body
    assert claim().level == "native"  # the preview saves nothing

    zh = client.post(URL, {"action": "preview", "bundle": SimpleUploadedFile("b.zip", data)},
                     HTTP_ACCEPT_LANGUAGE="zh-hans")  # fmt: skip
    (row,) = zh.context["claim_changes"]
    assert (row.capability, row.new_note) == ("Gang 调度", "仅在整体分配节点时成立。")
    assert "<ins>仅在整体分配节点时成立。</ins>" in zh.content.decode()

    form = response.context["apply_form"]
    response = client.post(
        URL, {"action": "apply", **{k: form[k].value() for k in ("sha256", "state")}}
    )
    assert response.status_code == 302 and response["Location"] == URL
    assert claim().level == "partial"
    page = client.get(URL).content.decode()
    assert "Imported catalog" in page and "by ada" in page
    assert 'data-testid="bundle-history"' in page


def test_apply_after_someone_changed_the_catalog_shows_the_new_diff(client, admin_user):
    client.force_login(admin_user)
    response = upload(client, edited(bundle_export(), change_gang_scheduling))
    form = response.context["apply_form"]
    queues = claim("slurm", "queues")
    queues.note_en = "Edited meanwhile."
    queues.save()
    response = client.post(
        URL, {"action": "apply", **{k: form[k].value() for k in ("sha256", "state")}}
    )
    assert response.status_code == 409
    assert "The catalog changed after you previewed" in response.content.decode()
    assert claim().level == "native"


def test_the_page_keeps_to_its_query_budget(client, admin_user, django_assert_max_num_queries):
    for _ in range(25):
        CatalogImport.objects.create(imported_by=admin_user, sha256="a" * 64, format_version=1)
    client.force_login(admin_user)
    with django_assert_max_num_queries(8):
        response = client.get(URL)
    assert response.status_code == 200 and 'data-testid="pager"' in response.content.decode()
    assert client.get(URL + "?page=x").status_code == 200
    data = edited(bundle_export(), change_gang_scheduling)
    with django_assert_max_num_queries(25):
        assert upload(client, data).status_code == 200


def test_an_upload_over_the_limit_is_stopped_and_named(client, admin_user, monkeypatch):
    monkeypatch.setattr("catalog.bundle.views.MAX_BYTES", 1000)
    client.force_login(admin_user)
    response = upload(client, bundle_export())
    assert response.status_code == 400
    assert "larger than 20.0" in response.content.decode()
