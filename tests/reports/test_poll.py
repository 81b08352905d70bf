"""The progress poll: what the reports page fetches every second while a run renders."""

import pytest
from django.urls import reverse

from evaluations.models import MemberRole
from reports import services
from reports.models import ReportRun, RunStatus
from tests.factories import finished_report, make_everything

pytestmark = pytest.mark.django_db

POLL = {"HX-Request": "true"}


@pytest.fixture
def everything(owner, people):
    """An evaluation with data (scores, matrices, costs) and a finished complete report: the
    editor has not scored the cell the reviewer submitted, so that report is closed to them."""
    evaluation = make_everything(owner, people)
    finished_report(evaluation, owner)
    return evaluation


def rendering(evaluation, user, *, like: ReportRun) -> ReportRun:
    """A run the worker is rendering, of the same content as `like` (so that finishing it
    through the worker's path reuses that PDF rather than drawing it again)."""
    return ReportRun.objects.create(
        evaluation=evaluation,
        requested_by=user,
        language=like.language,
        sections=like.sections,
        snapshot=like.snapshot,
        snapshot_sha256=like.snapshot_sha256,
        status=RunStatus.RENDERING,
        attempts=1,
        progress=40,
    )


def poll(client, evaluation, django_assert_max_num_queries) -> str:
    url = reverse("reports:report_list", kwargs={"pk": evaluation.pk})
    with django_assert_max_num_queries(5):
        response = client.get(url, headers=POLL)
    assert response.status_code == 200
    return response.content.decode()


def test_the_poll_costs_a_few_queries_and_follows_the_run(
    client, everything, owner, people, django_assert_max_num_queries
):
    done = ReportRun.objects.get(evaluation=everything)
    going = rendering(everything, people[MemberRole.REVIEWER], like=done)
    failing = rendering(everything, owner, like=done)
    editor = people[MemberRole.EDITOR]
    for user in (owner, editor, people[MemberRole.REVIEWER], people[MemberRole.VIEWER]):
        client.force_login(user)
        html = poll(client, everything, django_assert_max_num_queries)
        # The list alone: no tabs, status strip or reminders of the evaluation around it.
        assert html.startswith('<div id="report-runs"') and 'data-testid="my-role"' not in html
        assert 'hx-trigger="every 1s"' in html and html.count('value="40"></progress>') == 2
        download = f'data-testid="download-{done.pk}"'
        locked = f'data-testid="locked-{done.pk}"'
        if user == editor:  # blind scoring: the complete report waits for the editor's score
            assert locked in html and download not in html
            assert "1 cell others have scored is still hidden from you" in html
        else:
            assert download in html and locked not in html

    client.force_login(owner)
    services.report_fail(failing.pk, "OSError: disk full")
    html = poll(client, everything, django_assert_max_num_queries)
    assert "OSError: disk full" in html
    assert f'name="retry" value="{failing.pk}"' in html and 'name="csrfmiddlewaretoken"' in html
    assert 'hx-trigger="every 1s"' in html  # the other run is still rendering

    services.report_render(going.pk)  # the worker's path: the same content reuses the PDF
    html = poll(client, everything, django_assert_max_num_queries)
    assert f'data-testid="download-{going.pk}"' in html and "<progress" not in html
    assert "hx-trigger" not in html  # every run finished: the polling stops


def test_the_retry_button_of_a_polled_list_works(client, everything, owner):
    done = ReportRun.objects.get(evaluation=everything)
    failed = rendering(everything, owner, like=done)
    services.report_fail(failed.pk, "OSError: disk full")
    client.force_login(owner)
    page = reverse("reports:report_list", kwargs={"pk": everything.pk})
    html = client.get(page, headers=POLL).content.decode()
    token = html.split('name="csrfmiddlewaretoken" value="')[1].split('"')[0]
    client.handler.enforce_csrf_checks = True  # the token the fragment carries is accepted
    response = client.post(page, {"retry": failed.pk, "csrfmiddlewaretoken": token})
    assert response.status_code == 302
    failed.refresh_from_db()
    assert failed.status != RunStatus.FAILED and failed.error == ""


def test_the_poll_is_for_members_only(client, everything, people):
    client.force_login(people["outsider"])
    page = reverse("reports:report_list", kwargs={"pk": everything.pk})
    assert client.get(page, headers=POLL).status_code == 404
