"""POC pages: members only, inline scoring, blindness, consensus, results, xlsx, budgets."""

from io import BytesIO

import pytest
from django.urls import reverse
from django.utils import formats, timezone
from openpyxl import load_workbook

from common import roles
from evaluations.models import MemberRole
from poc import services
from poc.models import Score
from tests.conftest import make_user
from tests.factories import add_candidates, add_member, declare_none

pytestmark = pytest.mark.django_db


def url(name, evaluation, **kw):
    return reverse(f"poc:{name}", kwargs={"pk": evaluation.pk, **kw})


@pytest.fixture
def plan(evaluation, owner, people):
    candidates = add_candidates(evaluation, owner, "slurm", "volcano", "runai")
    services.plan_init(user=owner, evaluation=evaluation)
    members = evaluation.memberships.exclude(role="viewer").select_related("user")
    declare_none(evaluation, *[m.user for m in members])
    return candidates


def test_pages_are_for_members_only(client, evaluation, plan, people):
    pages = [
        url("scorecard", evaluation),
        url("plan", evaluation),
        url("results", evaluation),
        url("export", evaluation),
    ]
    for role in (MemberRole.OWNER, MemberRole.EDITOR, MemberRole.REVIEWER, MemberRole.VIEWER):
        client.force_login(people[role])
        for page in pages:
            assert client.get(page).status_code == 200, (role, page)
    client.force_login(people["outsider"])
    for page in pages:
        assert client.get(page).status_code == 404
    case = evaluation.poc_cases.first()
    assert (
        client.post(
            url("cell", evaluation, case_id=case.pk, cid=plan[0].pk), {"score": "3"}
        ).status_code
        == 404
    )


@pytest.mark.parametrize("n_candidates", [1, 3])
def test_scorecard_query_budget(
    client, evaluation, owner, people, n_candidates, django_assert_max_num_queries
):
    candidates = add_candidates(evaluation, owner, *["slurm", "volcano", "runai"][:n_candidates])
    services.plan_init(user=owner, evaluation=evaluation)
    reviewers = [people[MemberRole.REVIEWER], people[MemberRole.EDITOR]]
    rows = [
        Score(case=case, candidate=c, reviewer=r, score=3, version=1)
        for case in evaluation.poc_cases.all()
        for c in candidates
        for r in reviewers
    ]
    Score.objects.bulk_create(rows)
    client.force_login(owner)
    # 43: +1 the members' conflict-of-interest declarations, +1 the test beds (their reminder),
    # +1 the Score rows (with evidence) of the one group shown besides the totals' light rows;
    # +4 cold: the status strip's count is computed and stored (evaluations/digests.py).
    with django_assert_max_num_queries(47):
        assert client.get(url("scorecard", evaluation)).status_code == 200
    # Warm: the strip reads its stored count, and nothing else of the evaluation's reminders.
    with django_assert_max_num_queries(30):
        assert client.get(url("scorecard", evaluation)).status_code == 200
    with django_assert_max_num_queries(30):
        assert client.get(url("results", evaluation)).status_code == 200


def test_inline_score_blind_then_visible(client, evaluation, plan, people):
    slurm = plan[0]
    case = evaluation.poc_cases.get(source_case__key="gang_under_contention")
    cell = url("cell", evaluation, case_id=case.pk, cid=slurm.pk)
    r1 = people[MemberRole.REVIEWER]
    r2 = make_user(roles.REVIEWER, username="rev2")
    add_member(evaluation, r2, MemberRole.REVIEWER)
    declare_none(evaluation, r2)
    client.force_login(r1)
    saved = client.post(
        cell,
        {"score": "4.5", "outcome": "passed", "version": 0, "submit": "1"},
        headers={"HX-Request": "true"},
    )
    assert saved.status_code == 200 and "Saved" in saved.content.decode()
    client.force_login(r2)
    page = client.get(url("scorecard", evaluation)).content.decode()
    assert "1 hidden" in page
    bad = client.post(
        cell, {"score": "7", "outcome": "passed", "version": 0}, headers={"HX-Request": "true"}
    )
    assert bad.status_code == 400
    client.post(cell, {"score": "2", "outcome": "failed", "version": 0, "submit": "1"})
    page = client.get(url("scorecard", evaluation)).content.decode()
    assert "1 hidden" not in page and "disagreement" in page
    client.force_login(people[MemberRole.OWNER])
    no_reason = client.post(
        cell,
        {"action": "consensus", "score": "3", "reason": "", "version": 0},
        headers={"HX-Request": "true"},
    )
    assert no_reason.status_code == 400
    ok = client.post(
        cell,
        {"action": "consensus", "score": "3", "reason": "Re-run agreed", "version": 0},
        headers={"HX-Request": "true"},
    )
    assert ok.status_code == 200 and "consensus" in ok.content.decode()


def test_viewer_cannot_score_or_change_the_plan(client, evaluation, plan, people):
    case = evaluation.poc_cases.first()
    client.force_login(people[MemberRole.VIEWER])
    response = client.post(
        url("cell", evaluation, case_id=case.pk, cid=plan[0].pk),
        {"score": "3", "outcome": "passed", "version": 0},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 403
    assert (
        client.post(url("plan", evaluation), {"action": "remove", "id": case.pk}).status_code == 403
    )
    assert evaluation.poc_cases.filter(pk=case.pk).exists()


def test_results_and_xlsx(client, evaluation, owner, plan, people):
    r1 = people[MemberRole.REVIEWER]
    client.force_login(people[MemberRole.VIEWER])
    for i, case in enumerate(evaluation.poc_cases.all()):
        if i == 6:  # six cells each: too thin to name a leader, and the page says so
            body = client.get(url("results", evaluation)).content.decode()
            assert 'data-testid="thin-data"' in body and "Too few scores" in body
            assert 'data-testid="robustness"' not in body and "would be ." not in body
        for j, c in enumerate(plan):
            services.score_save(
                user=r1, case=case, candidate=c, score=str(2 + j), submit=True, expected_version=0
            )
    body = client.get(url("results", evaluation)).content.decode()
    assert 'data-testid="scenario-fit"' in body and "<svg" in body and "Training-heavy" in body
    assert 'data-testid="robustness"' in body and 'data-testid="thin-data"' not in body
    response = client.get(url("export", evaluation))
    assert response["Content-Type"].startswith("application/vnd.openxmlformats")
    wb = load_workbook(BytesIO(response.content))
    # The groups' sheets, then the comparable groups and the support terms (responsibility's).
    assert wb.sheetnames[0] == "Summary" and len(wb.sheetnames) == 7
    assert wb.sheetnames[-2:] == ["Comparable groups", "Support terms"]
    summary = wb["Summary"]
    assert [c.value for c in summary[1]][2:] == ["Slurm", "Volcano", "NVIDIA Run:ai"]
    group_sheet = wb[wb.sheetnames[1]]
    assert group_sheet.cell(group_sheet.max_row, 4).value == 2  # Slurm's stored total


def test_evidence_download_respects_membership_and_blindness(client, evaluation, plan, people):
    from django.core.files.uploadedfile import SimpleUploadedFile

    slurm = plan[0]
    case = evaluation.poc_cases.first()
    r1, editor = people[MemberRole.REVIEWER], people[MemberRole.EDITOR]
    score = services.score_save(
        user=r1, case=case, candidate=slurm, score="4", submit=True, expected_version=0
    )
    ev = services.evidence_add(
        user=r1, score=score, upload=SimpleUploadedFile("log.txt", b"all good\n")
    )
    download = url("evidence_download", evaluation, evidence_id=ev.pk)
    client.force_login(r1)
    response = client.get(download)
    assert response.status_code == 200 and b"".join(response.streaming_content) == b"all good\n"
    assert (
        "attachment" in response["Content-Disposition"]
        and response["X-Content-Type-Options"] == "nosniff"
    )
    client.force_login(editor)  # has not scored this cell yet: blind, and told nothing more
    assert client.get(download).status_code == 404
    client.force_login(people[MemberRole.VIEWER])
    assert client.get(download).status_code == 200
    client.force_login(people["outsider"])
    assert client.get(download).status_code == 404
    upload = url("evidence_upload", evaluation, case_id=case.pk, cid=slurm.pk)
    client.force_login(editor)
    client.post(upload, {"file": SimpleUploadedFile("x.txt", b"x")})
    assert not score.evidence.filter(uploaded_by=editor).exists()  # no score of their own yet


def test_a_weight_saves_on_change_and_answers_its_own_form(client, evaluation, owner, plan):
    case = evaluation.poc_cases.order_by("pk").first()
    client.force_login(owner)
    path = url("plan", evaluation)
    form = {"action": "case_weight", "id": case.pk, "version": case.version}
    saved = client.post(path, {**form, "weight": "4.5"}, HTTP_HX_REQUEST="true")
    body = saved.content.decode()
    assert saved.status_code == 200 and f'id="weight-case_weight-{case.pk}"' in body
    assert "Saved" in body and 'value="4.5' in body
    for bad in ("-1", "NaN", "abc"):
        refused = client.post(path, {**form, "weight": bad}, HTTP_HX_REQUEST="true")
        assert refused.status_code == 400, bad
        assert refused["HX-Retarget"] == f"#weight-case_weight-{case.pk}"
    stale = client.post(path, {**form, "weight": "2"}, HTTP_HX_REQUEST="true")
    assert stale.status_code == 409 and "saved by" in stale.content.decode()
    case.refresh_from_db()
    assert case.weight == 4.5


def test_a_stale_weight_without_htmx_is_refused_on_its_own_row_only(
    client, evaluation, owner, plan
):
    group = evaluation.poc_groups.order_by("pk").first()
    client.force_login(owner)
    path = url("plan", evaluation)
    form = {"action": "group_weight", "id": group.pk, "version": group.version}
    assert client.post(path, {**form, "weight": "3"}).status_code == 302
    stale = client.post(path, {**form, "weight": "3"})
    body = stale.content.decode()
    assert stale.status_code == 409
    assert body.count("Someone else saved this") == 1
    row = body.split(f'id="weight-group_weight-{group.pk}"')[1].split("</form>")[0]
    assert "Someone else saved this" in row and f'value="{group.version + 1}"' in row
    # When it was saved, in the configured time zone like every other time the pages show.
    saved = group.history.latest("history_date").history_date
    local = formats.date_format(timezone.localtime(saved), "DATETIME_FORMAT")
    utc = formats.date_format(saved, "DATETIME_FORMAT")
    assert local != utc and local in row and utc not in row


def test_typed_text_never_becomes_a_formula_in_the_workbook(client, evaluation, owner, plan):
    from poc.models import TestGroup

    group = TestGroup.objects.order_by("order").first()
    evil = '=HYPERLINK("http://attacker.example/","Click")'
    services.plan_case_add_custom(
        user=owner, evaluation=evaluation, group=group, title=evil, acceptance="+1+1"
    )
    client.force_login(owner)
    book = load_workbook(BytesIO(client.get(url("export", evaluation)).content))
    cells = [c for ws in book.worksheets for row in ws.iter_rows() for c in row]
    typed = [c for c in cells if c.value in (evil, "+1+1")]
    assert len(typed) == 2 and all(c.data_type == "s" and c.quotePrefix for c in typed)
    assert not [c for c in cells if c.data_type == "f"]  # totals are stored values
