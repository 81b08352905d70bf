"""Test beds and the capabilities a POC verified or contradicted: the services, the API and the
pages, blind scoring, the administrators' review list and the report in both languages (the
pure rules: test_testbed_rules.py)."""

import html
from datetime import date

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from rest_framework.test import APIClient

from catalog.models import Capability
from common import roles
from common.exceptions import Forbidden, StaleEdit
from evaluations.models import MemberRole
from evaluations.reminders import reminders_for
from evaluations.selectors import evaluation_data
from poc import services
from poc.models import PlanCase, TestBed, TestGroup
from poc.testbeds import bed_save
from poc.verification import poc_verification
from reports.render import report_html
from reports.snapshot import SCHEMA_VERSION, build_snapshot, snapshot_sha256
from tests.conftest import make_user
from tests.factories import add_candidates, add_member, declare_none, make_evaluation

pytestmark = pytest.mark.django_db

GENERATED = "2027-03-01T09:00:00+08:00"


# --- fixtures --------------------------------------------------------------------------------


@pytest.fixture
def poc(evaluation, owner, people):
    slurm, volcano = add_candidates(evaluation, owner, "slurm", "volcano")
    services.plan_init(user=owner, evaluation=evaluation)
    case = evaluation.poc_cases.get(source_case__key="gang_under_contention")
    declare_none(evaluation, owner, people[MemberRole.EDITOR], people[MemberRole.REVIEWER])
    return {"slurm": slurm, "volcano": volcano, "case": case, "r1": people[MemberRole.REVIEWER]}


BED = {
    "product_version": "Volcano 1.9.0",
    "components": "Kubernetes 1.29\nCANN 7.0",
    "accelerator_vendor": "Huawei",
    "accelerator_model": "Ascend 910B",
    "accelerator_count": 32,
    "nodes": 4,
    "tested_from": date(2026, 9, 1),
    "tested_to": date(2026, 9, 12),
    "notes": "Shared POC partition.",
}


def score(case, candidate, reviewer, value):
    return services.score_save(
        user=reviewer, case=case, candidate=candidate, score=value, submit=True, expected_version=0
    )


def api(user) -> APIClient:
    client = APIClient()
    client.default_format = "json"
    client.force_authenticate(user)
    return client


# --- services --------------------------------------------------------------------------------


def test_test_bed_save_is_versioned_validated_and_in_history(owner, people, poc):
    volcano = poc["volcano"]
    bed = bed_save(user=owner, candidate=volcano, expected_version=0, **BED)
    assert (bed.version, bed.accelerator) == (1, "Huawei Ascend 910B")
    bed = bed_save(user=owner, candidate=volcano, expected_version=1, **{**BED, "nodes": 8})
    assert bed.version == 2
    assert bed.history.count() == 2
    assert bed.history.first().history_user == owner
    with pytest.raises(StaleEdit):
        bed_save(user=owner, candidate=volcano, expected_version=1, **BED)
    with pytest.raises(ValidationError) as exc:
        bed_save(
            user=owner,
            candidate=volcano,
            expected_version=2,
            **{**BED, "tested_to": date(2026, 8, 1), "nodes": 64},
        )
    assert set(exc.value.message_dict) == {"tested_to", "nodes"}
    assert TestBed.objects.get(candidate=volcano).nodes == 8  # nothing half saved
    for role in (MemberRole.REVIEWER, MemberRole.VIEWER):
        with pytest.raises(Forbidden):
            bed_save(user=people[role], candidate=volcano, expected_version=2, **BED)


def test_reminder_fires_when_candidates_ran_on_different_beds(evaluation, owner, poc):
    bed_save(user=owner, candidate=poc["volcano"], expected_version=0, **BED)
    keys = {r.key for r in reminders_for(evaluation_data(evaluation))}
    assert "poc-test-beds-differ" not in keys  # one bed: nothing to compare
    a800 = {**BED, "accelerator_vendor": "NVIDIA", "accelerator_model": "A800"}
    bed_save(user=owner, candidate=poc["slurm"], expected_version=0, **a800)
    found = [r for r in reminders_for(evaluation_data(evaluation)) if "bed" in r.key]
    assert [(r.key, r.severity) for r in found] == [("poc-test-beds-differ", "high")]
    assert "Huawei Ascend 910B: Volcano" in found[0].why
    assert found[0].fix_url == reverse("poc:testbeds", kwargs={"pk": evaluation.pk})


def test_verification_follows_agreed_scores_and_blind_scoring(evaluation, owner, people, poc):
    case, slurm, volcano, r1 = poc["case"], poc["slurm"], poc["volcano"], poc["r1"]
    bed_save(user=owner, candidate=slurm, expected_version=0, **BED)
    score(case, slurm, r1, "4")
    score(case, volcano, r1, "1.5")
    v = poc_verification(evaluation, owner)
    by = {cf.candidate.pk: cf for cf in v.candidates}
    assert [(f.capability.slug, f.verified) for f in by[slurm.pk].findings] == [
        ("gang-scheduling", True)
    ]
    assert by[slurm.pk].version == "Volcano 1.9.0"
    assert [(f.capability.slug, f.verified) for f in by[volcano.pk].contradicted] == [
        ("gang-scheduling", False)
    ]
    # A consensus is what counts.
    services.consensus_record(
        user=owner,
        case=case,
        candidate=volcano,
        score="3",
        reason="Re-run passed",
        expected_version=0,
    )
    by = {cf.candidate.pk: cf for cf in poc_verification(evaluation, owner).candidates}
    assert by[volcano.pk].findings[0].verified
    # The editor has not scored these cells: blind, they reveal nothing, and say so.
    editor = people[MemberRole.EDITOR]
    blind = poc_verification(evaluation, editor)
    assert not blind.any and blind.hidden == 2
    score(case, slurm, editor, "5")
    blind = poc_verification(evaluation, editor)
    assert [cf.candidate.pk for cf in blind.candidates if cf.findings] == [slurm.pk]
    assert blind.hidden == 1


def test_own_case_names_capabilities_and_library_cases_read_the_library(evaluation, owner, poc):
    quotas = Capability.objects.get(slug="quotas")
    own = services.plan_case_add_custom(
        user=owner,
        evaluation=evaluation,
        group=TestGroup.objects.get(key="governance"),
        title="Quota per project",
        acceptance="A project cannot exceed its quota.",
        verifies=[quotas],
    )
    assert [c.slug for c in own.verified_capabilities()] == ["quotas"]
    assert [c.slug for c in poc["case"].verified_capabilities()] == ["gang-scheduling"]
    verify = services.plan_case_verify(
        user=owner, evaluation=evaluation, capability=Capability.objects.get(slug="web-ui")
    )
    assert [c.slug for c in verify.verified_capabilities()] == ["web-ui"]


def test_every_library_case_that_fits_a_capability_names_one():
    from poc.models import TestCase

    without = set(TestCase.objects.filter(verifies=None).values_list("key", flat=True))
    assert without == {"version_upgrade_under_load", "vendor_response", "long_run_soak"}


# --- API -------------------------------------------------------------------------------------


def bed_url(evaluation, candidate):
    return reverse(
        "poc-api:test_bed", kwargs={"evaluation_pk": evaluation.pk, "candidate_pk": candidate.pk}
    )


def test_api_test_beds_members_only_and_versioned(evaluation, owner, people, poc):
    volcano = poc["volcano"]
    url = bed_url(evaluation, volcano)
    body = {**BED, "tested_from": "2026-09-01", "tested_to": "2026-09-12"}
    assert api(people["outsider"]).get(url).status_code == 404
    assert api(people[MemberRole.REVIEWER]).put(url, body).status_code == 403
    first = api(owner).put(url, body)
    assert first.status_code == 201, first.content
    assert first["ETag"] == '"1"'
    assert first.json()["accelerator_model"] == "Ascend 910B"
    assert api(owner).put(url, body).status_code == 428  # updating without a version
    assert api(owner).put(url, {**body, "version": 0}).status_code == 409
    stale = api(owner).put(url, body, HTTP_IF_MATCH='"0"')
    assert stale.status_code == 412
    bad = api(owner).put(url, {**body, "nodes": 0, "version": 1})
    assert bad.status_code == 400 and "nodes" in bad.json()
    ok = api(owner).put(url, {**body, "nodes": 8, "version": 1})
    assert ok.status_code == 200 and ok.json()["version"] == 2
    listing = api(people[MemberRole.VIEWER]).get(
        reverse("poc-api:test_beds", kwargs={"evaluation_pk": evaluation.pk})
    )
    assert listing.status_code == 200
    rows = {row["name"]: row["test_bed"] for row in listing.json()["candidates"]}
    assert rows["Slurm"] is None and rows["Volcano"]["nodes"] == 8
    assert listing.json()["mismatch"] == {"accelerators": [], "scale": []}
    empty = api(owner).get(bed_url(evaluation, poc["slurm"]))
    assert empty.status_code == 200 and empty["ETag"] == '"0"'


def test_api_verification_and_plan_case_capabilities(evaluation, owner, people, poc):
    score(poc["case"], poc["slurm"], poc["r1"], "4")
    url = reverse("poc-api:verification", kwargs={"evaluation_pk": evaluation.pk})
    assert api(people["outsider"]).get(url).status_code == 404
    body = api(owner).get(url).json()
    slurm = next(c for c in body["candidates"] if c["name"] == "Slurm")
    assert [(f["capability"], f["status"]) for f in slurm["findings"]] == [
        ("gang-scheduling", "verified")
    ]
    blind = api(people[MemberRole.EDITOR]).get(url).json()
    assert blind["hidden"] == 1 and all(not c["findings"] for c in blind["candidates"])
    cases = reverse("poc-api:plan_case_list", kwargs={"evaluation_pk": evaluation.pk})
    made = api(owner).post(
        cases,
        {
            "group": "governance",
            "title": "Audit",
            "acceptance": "Logged",
            "verifies": ["audit-log"],
        },
    )
    assert made.status_code == 201 and made.json()["verifies"] == ["audit-log"]
    refused = api(owner).post(
        cases, {"group": "governance", "title": "X", "acceptance": "Y", "verifies": ["nope"]}
    )
    assert refused.status_code == 400 and "verifies" in refused.json()


# --- pages -----------------------------------------------------------------------------------


def test_test_bed_page_renders_saves_and_is_members_only(client, evaluation, owner, people, poc):
    url = reverse("poc:testbeds", kwargs={"pk": evaluation.pk})
    client.force_login(people["outsider"])
    assert client.get(url).status_code == 404
    client.force_login(owner)
    bed_save(user=owner, candidate=poc["slurm"], expected_version=0, **BED)
    score(poc["case"], poc["slurm"], poc["r1"], "4")
    score(poc["case"], poc["volcano"], poc["r1"], "2")
    page = client.get(url).content.decode()
    assert 'data-testid="test-beds"' in page and "Ascend 910B" in page
    assert f'data-testid="test-bed-form-{poc["volcano"].pk}"' in page
    shown = html.unescape(page)
    assert "verified in this evaluation's POC" in shown and "contradicted by the POC" in shown
    sent = {
        "candidate": poc["volcano"].pk,
        "version": 0,
        **{k: v for k, v in BED.items()},
        "accelerator_vendor": "NVIDIA",
        "accelerator_model": "A800",
    }
    assert client.post(url, sent).status_code == 302
    assert TestBed.objects.get(candidate=poc["volcano"]).accelerator == "NVIDIA A800"
    assert 'data-testid="bed-mismatch"' in client.get(url).content.decode()
    refused = client.post(url, {**sent, "version": 1, "nodes": 0})
    assert refused.status_code == 400
    assert client.post(url, {**sent, "version": 0}).status_code == 409  # stale
    client.force_login(people[MemberRole.REVIEWER])
    page = client.get(url).content.decode()
    assert "test-bed-form" not in page  # reviewers read, editors and owners write
    assert client.post(url, {**sent, "version": 1}).status_code == 403


def test_plan_page_adds_an_own_case_with_capabilities(client, evaluation, owner, poc):
    client.force_login(owner)
    url = reverse("poc:plan", kwargs={"pk": evaluation.pk})
    response = client.post(
        url,
        {
            "action": "custom",
            "group": TestGroup.objects.get(key="governance").pk,
            "title": "Quota per project",
            "acceptance": "A project cannot exceed its quota.",
            "weight": "2",
            "verifies": ["quotas", "rbac"],
        },
    )
    assert response.status_code == 302
    case = PlanCase.objects.get(evaluation=evaluation, title="Quota per project")
    assert {c.slug for c in case.verifies.all()} == {"quotas", "rbac"}
    page = client.get(url).content.decode()
    assert f'data-testid="case-verifies-{case.pk}"' in page


def test_shortlist_shows_what_the_poc_verified(client, evaluation, owner, people, poc):
    score(poc["case"], poc["slurm"], poc["r1"], "4")
    url = reverse("evaluations:evaluation_shortlist", kwargs={"pk": evaluation.pk})
    client.force_login(owner)
    assert f'data-testid="poc-findings-{poc["slurm"].pk}"' in client.get(url).content.decode()
    client.force_login(people[MemberRole.EDITOR])  # blind: nothing shown
    assert "poc-findings-" not in client.get(url).content.decode()


def test_admins_review_findings_across_evaluations(client, evaluation, owner, people, poc):
    score(poc["case"], poc["slurm"], poc["r1"], "2")
    bed_save(user=owner, candidate=poc["slurm"], expected_version=0, **BED)
    url = reverse("poc:verification_review")
    client.force_login(owner)  # a tech lead, even the evaluation's owner: not an admin
    assert client.get(url).status_code == 403
    admin = make_user(roles.ADMIN, username="ada")
    client.force_login(admin)
    page = client.get(url).content.decode()
    assert 'data-testid="verification-review"' in page
    assert "contradicted by the POC" in page
    assert "Volcano 1.9.0" in page  # the version tested
    # Not a member: the finding, not which evaluation it is or its cases.
    assert evaluation.title not in page and poc["case"].shown_title not in page
    assert 'data-testid="not-member"' in page
    add_member(evaluation, admin, "viewer")
    page = client.get(url).content.decode()
    assert evaluation.title in page and 'data-testid="not-member"' not in page
    assert reverse("catalog:claim_edit", args=["slurm", "gang-scheduling"]) in page


def test_the_review_pages_evaluations_and_reads_a_page_in_a_fixed_number_of_queries(
    client, evaluation, owner, people, poc, monkeypatch, django_assert_max_num_queries
):
    from poc.verification import review as verification_review

    score(poc["case"], poc["slurm"], poc["r1"], "2")
    admin = make_user(roles.ADMIN, username="ada")
    client.force_login(admin)
    url = reverse("poc:verification_review")
    with django_assert_max_num_queries(60) as one:
        assert client.get(url).status_code == 200
    # A second evaluation with a finding, changed later: it comes first, one per page.
    other = make_evaluation(owner, title="Second evaluation")
    add_member(other, people[MemberRole.EDITOR], "editor")
    add_member(other, people[MemberRole.REVIEWER], "reviewer")
    slurm, volcano = add_candidates(other, owner, "slurm", "volcano")
    services.plan_init(user=owner, evaluation=other)
    declare_none(other, owner, people[MemberRole.EDITOR], people[MemberRole.REVIEWER])
    case = other.poc_cases.get(source_case__key="gang_under_contention")
    score(case, volcano, people[MemberRole.REVIEWER], "1")
    add_member(other, admin, "viewer")
    monkeypatch.setattr(verification_review, "EVALUATIONS_PER_PAGE", 1)
    with django_assert_max_num_queries(len(one.captured_queries) + 2):
        first = client.get(url).content.decode()
    assert "Second evaluation" in first and 'data-testid="pager"' in first
    assert "Findings of 2 evaluations" in first
    second = client.get(url, {"page": 2}).content.decode()
    assert "Second evaluation" not in second and 'data-testid="not-member"' in second
    assert client.get(url, {"page": "x"}).status_code == 200  # the first page


# --- report ----------------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_report_shows_test_beds_and_findings(evaluation, owner, poc, language):
    bed_save(user=owner, candidate=poc["volcano"], expected_version=0, **BED)
    bed_save(
        user=owner,
        candidate=poc["slurm"],
        expected_version=0,
        **{**BED, "accelerator_vendor": "NVIDIA", "accelerator_model": "A800"},
    )
    score(poc["case"], poc["slurm"], poc["r1"], "4")
    score(poc["case"], poc["volcano"], poc["r1"], "1")
    snap = build_snapshot(evaluation, language=language, generated_at=GENERATED)
    assert snap["version"] == SCHEMA_VERSION == 13
    v = snap["poc"]["verification"]
    assert v["beds_differ"] == {"accelerators": True, "scale": False}
    statuses = {c["candidate"]: [f["status"] for f in c["capabilities"]] for c in v["findings"]}
    assert statuses == {"Slurm": ["verified"], "Volcano": ["contradicted"]}
    html = report_html(snap, snapshot_sha256(snap), language, for_pdf=False)
    assert 'data-testid="report-verification"' in html
    assert 'data-testid="report-beds-differ"' in html and "Ascend 910B" in html
    # The case titles come from the library in the report's language.
    title = (
        "资源争用下的整体调度（Gang）"
        if language == "zh-hans"
        else "Gang scheduling under contention"
    )
    assert title in html
    assert v["findings"][0]["capabilities"][0]["cases"] == [title]
