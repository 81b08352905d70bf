"""The plan's weights as a newcomer saves them: type a value, press the row's Save button. One
post, saved, and no conflict shown anywhere (the change event and the button used to post the
same version twice, and the refusal of the second appeared on every row)."""

import pytest

from poc.models import PlanCase, PlanGroup
from tests.factories import make_everything

pytestmark = pytest.mark.browser

CONFLICT = "Someone else saved this"


@pytest.fixture
def everything(seeded, owner, people):
    return make_everything(owner, people)


def watch_posts(page) -> list[tuple[int, str]]:
    posts: list[tuple[int, str]] = []
    page.on(
        "response",
        lambda r: posts.append((r.status, r.url)) if r.request.method == "POST" else None,
    )
    return posts


@pytest.mark.parametrize("width", [1440, 390])
@pytest.mark.parametrize("kind", ["group_weight", "case_weight"])
def test_typing_a_weight_and_pressing_save_saves_once_without_a_conflict(
    live_server, session, owner, everything, width, kind
):
    model = PlanGroup if kind == "group_weight" else PlanCase
    row = model.objects.filter(evaluation=everything).order_by("pk").first()
    page = session(owner, width=width)
    posts = watch_posts(page)
    page.goto(f"{live_server.url}/evaluations/{everything.pk}/poc/plan/")
    for typed in ("7.5", "2"):  # twice: the second from the form the first answer swapped in
        form = page.locator(f"#weight-{kind}-{row.pk}")
        form.locator("input[name=weight]").fill(typed)
        with page.expect_response(lambda r: r.request.method == "POST"):
            form.get_by_role("button", name="Save").click()
        page.wait_for_timeout(700)  # time for a second post, if the button sent one
        page.locator(f"#weight-{kind}-{row.pk} .saved").wait_for()
        assert CONFLICT not in page.locator("main").inner_text()
        assert [status for status, _ in posts] == [200], posts
        posts.clear()
        row.refresh_from_db()
        assert row.weight == float(typed)
        version = page.locator(f"#weight-{kind}-{row.pk} input[name=version]").input_value()
        assert version == str(row.version)
    assert not page.console_errors
