"""Findings of the walk in Chinese, each checked in zh-Hans at 1440 and 390 px: a file field
speaks the page's language (not the browser's), a member is found by typing part of a name, a
member declares conflicts of interest for every candidate in one submit, saving the decision
again keeps its date, and a saved answer says so."""

import pytest
from playwright.sync_api import expect

from common import roles
from evaluations.models import MemberRole
from poc.conflicts.models import ConflictDeclaration
from tests.browser.checks import page_problems
from tests.conftest import make_user
from tests.factories import add_candidates, add_member, make_evaluation

pytestmark = pytest.mark.browser

WIDTHS = [1440, 390]


@pytest.mark.parametrize("width", WIDTHS)
def test_a_file_field_speaks_the_pages_language(seeded, live_server, session, width, tmp_path):
    lead = make_user(roles.TECH_LEAD, username="tao")
    page = session(lead, width=width, language="zh-hans")
    page.goto(f"{live_server.url}/evaluations/import/")
    pick = page.locator(".file-pick")
    assert pick.locator(".file-button").inner_text().strip() == "选择文件"
    assert pick.locator(".file-name").inner_text().strip() == "未选择文件"
    # The browser's own control (whose words are the browser's) takes no room on the page.
    native = pick.locator("input[type=file]").bounding_box()
    assert native["width"] <= 1 and native["height"] <= 1, native
    problems = page_problems(page, f"zh-file-field-{width}")
    archive = tmp_path / "评估归档.zip"
    archive.write_bytes(b"PK\x05\x06" + b"\0" * 18)
    pick.locator("input[type=file]").set_input_files(str(archive))
    assert pick.locator(".file-name").inner_text().strip() == "评估归档.zip"
    # The button is the field's label: a click opens the browser's file chooser.
    with page.expect_file_chooser() as chooser:
        pick.locator(".file-button").click()
    assert chooser.value.element.get_attribute("type") == "file"
    assert problems == []


@pytest.mark.parametrize("width", WIDTHS)
def test_the_owner_finds_a_member_by_part_of_a_name(seeded, live_server, session, width):
    owner = make_user(roles.TECH_LEAD, username="tao")
    evaluation = make_evaluation(owner)
    make_user(roles.REVIEWER, username="wangli", first_name="丽", last_name="王")
    make_user(roles.REVIEWER, username="wangwei", first_name="伟", last_name="王")
    page = session(owner, width=width, language="zh-hans")
    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/members/")
    field = page.get_by_label("人员（姓名、用户名或电子邮件）")
    field.press_sequentially("王丽", delay=30)
    options = page.get_by_test_id("member-options").locator("option")
    # The list follows the last thing typed ("王" would offer both): wait for its answer.
    expect(options).to_have_count(1)
    assert options.first.get_attribute("value") == "wangli"
    assert options.first.inner_text().startswith("王丽")  # family name first, no space
    field.fill(options.first.get_attribute("value"))
    page.locator("#id_role").select_option(MemberRole.REVIEWER)
    page.get_by_test_id("add-member").get_by_role("button").click()
    page.get_by_test_id("members").get_by_text("王丽").wait_for()
    assert evaluation.memberships.filter(user__username="wangli").exists()
    # Part of a name is not a person: the refusal says what to type instead.
    field = page.get_by_label("人员（姓名、用户名或电子邮件）")
    field.fill("wang")
    page.get_by_test_id("add-member").get_by_role("button").click()
    page.get_by_text("没有名为").wait_for()
    assert page_problems(page, f"zh-member-search-{width}") == []


@pytest.mark.parametrize("width", WIDTHS)
def test_declarations_for_every_candidate_go_in_one_submit(seeded, live_server, session, width):
    owner = make_user(roles.TECH_LEAD, username="tao")
    evaluation = make_evaluation(owner)
    add_candidates(evaluation, owner, "slurm", "volcano", "runai")
    reviewer = make_user(roles.REVIEWER, username="ana")
    add_member(evaluation, reviewer, MemberRole.REVIEWER)
    page = session(reviewer, width=width, language="zh-hans")
    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/poc/conflicts/")
    for slug in ("slurm", "volcano"):
        page.get_by_test_id(f"declare-{slug}").get_by_test_id("none").check()
    runai = page.get_by_test_id("declare-runai")
    runai.get_by_test_id("conflict").check()  # and no description: the set is refused whole
    page.get_by_test_id("save-declarations").click()
    runai.get_by_role("alert").wait_for()
    assert "请说明是什么关系" in runai.get_by_role("alert").inner_text()
    assert not ConflictDeclaration.objects.filter(member=reviewer).exists()
    assert page.get_by_test_id("declare-slurm").get_by_test_id("none").is_checked()
    problems = page_problems(page, f"zh-declare-refused-{width}")
    runai.locator("input[type=text]").fill("曾在该厂商任职")
    page.get_by_test_id("save-declarations").click()
    page.get_by_text("声明已保存。").wait_for()
    saved = ConflictDeclaration.objects.filter(member=reviewer)
    assert dict(saved.values_list("candidate__solution__slug", "has_conflict")) == {
        "slurm": False,
        "volcano": False,
        "runai": True,
    }
    assert problems + page_problems(page, f"zh-declared-{width}") == []


@pytest.mark.parametrize("width", WIDTHS)
def test_saving_the_decision_again_in_chinese_keeps_its_date(seeded, live_server, session, width):
    """The date field is ISO whatever the language: a browser's date picker shows a localised
    value (2026/12/04) as empty, and saving the form again would clear the date."""
    import datetime

    from evaluations import services as evaluation_services

    owner = make_user(roles.TECH_LEAD, username="tao")
    evaluation = make_evaluation(owner)
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    evaluation_services.decision_save(
        user=owner,
        evaluation=evaluation,
        chosen=[slurm],
        rationale="初稿",
        decided_on=datetime.date(2026, 12, 4),
        decided_by="架构评审委员会",
        expected_version=None,
    )
    page = session(owner, width=width, language="zh-hans")
    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/decision/")
    assert page.locator("#id_decided_on").input_value() == "2026-12-04"
    page.locator("#id_rationale").fill("只改理由，日期不动")
    page.get_by_test_id("decision-form").get_by_role("button").click()
    page.get_by_test_id("decision-form").wait_for()
    evaluation.decision.refresh_from_db()
    assert evaluation.decision.decided_on == datetime.date(2026, 12, 4)
    assert evaluation.decision.rationale == "只改理由，日期不动"
    assert page.locator("#id_decided_on").input_value() == "2026-12-04"
    assert page_problems(page, f"zh-decision-date-{width}") == []


@pytest.mark.parametrize("width", WIDTHS)
def test_a_saved_context_answer_says_answered_in_chinese(seeded, live_server, session, width):
    owner = make_user(roles.TECH_LEAD, username="tao")
    evaluation = make_evaluation(owner)
    page = session(owner, width=width, language="zh-hans")
    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/context/")
    row = page.locator("[data-testid^=ctx-]").first
    assert row.get_by_test_id("not-answered").inner_text().strip() == "未回答"
    row.locator("input[type=radio]").first.check()
    row.get_by_test_id("answered").wait_for()
    assert row.get_by_test_id("answered").inner_text().strip() == "已回答"
    page.reload()
    row = page.locator("[data-testid^=ctx-]").first
    assert row.get_by_test_id("answered").inner_text().strip() == "已回答"
    assert page_problems(page, f"zh-context-answered-{width}") == []
