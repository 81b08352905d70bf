"""Declared conflicts of interest: the rule (who may score what) as a table, the services
(members only, versioned, owner-only allowance, never one's own), the score writes that obey
it on every route (service, page cell, API, submit, evidence), the declarations page and API,
the History tab and the report's appendix in both languages."""

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.test import APIClient

from catalog.models import Solution
from common import roles
from common.exceptions import Conflict, Forbidden, StaleEdit
from evaluations.models import MemberRole
from poc import conflicts, services
from poc.conflicts import CONFLICT, UNDECLARED, scoring_block
from poc.models import ConflictDeclaration, Score
from reports.snapshot import SCHEMA_VERSION, build_snapshot
from tests.conftest import make_user
from tests.factories import add_candidates, add_member, compose_stack, declare_none

pytestmark = pytest.mark.django_db

FORMER = "Former employee of the vendor until 2024."


# --- the rule --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("declared", "has_conflict", "allowed", "block"),
    [
        (False, False, False, UNDECLARED),  # nothing declared yet: declare first
        (True, False, False, None),  # no relationship: score
        (True, True, False, CONFLICT),  # a conflict: blocked
        (True, True, True, None),  # a conflict the owner allowed: score
        (True, False, True, None),  # (an allowance without a conflict changes nothing)
    ],
)
def test_who_may_score_what(declared, has_conflict, allowed, block):
    assert scoring_block(declared=declared, has_conflict=has_conflict, allowed=allowed) == block


# --- fixtures --------------------------------------------------------------------------------


@pytest.fixture
def coi(evaluation, owner, people):
    slurm, volcano = add_candidates(evaluation, owner, "slurm", "volcano")
    services.plan_init(user=owner, evaluation=evaluation)
    return {
        "slurm": slurm,
        "volcano": volcano,
        "case": evaluation.poc_cases.get(source_case__key="gang_under_contention"),
        "reviewer": people[MemberRole.REVIEWER],
        "editor": people[MemberRole.EDITOR],
        "viewer": people[MemberRole.VIEWER],
        "owner": owner,
    }


def declare(user, candidate, conflict="", version=None):
    return conflicts.declaration_save(
        user=user,
        candidate=candidate,
        has_conflict=bool(conflict),
        description=conflict,
        expected_version=version,
    )


def score(user, c, candidate):
    return services.score_save(
        user=user, case=c["case"], candidate=candidate, score="4", expected_version=None
    )


# --- services --------------------------------------------------------------------------------


def test_a_first_score_needs_a_declaration_for_that_candidate(coi):
    with pytest.raises(Conflict, match="Declare any relationship with the vendor of Slurm"):
        score(coi["reviewer"], coi, coi["slurm"])
    declare(coi["reviewer"], coi["slurm"])
    score(coi["reviewer"], coi, coi["slurm"])
    with pytest.raises(Conflict, match="Volcano"):  # declared per candidate
        score(coi["reviewer"], coi, coi["volcano"])


def test_a_declared_conflict_blocks_until_the_owner_allows_it_and_again_when_revoked(coi):
    r, slurm, owner = coi["reviewer"], coi["slurm"], coi["owner"]
    row = declare(r, slurm, FORMER)
    assert row.vendors == "SchedMD (Slurm)" and row.blocks_scoring
    with pytest.raises(Conflict, match="declared a conflict of interest with Slurm"):
        score(r, coi, slurm)
    row = conflicts.allowance_grant(
        user=owner,
        declaration=row,
        reason="Only public facts; two others score.",
        expected_version=1,
    )
    assert row.allowed and row.decided_by == owner and row.version == 2
    score(r, coi, slurm)
    row = conflicts.allowance_revoke(user=owner, declaration=row, expected_version=2)
    assert not row.allowed and row.allowance_reason == ""
    with pytest.raises(Conflict):
        score(r, coi, slurm)


def test_every_score_write_obeys_the_rule(coi):
    """Drafts saved before a conflict was declared cannot be submitted nor get evidence."""
    r, slurm = coi["reviewer"], coi["slurm"]
    declare(r, slurm)
    draft = score(r, coi, slurm)
    declare(r, slurm, FORMER, version=1)
    with pytest.raises(Conflict):
        services.scores_submit(user=r, evaluation=coi["case"].evaluation)
    with pytest.raises(Conflict):
        services.scores_submit(user=r, evaluation=coi["case"].evaluation, candidate=slurm)
    upload = SimpleUploadedFile("run.txt", b"ok", "text/plain")
    with pytest.raises(Conflict):
        services.evidence_add(user=r, score=draft, upload=upload)
    assert not Score.objects.get(pk=draft.pk).submitted


def test_changing_a_declaration_withdraws_the_allowance(coi):
    r, slurm, owner = coi["reviewer"], coi["slurm"], coi["owner"]
    row = declare(r, slurm, FORMER)
    row = conflicts.allowance_grant(user=owner, declaration=row, reason="Fine.", expected_version=1)
    row = declare(r, slurm, "Also holds shares.", version=row.version)
    assert row.has_conflict and not row.allowed and row.decided_by is None
    row = declare(r, slurm, version=row.version)  # no relationship after all
    assert not row.has_conflict and row.description == "" and not row.blocks_scoring


def test_declaration_rules(coi):
    r, slurm, owner = coi["reviewer"], coi["slurm"], coi["owner"]
    with pytest.raises(ValidationError) as refused:
        conflicts.declaration_save(
            user=r, candidate=slurm, has_conflict=True, description=" ", expected_version=None
        )
    assert "description" in refused.value.message_dict
    with pytest.raises(Forbidden):  # viewers do not score, so do not declare
        declare(coi["viewer"], slurm)
    row = declare(r, slurm, FORMER)
    with pytest.raises(StaleEdit):
        declare(r, slurm, version=0)
    with pytest.raises(Forbidden):  # only the owner allows
        conflicts.allowance_grant(
            user=coi["editor"], declaration=row, reason="x", expected_version=1
        )
    with pytest.raises(ValidationError) as refused:
        conflicts.allowance_grant(user=owner, declaration=row, reason=" ", expected_version=1)
    assert "reason" in refused.value.message_dict
    own = declare(owner, slurm, "I advise the vendor.")
    with pytest.raises(Forbidden, match="own"):
        conflicts.allowance_grant(user=owner, declaration=own, reason="x", expected_version=1)
    clean = declare(coi["editor"], slurm)
    with pytest.raises(Conflict, match="nothing to allow"):
        conflicts.allowance_grant(user=owner, declaration=clean, reason="x", expected_version=1)
    with pytest.raises(Conflict, match="nothing to revoke"):
        conflicts.allowance_revoke(user=owner, declaration=row, expected_version=1)
    outsider = make_user(roles.REVIEWER, username="stranger")
    with pytest.raises(Forbidden):
        declare(outsider, slurm)


def test_a_stack_is_declared_once_naming_every_vendor(coi, evaluation, owner):
    stack = compose_stack(
        evaluation,
        owner,
        "Queue + platform",
        "governance",
        batch_queue="volcano",
        governance="runai",
    )
    stack.refresh_from_db()
    row = declare(coi["reviewer"], stack)
    runai = Solution.objects.get(slug="runai")
    assert "(Volcano)" in row.vendors and f"{runai.maintainer} (NVIDIA Run:ai)" in row.vendors


def test_declarations_and_decisions_are_in_history(client, coi, evaluation, owner):
    row = declare(coi["reviewer"], coi["slurm"], FORMER)
    conflicts.allowance_grant(user=owner, declaration=row, reason="REASON-ok", expected_version=1)
    assert row.history.count() == 2
    client.force_login(owner)
    body = client.get(reverse("evaluations:evaluation_history", args=[evaluation.pk])).content
    body = body.decode()
    assert "Conflict-of-interest declaration" in body and "REASON-ok" in body


# --- pages -----------------------------------------------------------------------------------


def page(evaluation):
    return reverse("poc:conflicts", kwargs={"pk": evaluation.pk})


def cell(evaluation, c, candidate):
    return reverse(
        "poc:cell", kwargs={"pk": evaluation.pk, "case_id": c["case"].pk, "cid": candidate.pk}
    )


def declared(*rows, **extra) -> dict:
    """The declarations form as a page sends it: (candidate, "yes"/"no", description[, version])
    per row."""
    data = {"action": "declare", **extra}
    for candidate, choice, description, *version in rows:
        data[f"c{candidate.pk}-has_conflict"] = choice
        data[f"c{candidate.pk}-description"] = description
        data[f"c{candidate.pk}-version"] = version[0] if version else 0
    return data


def test_one_submit_declares_for_every_candidate_or_for_none(client, coi, evaluation):
    r, slurm, volcano = coi["reviewer"], coi["slurm"], coi["volcano"]
    client.force_login(r)
    mine = ConflictDeclaration.objects.filter(member=r)

    nothing = client.post(page(evaluation), {"action": "declare"})
    assert nothing.status_code == 400 and "at least one candidate" in nothing.content.decode()
    # One row refused (a relationship without its description): nothing is saved, and the
    # page shows the message beside that candidate with what was typed kept.
    half = client.post(page(evaluation), declared((slurm, "no", ""), (volcano, "yes", "")))
    body = half.content.decode()
    assert half.status_code == 400 and not mine.exists()
    row = body[body.index('data-testid="declare-volcano"') :]
    assert "Describe the relationship" in row[: row.index("</fieldset>")]
    assert f'name="c{slurm.pk}-has_conflict" value="no" checked' in body
    # A chosen row sent without its version is refused whole (428), as every versioned write.
    unversioned = declared((slurm, "no", ""))
    del unversioned[f"c{slurm.pk}-version"]
    assert client.post(page(evaluation), unversioned).status_code == 428 and not mine.exists()

    both = client.post(page(evaluation), declared((slurm, "no", ""), (volcano, "yes", FORMER)))
    assert both.status_code == 302
    assert dict(mine.values_list("candidate__solution__slug", "has_conflict")) == {
        "slurm": False,
        "volcano": True,
    }
    # A row left out keeps its declaration; a stale row refuses the whole set.
    stale = client.post(page(evaluation), declared((slurm, "yes", "Shares", 0)))
    assert stale.status_code == 409
    assert mine.get(candidate=slurm).has_conflict is False
    again = client.post(page(evaluation), declared((slurm, "yes", "Shares", 1)))
    assert again.status_code == 302
    assert mine.get(candidate=slurm).description == "Shares"
    assert mine.get(candidate=volcano).description == FORMER


def test_scorecard_asks_for_declarations_first_and_blocks_a_conflict_until_allowed(
    client, coi, evaluation, owner
):
    r, slurm = coi["reviewer"], coi["slurm"]
    scorecard = reverse("poc:scorecard", kwargs={"pk": evaluation.pk})
    client.force_login(r)
    body = client.get(scorecard).content.decode()
    assert 'data-testid="declare-first"' in body and 'data-testid="declare-slurm"' in body
    refused = client.post(
        cell(evaluation, coi, slurm), {"score": "4", "outcome": "passed", "version": 0}
    )
    assert refused.status_code == 409 and "Declare any relationship" in refused.content.decode()
    missing = client.post(page(evaluation), declared((slurm, "yes", "")))
    assert missing.status_code == 400 and "Describe the relationship" in missing.content.decode()
    done = client.post(page(evaluation), declared((slurm, "yes", FORMER), next="scorecard"))
    assert done.status_code == 302 and done.url == scorecard
    client.post(page(evaluation), declared((coi["volcano"], "no", "")))
    body = client.get(scorecard).content.decode()
    assert 'data-testid="declare-first"' not in body
    assert "declared a conflict of interest with Slurm" in body
    blocked = client.post(
        cell(evaluation, coi, slurm), {"score": "4", "outcome": "passed", "version": 0}
    )
    assert blocked.status_code == 409 and not Score.objects.filter(reviewer=r).exists()
    fine = client.post(
        cell(evaluation, coi, coi["volcano"]), {"score": "3", "outcome": "passed", "version": 0}
    )
    assert fine.status_code == 200

    row = ConflictDeclaration.objects.get(member=r, candidate=slurm)
    client.force_login(owner)
    listing = client.get(page(evaluation)).content.decode()
    assert FORMER in listing and f'data-testid="allow-{row.pk}"' in listing
    assert (
        client.post(
            page(evaluation), {"action": "allow", "id": row.pk, "version": 1, "reason": ""}
        ).status_code
        == 400
    )
    allowed = client.post(
        page(evaluation),
        {"action": "allow", "id": row.pk, "version": 1, "reason": "Public facts only."},
    )
    assert allowed.status_code == 302

    client.force_login(r)
    saved = client.post(
        cell(evaluation, coi, slurm), {"score": "4", "outcome": "passed", "version": 0}
    )
    assert saved.status_code == 200
    client.force_login(owner)
    assert (
        client.post(page(evaluation), {"action": "revoke", "id": row.pk, "version": 2}).status_code
        == 302
    )
    client.force_login(r)
    again = client.post(
        cell(evaluation, coi, slurm), {"score": "5", "outcome": "passed", "version": 1}
    )
    assert again.status_code == 409


def test_the_page_is_for_members_and_shows_others_declarations_to_the_owner_only(
    client, coi, evaluation, people
):
    declare(coi["reviewer"], coi["slurm"], FORMER)
    declare(coi["editor"], coi["slurm"], "SECRET-editor-shares")
    for role in (MemberRole.OWNER, MemberRole.VIEWER):
        client.force_login(people[role])
        body = client.get(page(evaluation)).content.decode()
        assert FORMER in body and "SECRET-editor-shares" in body
    client.force_login(coi["reviewer"])
    body = client.get(page(evaluation)).content.decode()
    assert FORMER in body and "SECRET-editor-shares" not in body
    client.force_login(people["outsider"])
    assert client.get(page(evaluation)).status_code == 404
    post = declared((coi["slurm"], "no", ""))
    assert client.post(page(evaluation), post).status_code == 404
    client.force_login(coi["viewer"])
    assert client.post(page(evaluation), post).status_code == 403


# --- API -------------------------------------------------------------------------------------


def api(user):
    client = APIClient()
    client.default_format = "json"
    client.force_authenticate(user)
    return client


def coi_url(evaluation, rest=""):
    return f"/api/evaluations/{evaluation.pk}/poc/conflicts/{rest}"


def test_api_declare_score_allow_revoke(coi, evaluation, owner, people):
    r, slurm = coi["reviewer"], coi["slurm"]
    score_url = f"/api/evaluations/{evaluation.pk}/poc/cells/{coi['case'].pk}/{slurm.pk}/score/"
    mine = api(r).get(coi_url(evaluation, f"candidates/{slurm.pk}/"))
    assert mine.status_code == 200 and mine["ETag"] == '"0"' and mine.json()["declaration"] is None
    assert "Declare" in mine.json()["scoring_block"]
    refused = api(r).put(score_url, {"score": "4"})
    assert refused.status_code == 409 and "Declare any relationship" in refused.json()["detail"]
    bad = api(r).put(coi_url(evaluation, f"candidates/{slurm.pk}/"), {"has_conflict": True})
    assert bad.status_code == 400 and "description" in bad.json()
    made = api(r).put(
        coi_url(evaluation, f"candidates/{slurm.pk}/"),
        {"has_conflict": True, "description": FORMER},
    )
    assert made.status_code == 201 and made.json()["blocks_scoring"]
    pk = made.json()["id"]
    again = api(r).put(coi_url(evaluation, f"candidates/{slurm.pk}/"), {"has_conflict": False})
    assert again.status_code == 428
    stale = api(r).put(
        coi_url(evaluation, f"candidates/{slurm.pk}/"),
        {"has_conflict": True, "description": FORMER},
        HTTP_IF_MATCH='"7"',
    )
    assert stale.status_code == 412
    assert api(r).put(score_url, {"score": "4"}).status_code == 409

    listing = api(owner).get(coi_url(evaluation)).json()
    assert [d["id"] for d in listing["declarations"]] == [pk] and listing["sees_all"]
    assert api(r).get(coi_url(evaluation)).json()["pending"][0]["id"] == coi["volcano"].pk
    assert api(coi["editor"]).get(coi_url(evaluation)).json()["declarations"] == []

    allow = coi_url(evaluation, f"{pk}/allow/")
    assert api(r).post(allow, {"reason": "me", "version": 1}).status_code == 403
    assert api(coi["editor"]).post(allow, {"reason": "x", "version": 1}).status_code == 404
    assert api(owner).post(allow, {"reason": "x"}).status_code == 428
    assert api(owner).post(allow, {"reason": "", "version": 1}).status_code == 400
    ok = api(owner).post(allow, {"reason": "Public facts only.", "version": 1})
    assert (
        ok.status_code == 200 and ok.json()["allowed"] and ok.json()["decided_by"] == owner.username
    )
    assert api(r).put(score_url, {"score": "4"}).status_code == 201
    revoke = api(owner).post(coi_url(evaluation, f"{pk}/revoke/"), {}, HTTP_IF_MATCH='"2"')
    assert revoke.status_code == 200 and not revoke.json()["allowed"]
    assert api(r).put(score_url, {"score": "5", "version": 1}).status_code == 409
    assert api(people["outsider"]).get(coi_url(evaluation)).status_code == 404


# --- report ----------------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_report_appendix_lists_declarations_and_decisions(coi, evaluation, owner, language):
    from reports.render import report_html

    row = declare(coi["reviewer"], coi["slurm"], FORMER)
    conflicts.allowance_grant(user=owner, declaration=row, reason="REASON-ok", expected_version=1)
    declare(coi["editor"], coi["volcano"])
    snap = build_snapshot(evaluation, language=language, generated_at="2027-01-01T00:00:00")
    assert snap["version"] == SCHEMA_VERSION == 13
    rows = snap["appendix"]["conflicts"]
    assert [(r["candidate"], r["has_conflict"], r["allowed"]) for r in rows] == [
        ("Slurm", True, True),
        ("Volcano", False, False),
    ]
    html = report_html(snap, "0" * 64, language, for_pdf=False)
    # The appendix's own words come from the catalogue (the Chinese ones once compiled).
    heading = {"en": "Declared conflicts of interest", "zh-hans": "附录"}[language]
    assert heading in html and 'data-testid="report-conflicts"' in html
    assert FORMER in html and "REASON-ok" in html and "SchedMD (Slurm)" in html


def test_add_member_then_declare_helper(coi, evaluation):
    extra = make_user(roles.REVIEWER, username="late")
    add_member(evaluation, extra, MemberRole.REVIEWER)
    assert len(declare_none(evaluation, extra)) == 2


def test_vendors_are_named_in_the_readers_language_whatever_the_declarer_read(
    client, coi, evaluation, owner
):
    from django.utils import translation

    from reports.snapshot import build_snapshot

    with translation.override("en"):
        declare(coi["reviewer"], coi["volcano"], FORMER)
    stored = ConflictDeclaration.objects.get(candidate=coi["volcano"])
    assert "volcano-sh community" in stored.vendors  # the record, as the member's page said it

    snapshot = build_snapshot(evaluation, language="zh-hans", generated_at="2027-03-01T09:30:00")
    [row] = [r for r in snapshot["appendix"]["conflicts"] if r["description"] == FORMER]
    assert "volcano-sh 社区" in row["vendors"] and "community" not in row["vendors"]
    client.force_login(owner)
    client.cookies["django_language"] = "zh-hans"
    body = client.get(page(evaluation)).content.decode()
    table = body[body.index('data-testid="declarations"') :]
    assert "volcano-sh 社区" in table and "volcano-sh community" not in table
