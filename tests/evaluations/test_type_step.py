"""The method's second step: the type that carries the main responsibility is recorded with a
reason (history, page, API), candidates of other types are marked, ranking several types
without it fires a reminder, and the report prints the chain scenario -> type -> tools."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from rest_framework.test import APIClient

from catalog.models import SolutionType
from common.exceptions import Conflict
from evaluations import services
from evaluations.models import AnswerValue, ContextAnswer, ContextQuestion, MemberRole
from evaluations.reminders import reminders_for
from evaluations.selectors import evaluation_data
from evaluations.types import type_options
from tests.factories import add_candidates, add_member, make_evaluation
from tests.reports.runs.support import pdf_text

pytestmark = pytest.mark.django_db


@pytest.fixture
def evaluation(owner, people):
    evaluation = make_evaluation(owner, plans_hybrid=True)
    for role in (MemberRole.EDITOR, MemberRole.VIEWER):
        add_member(evaluation, people[role], role)
    add_candidates(evaluation, owner, "slurm", "runai")
    return evaluation


def decide(evaluation, user, slug, reason="Our platform team runs it.", version=None):
    return services.evaluation_type_decide(
        user=user,
        evaluation=evaluation,
        solution_type=SolutionType.objects.get(slug=slug) if slug else None,
        reason=reason,
        expected_version=evaluation.version if version is None else version,
    )


def test_context_answers_point_to_types(evaluation):
    ContextAnswer.objects.create(
        evaluation=evaluation,
        question=ContextQuestion.objects.get(key="single_cloud"),
        value=AnswerValue.YES,
    )
    options = {o.solution_type.slug: o for o in type_options(evaluation_data(evaluation))}
    assert set(options) == set(SolutionType.objects.values_list("slug", flat=True))
    assert options["cloud-managed"].signals and options["hybrid"].signals  # fact and flag
    assert not options["enterprise-platform"].signals
    assert [c.solution.slug for c in options["open-source"].candidates] == ["slurm"]


def test_the_type_is_recorded_with_a_reason_in_history_and_can_be_cleared(evaluation, owner):
    with pytest.raises(ValidationError) as refused:
        decide(evaluation, owner, "open-source", reason=" ")
    assert "reason" in refused.value.message_dict
    saved = decide(evaluation, owner, "open-source")
    assert saved.main_type.slug == "open-source"
    record = saved.history.first()
    assert record.main_type_id == saved.main_type_id and record.history_user == owner
    with pytest.raises(Conflict):
        decide(saved, owner, "hybrid", version=saved.version - 1)
    cleared = decide(saved, owner, None, reason="")
    assert cleared.main_type is None and cleared.main_type_reason == ""


def test_ranking_several_types_without_a_type_decision_fires_a_reminder(evaluation, owner):
    def keys():
        return {r.key for r in reminders_for(evaluation_data(evaluation))}

    assert "leaderboard-without-type" not in keys()  # a draft ranks nothing yet
    services.evaluation_transition(user=owner, evaluation=evaluation, to_status="poc")
    assert "leaderboard-without-type" in keys()
    evaluation.refresh_from_db()
    decide(evaluation, owner, "enterprise-platform")
    assert "leaderboard-without-type" not in keys()


def test_the_page_records_the_type_and_marks_candidates_outside_it(client, evaluation, people):
    url = reverse("evaluations:evaluation_shortlist", args=[evaluation.pk])
    client.force_login(people[MemberRole.EDITOR])
    page = client.get(url).content.decode()
    assert 'data-testid="type-open"' in page and 'data-testid="outside-type"' not in page
    refused = client.post(
        url, {"action": "type", "main_type": "open-source", "version": evaluation.version}
    )
    assert refused.status_code == 400
    bogus = client.post(url, {"action": "type", "main_type": "x", "version": evaluation.version})
    assert bogus.status_code == 400
    saved = client.post(
        url,
        {
            "action": "type",
            "main_type": "open-source",
            "reason": "We run HPC already.",
            "version": evaluation.version,
        },
    )
    assert saved.status_code == 302
    page = client.get(url).content.decode()
    assert 'data-testid="type-chosen"' in page and "We run HPC already." in page
    assert page.count('data-testid="outside-type"') == 1  # Run:ai, an enterprise platform
    stale = client.post(
        url,
        {"action": "type", "main_type": "hybrid", "reason": "x", "version": evaluation.version},
    )
    assert stale.status_code == 409


def test_the_api_reads_and_records_the_type(evaluation, owner, people):
    api = APIClient()
    url = f"/api/evaluations/{evaluation.pk}/type/"
    api.force_authenticate(people["outsider"])
    assert api.get(url).status_code == 404
    api.force_authenticate(people[MemberRole.VIEWER])
    body = api.get(url).json()
    assert body["type"] is None and len(body["options"]) == SolutionType.objects.count()
    put = {"type": "hybrid", "reason": "Two sources.", "version": evaluation.version}
    assert api.put(url, put, format="json").status_code == 403
    api.force_authenticate(owner)
    assert api.put(url, {**put, "version": None}, format="json").status_code in (400, 428)
    saved = api.put(url, put, format="json")
    assert saved.status_code == 200 and saved.json()["type"] == "hybrid"
    assert api.put(url, put, format="json").status_code == 409
    assert api.put(url, {**put, "type": "nope"}, format="json").status_code == 400


def test_the_report_prints_the_chain(evaluation, owner):
    from reports.render import render_pdf
    from reports.snapshot import build_snapshot, snapshot_sha256

    decide(evaluation, owner, "hybrid", reason="Chainreason4417")
    snapshot = build_snapshot(evaluation, language="en", generated_at="2027-01-01T00:00:00Z")
    chain = snapshot["summary"]["chain"]
    assert chain["type"] == "Hybrid" and chain["decided"] is False
    assert sorted(chain["tools"]) == ["NVIDIA Run:ai", "Slurm"]
    text = pdf_text(render_pdf(snapshot, snapshot_sha256(snapshot), "en").content)
    assert "Type carrying the main responsibility" in text and "Chainreason4417" in text
