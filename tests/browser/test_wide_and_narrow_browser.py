"""Layouts the newcomer walk found wanting: the scorecard at 1440 px shows five candidates
whole, and at 390 px the Chinese catalog keeps its tags on a line and the report preview stays
inside the screen."""

import pytest

from common import roles
from evaluations.models import MemberRole
from poc import services as poc
from tests.browser.checks import page_problems
from tests.conftest import make_user
from tests.factories import add_candidates, add_member, declare_none, make_evaluation

pytestmark = pytest.mark.browser

FIVE = ("slurm", "volcano", "runai", "kueue", "hami")


@pytest.fixture
def five(seeded, owner):
    evaluation = make_evaluation(owner)
    add_candidates(evaluation, owner, *FIVE)
    poc.plan_init(user=owner, evaluation=evaluation)
    reviewer = make_user(roles.REVIEWER, username="ana")
    add_member(evaluation, reviewer, MemberRole.REVIEWER)
    declare_none(evaluation, owner, reviewer)
    return evaluation


def box(page, selector):
    return page.locator(selector).first.bounding_box()


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_scorecard_shows_five_candidates_whole_at_1440(
    live_server, session, owner, five, language
):
    page = session(owner, width=1440, language=language)
    page.goto(f"{live_server.url}/evaluations/{five.pk}/poc/")
    frame = box(page, "#scorecard-group .scroll")
    last = five.candidates.order_by("pk").last()
    header = box(page, f"#sc-cand-{last.pk}")
    assert header["x"] + header["width"] <= frame["x"] + frame["width"] + 0.5, (header, frame)
    assert (
        page.evaluate(
            "(() => { const s = document.querySelector('#scorecard-group .scroll');"
            " return s.scrollWidth - s.clientWidth; })()"
        )
        <= 0
    )
    assert page_problems(page, f"scorecard-five-1440-{language}", axe=False) == []


# Tags broken inside a word: more lines than the tag has words ("开/源/工/具" is one word on
# four lines; "企业级 AI 平台治理" may wrap at its spaces).
STACKED_TAGS = """(() => [...document.querySelectorAll('table.grid .tag')].filter(t => {
    const range = document.createRange();
    range.selectNodeContents(t);
    const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;
    return lines > t.textContent.trim().split(/[\\s-]+/).length;
}).map(t => t.textContent.trim()))()"""


@pytest.mark.parametrize("language", ["zh-hans", "en"])
def test_the_catalog_keeps_each_tag_on_one_line_at_390(
    live_server, session, owner, seeded, language
):
    page = session(owner, width=390, language=language)
    page.goto(f"{live_server.url}/catalog/")
    assert page.evaluate(STACKED_TAGS) == []
    assert page_problems(page, f"catalog-390-{language}", axe=False) == []


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_report_preview_stays_inside_the_screen_at_390(
    live_server, session, owner, people, seeded, language
):
    from tests.factories import make_everything

    evaluation = make_everything(owner, people)
    page = session(owner, width=390, language=language)
    page.goto(f"{live_server.url}/evaluations/{evaluation.pk}/reports/preview/")
    assert page_problems(page, f"report-preview-390-{language}", axe=False) == []
