"""Page writes, all through common.views.PageAction: every evaluation route answers each kind of
visitor as it should, a save without a version is refused (428) and saves nothing, and a stale
save names who saved the current value. Parallel saves of one row: tests/races/."""

import re

import pytest
from django.urls import resolve, reverse

from evaluations.models import ContextAnswer, MemberRole
from poc.models import Evidence, PlanCase, Score
from responsibility.models import AreaRow, CostInput
from tests.factories import make_everything
from tests.routes import OWNER_ONLY, walk

pytestmark = pytest.mark.django_db

MEMBERS = [MemberRole.OWNER, MemberRole.EDITOR, MemberRole.REVIEWER, MemberRole.VIEWER]
# File forms post without JavaScript: a refusal redirects back with the message shown there.
REDIRECT_BACK = {"poc:evidence_upload", "reports:report_list"}


def written(evaluation) -> tuple:
    """A fingerprint of everything a page write could change."""
    evaluation.refresh_from_db()
    return (
        evaluation.version,
        evaluation.status,
        evaluation.memberships.count(),
        evaluation.candidates.filter(status="shortlisted").count(),
        ContextAnswer.objects.filter(evaluation=evaluation).count(),
        sorted(AreaRow.objects.filter(candidate__evaluation=evaluation).values_list("version")),
        sorted(PlanCase.objects.filter(evaluation=evaluation).values_list("pk", "version")),
        Score.objects.filter(case__evaluation=evaluation).count(),
        CostInput.objects.filter(candidate__evaluation=evaluation).count(),
        Evidence.objects.filter(score__case__evaluation=evaluation).count(),
        evaluation.report_runs.count(),
    )


def test_every_route_answers_each_kind_of_visitor(client, owner, people):
    evaluation = make_everything(owner, people)
    routes = list(walk(evaluation))
    writes = [(n, p) for n, p in routes if hasattr(resolve(p).func.view_class, "post")]
    assert len(writes) >= 10
    before = written(evaluation)

    for _name, path in routes:  # anonymous: the sign-in page, for reading and writing
        for response in (client.get(path), client.post(path)):
            assert response.status_code == 302 and "/accounts/login/" in response["Location"]

    client.force_login(people["outsider"])  # a signed-in non-member: it does not exist
    for name, path in routes:
        assert client.get(path).status_code == 404, name
        assert client.post(path, {"version": 1, "action": "add"}).status_code == 404, name

    for role in MEMBERS:
        client.force_login(people[role])
        for name, path in routes:
            status = client.get(path).status_code
            assert (
                status in (200, 405)
                or (status in (403, 404) and role in (MemberRole.EDITOR, MemberRole.REVIEWER))
                or (status == 403 and name in OWNER_ONLY and role != MemberRole.OWNER)
            ), (role, name, status)

    client.force_login(people[MemberRole.VIEWER])  # reads everything, changes nothing
    for name, path in writes:
        response = client.post(path, {"version": 1, "action": "add", "status": "draft"})
        refused = (400, 403, 404, 405, 428, *((302,) if name in REDIRECT_BACK else ()))
        assert response.status_code in refused, (name, response.status_code)
    assert written(evaluation) == before


def test_a_page_save_without_a_version_is_refused_and_saves_nothing(client, owner, people):
    evaluation = make_everything(owner, people)
    slurm = evaluation.candidates.get(solution__slug="slurm")
    case = evaluation.poc_cases.filter(source_case__isnull=False).first()
    pk = evaluation.pk
    saves = [
        (
            reverse("evaluations:context_answer_save", args=[pk, "ray_workloads"]),
            {"ray_workloads-value": "yes"},
        ),
        (reverse("evaluations:evaluation_edit", args=[pk]), {"title": "x", "organisation": "y"}),
        (reverse("evaluations:evaluation_decision", args=[pk]), {"rationale": "Because."}),
        (
            reverse("responsibility:matrix_save", args=[pk, slurm.pk]),
            {"area": "job_execution", "note": "Ours"},
        ),
        (reverse("responsibility:costs", args=[pk]), {"target": "settings", "years": "5"}),
        (
            reverse("poc:plan", args=[pk]),
            {"action": "case_weight", "id": case.pk, "weight": "9"},
        ),
        (reverse("poc:cell", args=[pk, case.pk, slurm.pk]), {"score": "1"}),
    ]
    before = written(evaluation)
    client.force_login(owner)
    for path, data in saves:
        response = client.post(path, data)
        assert response.status_code == 428, (path, response.status_code)
        assert "without the version" in response.content.decode(), path
    assert written(evaluation) == before


def test_a_stale_page_save_names_who_saved_the_current_value(client, owner, people):
    evaluation = make_everything(owner, people)
    path = reverse("evaluations:context_answer_save", args=[evaluation.pk, "ray_workloads"])
    editor = people[MemberRole.EDITOR]
    editor.first_name, editor.last_name = "Erin", "Editor"
    editor.save()
    client.force_login(editor)
    first = {
        "ray_workloads-value": "yes",
        "ray_workloads-detail": "Ray on K8s",
        "ray_workloads-version": 0,
    }
    assert client.post(path, first, HTTP_HX_REQUEST="true").status_code == 200

    client.force_login(owner)
    stale = client.post(
        path, {"ray_workloads-value": "no", "ray_workloads-version": 0}, HTTP_HX_REQUEST="true"
    )
    body = stale.content.decode()
    assert stale.status_code == 409
    assert stale["HX-Retarget"] == "#ctx-ray_workloads"
    assert "saved by Erin Editor" in body  # who saved it, and what: the saved answer is ticked
    assert re.search(r'value="yes"[^>]*checked', body)
    answer = ContextAnswer.objects.get(evaluation=evaluation, question__key="ray_workloads")
    assert answer.value == "yes" and answer.version == 1
