"""bench/poc_session.py's writer saves what the pages say it saved, through the real forms with
CSRF checks on, and its figures and verdicts are computed as the docs say."""

import math
import time

import pytest
from django.test import Client

from bench.poc_session_data import add_writer, tabs_of, writer_targets
from bench.poc_session_report import SHARE_LIMIT, ratio, verdict
from bench.poc_session_writer import SCORES, Reply, Writer
from bench.scale import session_for
from bench.scale_server import csrf_secret
from evaluations.models import QuestionAnswer
from poc.models import Score
from tests.factories import add_candidates, answer_all


class ClientTransport:
    """The writer's transport through Django's test client: the same requests as over HTTP
    (cookies, htmx and CSRF headers, a TLS proxy's https), with CSRF checks enforced."""

    origin = "https://testserver"

    def __init__(self, session: str):
        self.client = Client(enforce_csrf_checks=True, headers={"Accept-Language": "en"})
        self.client.cookies["sessionid"] = session
        self.client.cookies["csrftoken"] = csrf_secret(session)

    def send(self, method, path, headers=None, body="") -> Reply:
        start = time.perf_counter()
        response = self.client.generic(
            method,
            path,
            data=body,
            content_type="application/x-www-form-urlencoded",
            secure=True,
            headers=headers or {},
        )
        return Reply(response.status_code, response.content.decode(), time.perf_counter() - start)


@pytest.fixture
def poc_evaluation(evaluation, owner):
    from poc import services as poc

    for candidate in add_candidates(evaluation, owner, "slurm", "volcano"):
        answer_all(candidate, owner)
    poc.plan_init(user=owner, evaluation=evaluation)
    return evaluation


@pytest.mark.django_db
def test_the_writer_saves_scores_and_answers_through_the_pages(poc_evaluation, owner):
    writer_user = add_writer(poc_evaluation, owner)
    group, cells, answers = writer_targets(poc_evaluation, cells=1, answers=1)
    (case_id, score_candidate), (answer_candidate, key) = cells[0], answers[0]
    answer = QuestionAnswer.objects.get(candidate_id=answer_candidate, question__key=key)
    transport = ClientTransport(session_for(writer_user.username))
    writer = Writer(transport, poc_evaluation.pk, group, cells, answers)
    writer.open()

    # score, answer, the same score again, the same answer again: each save must carry the
    # version the one before left, or it would be refused as stale (409).
    saves = [writer.save() for _ in range(4)]

    assert [(s.kind, s.status, s.outcome) for s in saves] == [
        ("score", 200, "saved"),
        ("answer", 200, "saved"),
        ("score", 200, "saved"),
        ("answer", 200, "saved"),
    ]
    score = Score.objects.get(case_id=case_id, candidate_id=score_candidate, reviewer=writer_user)
    assert (str(score.score), score.version, score.submitted_at) == (SCORES[1], 2, None)
    assert score.notes == "POC session bench, save 3"
    assert score.outcome == "passed"
    stored = QuestionAnswer.objects.get(pk=answer.pk)
    assert stored.version == answer.version + 2
    assert stored.explanation == "Checked during the POC (session bench, save 4)."


@pytest.mark.django_db
def test_a_stale_form_counts_as_a_conflict_not_an_error(poc_evaluation, owner):
    from poc import services as poc

    writer_user = add_writer(poc_evaluation, owner)
    group, cells, answers = writer_targets(poc_evaluation, cells=1, answers=1)
    writer = Writer(
        ClientTransport(session_for(writer_user.username)), poc_evaluation.pk, group, cells, answers
    )
    writer.open()
    case = poc_evaluation.poc_cases.get(pk=cells[0][0])
    candidate = poc_evaluation.candidates.get(pk=cells[0][1])
    poc.score_save(  # the same member, in another browser tab, after this one loaded
        user=writer_user, case=case, candidate=candidate, score="1", expected_version=0
    )

    save = writer.save()

    assert (save.kind, save.status, save.outcome) == ("score", 409, "conflict")
    assert (
        str(Score.objects.get(case=case, candidate=candidate, reviewer=writer_user).score) == "1.0"
    )


@pytest.mark.django_db
def test_the_tabs_are_found_from_the_pages_navigation(poc_evaluation, owner):
    transport = ClientTransport(session_for(owner.username))
    pages = [
        transport.send("GET", f"/evaluations/{poc_evaluation.pk}/{tail}").text
        for tail in ("", "poc/")
    ]

    names = [name for name, _path in tabs_of(*pages)]

    for tab in ("overview", "shortlist", "questions", "matrices", "costs", "POC plan"):
        assert tab in names
    for tab in ("scorecard", "results", "history", "decision", "reports", "context", "members"):
        assert tab in names
    assert len(names) == len(set(names)) == 14


@pytest.mark.parametrize(
    ("value", "base", "limit", "at_least", "expected_ratio", "expected"),
    [
        (0.050, 0.005, 10, False, 10.0, "PASS"),  # the limit itself passes
        (0.0501, 0.005, 10, False, 10.02, "MISS"),
        (0.012, 0.004, 8, False, 3.0, "PASS"),
        (40.0, 320.0, SHARE_LIMIT, True, 0.125, "PASS"),  # a share of the floor's throughput
        (39.0, 320.0, SHARE_LIMIT, True, 0.121875, "MISS"),
        (None, 0.004, 10, False, None, "MISS"),  # no saves: no figure, no pass
        (0.010, 0.0, 10, False, math.inf, "MISS"),
    ],
)
def test_ratio_and_verdict(value, base, limit, at_least, expected_ratio, expected):
    got = ratio(value, base)

    if expected_ratio is None:
        assert got is None
    else:
        assert got == pytest.approx(expected_ratio)
    assert verdict(got, limit, at_least=at_least) == expected


@pytest.mark.parametrize(("errors", "expected"), [(0, "PASS"), (1, "MISS")])
def test_errors_pass_only_at_zero(errors, expected):
    assert verdict(errors, 0) == expected
