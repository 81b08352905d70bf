"""The scorecard shows one test group at a time: which one by default, the links between them,
and every way back to the page (evidence, submitting drafts) returning to the same group."""

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from evaluations.models import MemberRole
from poc import services
from poc.models import Score
from poc.selectors import scorecard
from tests.factories import add_candidates, declare_none

pytestmark = pytest.mark.django_db


@pytest.fixture
def plan(evaluation, owner, people):
    candidates = add_candidates(evaluation, owner, "slurm", "volcano")
    services.plan_init(user=owner, evaluation=evaluation)
    declare_none(evaluation, owner, people[MemberRole.EDITOR], people[MemberRole.REVIEWER])
    return candidates


def page(evaluation, group=None):
    url = reverse("poc:scorecard", kwargs={"pk": evaluation.pk})
    return f"{url}?group={group}" if group is not None else url


def shown_group(body: str) -> str:
    return re.findall(r'data-testid="group-(\w+)" aria-current="page"', body)[0]


def link(body: str, key: str) -> str:
    """The group's link in the group navigation."""
    return body.split(f'data-testid="group-{key}"')[1].split("</a>")[0]


def cases_of(evaluation, key):
    return list(evaluation.poc_cases.filter(group__key=key).order_by("order", "pk"))


def submit_group(user, evaluation, candidates, key, value="3"):
    for case in cases_of(evaluation, key):
        for candidate in candidates:
            services.score_save(
                user=user, case=case, candidate=candidate, score=value, expected_version=None
            )
    services.scores_submit(user=user, evaluation=evaluation)


def test_the_page_opens_on_the_first_group_with_work_left(client, evaluation, plan, people):
    reviewer = people[MemberRole.REVIEWER]
    client.force_login(reviewer)
    body = client.get(page(evaluation)).content.decode()
    assert shown_group(body) == "batch_training"
    first = cases_of(evaluation, "batch_training")
    assert f'id="cell-{first[0].pk}-{plan[0].pk}"' in body
    assert f'id="cell-{cases_of(evaluation, "governance")[0].pk}-{plan[0].pk}"' not in body
    n = len(first) * len(plan)
    assert f"{n} to score" in link(body, "batch_training")

    submit_group(reviewer, evaluation, plan, "batch_training")
    body = client.get(page(evaluation)).content.decode()
    assert shown_group(body) == "inference_serving"  # the first group done, the next opens
    assert "to score" in link(body, "inference_serving")
    assert "to score" not in link(body, "batch_training")
    # Asked for by name, a finished group still shows; an unknown name is the default.
    assert shown_group(client.get(page(evaluation, "batch_training")).content.decode()) == (
        "batch_training"
    )
    assert shown_group(client.get(page(evaluation, "nope")).content.decode()) == (
        "inference_serving"
    )


def test_the_owner_is_taken_to_the_disagreements_and_a_viewer_to_the_first_group(
    client, evaluation, plan, people, owner
):
    editor, reviewer = people[MemberRole.EDITOR], people[MemberRole.REVIEWER]
    case = cases_of(evaluation, "governance")[0]
    for user, value in ((editor, "0.5"), (reviewer, "5")):
        services.score_save(
            user=user, case=case, candidate=plan[0], score=value, expected_version=None
        )
        services.scores_submit(user=user, evaluation=evaluation)
    card = scorecard(evaluation, owner, group="")
    counts = {b.key: (b.to_settle, b.open_disagreements) for b in card.groups}
    assert counts["governance"] == (1, 1) and counts["batch_training"] == (0, 0)
    # The owner may score too: the first group with work is still the first one...
    assert card.shown.key == "batch_training"
    # ...until the owner has scored everything: then the disagreement to settle leads.
    for key in ("batch_training", "inference_serving", "governance", "abnormal_long_running"):
        submit_group(owner, evaluation, plan, key)
    client.force_login(owner)
    body = client.get(page(evaluation)).content.decode()
    assert shown_group(body) == "governance" and "1 to settle" in body
    client.force_login(people[MemberRole.VIEWER])
    body = client.get(page(evaluation)).content.decode()
    assert shown_group(body) == "batch_training" and "to score" not in body
    assert 'data-testid="open-disagreements">1 unresolved disagreement' in body


def test_counts_and_totals_cover_every_group_whichever_is_shown(client, evaluation, plan, people):
    reviewer = people[MemberRole.REVIEWER]
    submit_group(reviewer, evaluation, plan, "governance", value="4")
    client.force_login(people[MemberRole.VIEWER])
    everything = scorecard(evaluation, people[MemberRole.VIEWER])
    for key in ("batch_training", "governance"):
        body = client.get(page(evaluation, key)).content.decode()
        missing = len(everything.missing_cells)
        assert f"{missing} cells without a score" in body
        # The weighted total counts the governance scores on every group's page.
        total = body.split('data-testid="total-slurm"><strong>')[1].split("</strong>")[0]
        assert total == "4.00"


def test_evidence_and_submitting_drafts_come_back_to_the_same_group(
    client, evaluation, plan, people
):
    reviewer = people[MemberRole.REVIEWER]
    case = cases_of(evaluation, "governance")[0]
    services.score_save(user=reviewer, case=case, candidate=plan[0], score="3", expected_version=0)
    client.force_login(reviewer)
    upload = reverse("poc:evidence_upload", args=[evaluation.pk, case.pk, plan[0].pk])
    done = client.post(upload, {"file": SimpleUploadedFile("run.txt", b"ok\n")})
    assert done.status_code == 302
    assert done.url == f"{page(evaluation, 'governance')}#cell-{case.pk}-{plan[0].pk}"
    body = client.get(page(evaluation, "governance")).content.decode()
    cell = body.split(f'id="cell-{case.pk}-{plan[0].pk}"')[1].split("</td>")[0]
    assert "run.txt" in cell and f'data-upload="{upload}"' in cell
    assert 'id="evidence-upload"' in body  # the one form every cell's file input goes through

    # Submitting is final: the button leads to a confirmation first (no JavaScript needed).
    asked = client.post(page(evaluation, "governance"), {"candidate": plan[0].pk})
    body = asked.content.decode()
    assert asked.status_code == 200 and 'data-testid="confirm-submit"' in body
    assert "final" in body and "1 draft score" in body and plan[0].name in body
    assert not Score.objects.get(case=case, reviewer=reviewer, candidate=plan[0]).submitted
    assert f'href="{page(evaluation, "governance")}"' in body  # back, nothing sent
    confirm = body.split('data-testid="confirm-submit"')[0].rsplit("<form", 1)[1]
    assert f'action="{page(evaluation, "governance")}"' in confirm
    assert 'name="confirmed" value="1"' in confirm and f'value="{plan[0].pk}"' in confirm

    submitted = client.post(
        page(evaluation, "governance"), {"candidate": plan[0].pk, "confirmed": "1"}
    )
    assert submitted.status_code == 302 and submitted.url == page(evaluation, "governance")
    assert Score.objects.get(case=case, reviewer=reviewer, candidate=plan[0]).submitted
    # Nothing left to submit: the page says so and offers no button.
    again = client.post(page(evaluation, "governance"), {"candidate": plan[0].pk}).content
    assert b'data-testid="confirm-submit"' not in again and b"no draft score" in again


def test_others_evidence_stays_hidden_until_i_submit(client, evaluation, plan, people):
    editor, reviewer = people[MemberRole.EDITOR], people[MemberRole.REVIEWER]
    case = cases_of(evaluation, "batch_training")[0]
    score = services.score_save(
        user=reviewer, case=case, candidate=plan[0], score="4", expected_version=0
    )
    services.evidence_add(
        user=reviewer, score=score, upload=SimpleUploadedFile("secret-run.txt", b"x\n")
    )
    services.scores_submit(user=reviewer, evaluation=evaluation)
    client.force_login(editor)
    assert "secret-run.txt" not in client.get(page(evaluation)).content.decode()
    services.score_save(user=editor, case=case, candidate=plan[0], score="2", expected_version=0)
    services.scores_submit(user=editor, evaluation=evaluation)
    body = client.get(page(evaluation, "batch_training")).content.decode()
    cell = body.split(f'id="cell-{case.pk}-{plan[0].pk}"')[1].split("</td>")[0]
    assert "secret-run.txt" in cell


def test_the_score_input_is_named_by_its_row_and_column(client, evaluation, plan, people):
    client.force_login(people[MemberRole.REVIEWER])
    body = client.get(page(evaluation)).content.decode()
    case = cases_of(evaluation, "batch_training")[0]
    ids = f"sc-my-score sc-case-{case.pk} sc-cand-{plan[0].pk}"
    assert f'aria-labelledby="{ids}"' in body
    for id_ in ids.split():
        assert body.count(f'id="{id_}"') == 1


def test_a_draft_keeps_its_outcome_in_either_language(client, evaluation, plan, people):
    reviewer = people[MemberRole.REVIEWER]
    case = cases_of(evaluation, "batch_training")[0]
    services.score_save(
        user=reviewer,
        case=case,
        candidate=plan[0],
        score="2",
        outcome="failed",
        expected_version=0,
    )
    client.force_login(reviewer)
    for language, failed, not_run in (("en", "Failed", "Not run"), ("zh-hans", "未通过", "未执行")):
        body = client.get(page(evaluation), HTTP_ACCEPT_LANGUAGE=language).content.decode()
        mine = body.split(f'id="cell-{case.pk}-{plan[0].pk}"')[1].split("</td>")[0]
        assert f'<option value="failed" selected>{failed}</option>' in mine
        other = body.split(f'id="cell-{case.pk}-{plan[1].pk}"')[1].split("</td>")[0]
        assert f'<option value="not_run">{not_run}</option>' in other
        assert " selected" not in other


def shown(cell) -> tuple:
    """What a cell shows its viewer."""
    return (
        cell.value,
        cell.hidden_count,
        [s.pk for s in cell.visible],
        cell.mine and cell.mine.pk,
        cell.consensus,
        cell.disagreement,
        cell.my_evidence,
        cell.their_evidence,
        getattr(cell.candidate, "scoring_block", ""),
    )


def test_a_cell_read_alone_is_the_cell_of_its_group_for_every_viewer(evaluation, plan, people):
    """What a save answers (scorecard_cell) is what the group shows: the same blind rule, the
    same consensus, evidence and conflict marks, for a reviewer who has not scored yet too."""
    from poc.selectors import scorecard_cell

    editor, reviewer = people[MemberRole.EDITOR], people[MemberRole.REVIEWER]
    submit_group(editor, evaluation, plan, "batch_training", value="4")
    case = cases_of(evaluation, "batch_training")[0]
    services.score_save(
        user=reviewer, case=case, candidate=plan[1], score="1", expected_version=None
    )
    for viewer in (people[MemberRole.OWNER], editor, reviewer, people[MemberRole.VIEWER]):
        card = scorecard(evaluation, viewer, group="batch_training")
        for cell in card.cells():
            alone = scorecard_cell(evaluation, viewer, cell.case, cell.candidate)
            assert shown(alone) == shown(cell), (viewer, cell.case, cell.candidate)
