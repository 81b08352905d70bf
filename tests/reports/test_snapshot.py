"""The report snapshot and the report template, on a real database."""

import json
import re
from decimal import Decimal

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils.html import escape

from common import roles
from evaluations import services as evaluation_services
from evaluations.models import FiveQuestion, MemberRole
from poc import services as poc_services
from reports.render import report_html
from reports.sections import ALL as ALL_SECTIONS
from reports.snapshot import build_snapshot, snapshot_json, snapshot_sha256
from responsibility import services as responsibility_services
from tests.conftest import make_user
from tests.factories import add_candidates, add_member, answer_all, declare_none

pytestmark = pytest.mark.django_db

GENERATED = "2027-03-01T09:00:00+08:00"
IMG = '<img src="http://127.0.0.1:6379/">'
LINK = '<link rel="attachment" href="file:///etc/passwd">'
HOSTILE = f"Ask ops first {IMG} {LINK}"
SECTIONS = ["cover", *ALL_SECTIONS]  # the order the report prints them in
CSS = "/static/reports/report.css"


@pytest.fixture
def reviewers(evaluation, people):
    second = make_user(roles.REVIEWER, username="rev2")
    add_member(evaluation, second, MemberRole.REVIEWER)
    return [people[MemberRole.REVIEWER], second]


def fill(evaluation, owner, reviewers, candidates):
    """Answers, a prefilled matrix, costs and submitted POC scores for each candidate."""
    poc_services.plan_init(user=owner, evaluation=evaluation)
    declare_none(evaluation, *reviewers)
    cases = list(evaluation.poc_cases.order_by("group__order", "order", "pk")[:4])
    for n, candidate in enumerate(candidates):
        answer_all(candidate, owner)
        responsibility_services.matrix_prefill(user=owner, candidate=candidate)
        responsibility_services.cost_input_save(
            user=owner,
            candidate=candidate,
            expected_version=None,
            licence_per_year=Decimal(100000 + 1000 * n),
            one_off=Decimal("50000"),
        )
        for i, case in enumerate(cases):
            for j, reviewer in enumerate(reviewers):
                poc_services.score_save(
                    user=reviewer,
                    case=case,
                    candidate=candidate,
                    score=str((n + i + j) % 5 + 0.5),
                    submit=True,
                    expected_version=None,
                )
    return cases


@pytest.fixture
def full(evaluation, owner, reviewers):
    """An evaluation with every section filled in, and hostile text where users can type."""
    evaluation = evaluation_services.evaluation_update(
        user=owner, evaluation=evaluation, expected_version=None, notes=HOSTILE
    )
    candidates = add_candidates(evaluation, owner, "slurm", "runai")
    cases = fill(evaluation, owner, reviewers, candidates)
    slurm = candidates[0]
    evaluation_services.answer_save(
        user=owner,
        candidate=slurm,
        question=FiveQuestion.objects.get(key="incident_triage"),
        parties=["internal", "security"],
        explanation=HOSTILE,
        evidence_url="https://example.test/runbook",
        expected_version=None,
    )
    evaluation_services.answer_save(
        user=owner,
        candidate=slurm,
        question=FiveQuestion.objects.get(key="budget_focus"),
        budget="both",
        explanation="Licences and people both count.",
        expected_version=None,
    )
    responsibility_services.cost_settings_save(
        user=owner, evaluation=evaluation, expected_version=None, years=4, currency="EUR"
    )
    # The owner's consensus on one cell, with a reason typed by a user.
    r1, _r2 = reviewers
    poc_services.consensus_record(
        user=owner, case=cases[0], candidate=slurm, score="4", reason=HOSTILE, expected_version=0
    )
    # Evidence attached to a draft that is then submitted.
    draft = poc_services.score_save(
        user=r1,
        case=evaluation.poc_cases.order_by("-pk").first(),
        candidate=slurm,
        score="3",
        expected_version=None,
    )
    poc_services.evidence_add(
        user=r1, score=draft, upload=SimpleUploadedFile("run-1.txt", b"gang test log\n")
    )
    poc_services.scores_submit(user=r1, evaluation=evaluation)
    return evaluation


def render(snapshot, language):
    return report_html(snapshot, snapshot_sha256(snapshot), language, for_pdf=False)


def test_snapshot_is_plain_json_and_deterministic(full):
    first = build_snapshot(full, language="en", generated_at=GENERATED)
    second = build_snapshot(full, language="en", generated_at=GENERATED)
    assert json.loads(snapshot_json(first)) == first  # only JSON values, nothing lost
    assert snapshot_json(first) == snapshot_json(second)
    assert snapshot_sha256(first) == snapshot_sha256(second)
    assert re.fullmatch(r"[0-9a-f]{64}", snapshot_sha256(first))
    # The seal covers the content, not the render time: unchanged data, same hash.
    other_time = build_snapshot(full, language="en", generated_at="2027-03-02T09:00:00+08:00")
    assert snapshot_json(other_time) != snapshot_json(first)
    assert snapshot_sha256(other_time) == snapshot_sha256(first)
    full.title = "GPU platform 2028"
    full.save()
    changed = build_snapshot(full, language="en", generated_at=GENERATED)
    assert snapshot_sha256(changed) != snapshot_sha256(first)


def test_snapshot_holds_every_section(full):
    snap = build_snapshot(full, language="en", generated_at=GENERATED)
    assert snap["meta"]["title"] == "GPU platform 2027"
    assert snap["meta"]["generated_at"] == GENERATED
    assert snap["meta"]["members"] == 5
    assert {c["slug"] for c in snap["summary"]["shortlist"]} == {"slurm", "runai"}
    assert {c["slug"] for c in snap["candidates"]} == {"slurm", "runai"}
    assert snap["capabilities"]["groups"] and all(
        len(row["cells"]) == 2 for g in snap["capabilities"]["groups"] for row in g["rows"]
    )
    assert "Native" in {
        cell["label"]
        for g in snap["capabilities"]["groups"]
        for r in g["rows"]
        for cell in r["cells"]
    }
    questions = {q["slug"]: q for q in snap["questions"]}
    assert len(questions["slurm"]["answers"]) == 5
    triage = next(a for a in questions["slurm"]["answers"] if a["key"] == "incident_triage")
    assert triage["scale"] == "parties" and triage["parties"] == ["internal", "security"]
    assert triage["answer_label"] == "Internal platform team, Security team" and triage["complete"]
    budget = next(a for a in questions["slurm"]["answers"] if a["key"] == "budget_focus")
    assert budget["budget"] == "both" and budget["answer_label"] == "Both equally"
    assert budget["complete"]
    assert triage["evidence_url"] == "https://example.test/runbook"
    matrices = snap["matrices"]["candidates"]
    assert len(matrices) == 2 and all(m["started"] and m["rows"] for m in matrices)
    assert all(len(r["letters"]) == len(m["parties"]) for m in matrices for r in m["rows"])
    costs = snap["costs"]
    assert costs["entered"] and costs["years"] == 4 and costs["currency"] == "EUR"
    assert all(len(c["years"]) == 4 for c in costs["candidates"])
    assert costs["chart_svg"].startswith("<svg")
    poc = snap["poc"]
    assert poc["has_plan"] and poc["scored"] and poc["radar_svg"] == ""
    # One radar chart per comparable group: Slurm and Run:ai are of two types.
    assert [(r["type"], r["svg"][:4]) for r in poc["radars"]] == [
        ("Open-source tool", "<svg"),
        ("Enterprise platform", "<svg"),
    ]
    assert [c["slug"] for c in poc["candidates"]] == [c["slug"] for c in snap["candidates"]]
    agreed = [d for d in poc["disagreements"] if d["consensus"]]
    assert agreed and agreed[0]["consensus"] == {"score": "4.0", "reason": HOSTILE}
    robustness = poc["robustness"]["types"]
    # Four scored cases of many: too thin to name a leader; the report says why instead.
    assert robustness and all(t["thin"] and not t["leader"] for t in robustness)
    assert "Too few scores to name a leader" in robustness[0]["thin"]
    assert poc["scenario_fit"]["types"][0]["profiles"][0]["cells"]
    assert snap["summary"]["scenario_fit"] == poc["scenario_fit"]
    evidence = snap["appendix"]["evidence"]
    assert [e["file"] for e in evidence] == ["run-1.txt"] and len(evidence[0]["sha256"]) == 64
    assert snap["appendix"]["test_cases"] and all(
        t["acceptance"] for t in snap["appendix"]["test_cases"]
    )
    history = snap["appendix"]["history"]
    assert history["total"] == sum(k["count"] for k in history["by_kind"]) > 0
    assert history["by_kind"][0]["label"] and "entries" not in history
    assert snap["reminders"] and all(r["title"] and r["why"] for r in snap["reminders"])


def test_drafts_stay_out_of_the_snapshot(full, reviewers):
    r1, _r2 = reviewers
    case = full.poc_cases.order_by("-pk")[1]
    slurm = full.candidates.get(solution__slug="slurm")
    poc_services.score_save(user=r1, case=case, candidate=slurm, score="1", expected_version=None)
    snap = build_snapshot(full, language="en", generated_at=GENERATED)
    column = [c["slug"] for c in snap["poc"]["candidates"]].index("slurm")
    cells = [
        c["cells"][column]
        for g in snap["poc"]["groups"]
        for c in g["cases"]
        if c["title"] == (case.title or case.source_case.title)
    ]
    assert cells == [{"value": None, "reviewers": [], "consensus": None, "disagreement": False}]
    scored = {
        r["name"]
        for g in snap["poc"]["groups"]
        for c in g["cases"]
        for cell in c["cells"]
        for r in cell["reviewers"]
    }
    assert scored == {r.username for r in reviewers}


def test_language_switch_gives_chinese_labels(full):
    en = build_snapshot(full, language="en", generated_at=GENERATED)
    zh = build_snapshot(full, language="zh-hans", generated_at=GENERATED)
    zh_text = snapshot_json(zh).decode()
    assert zh["meta"]["language"] == "zh-hans"
    assert "原生" in zh_text and "原生" not in snapshot_json(en).decode()
    slurm = next(q for q in zh["questions"] if q["slug"] == "slurm")
    labels = {a["key"]: a["answer_label"] for a in slurm["answers"]}
    assert labels["incident_triage"] == "内部平台团队、安全团队"
    assert snapshot_sha256(en) != snapshot_sha256(zh)
    assert {c["slug"] for c in zh["candidates"]} == {c["slug"] for c in en["candidates"]}


def test_empty_evaluation_still_builds_and_renders(evaluation):
    snap = build_snapshot(evaluation, language="en", generated_at=GENERATED)
    assert snap["candidates"] == [] and snap["questions"] == []
    assert snap["matrices"]["candidates"] == []
    assert snap["costs"]["entered"] is False and snap["costs"]["candidates"] == []
    assert snap["poc"]["has_plan"] is False and snap["poc"]["groups"] == []
    assert snap["summary"]["decision"] is None and snap["summary"]["scenario_fit"] is None
    html = render(snap, "en")
    for section in SECTIONS:
        assert f'<section id="{section}"' in html
    assert "No POC plan yet." in html
    assert "No costs entered yet." in html


def test_plan_without_costs_says_so(evaluation, owner):
    add_candidates(evaluation, owner, "slurm")
    poc_services.plan_init(user=owner, evaluation=evaluation)
    snap = build_snapshot(evaluation, language="en", generated_at=GENERATED)
    assert snap["poc"]["has_plan"] and not snap["poc"]["scored"]
    assert snap["costs"]["entered"] is False
    html = render(snap, "en")
    assert "No scores submitted yet." in html and "No costs entered yet." in html


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_report_renders_every_section_in_order(full, language):
    snap = build_snapshot(full, language=language, generated_at=GENERATED)
    html = render(snap, language)
    positions = [html.index(f'<section id="{s}"') for s in SECTIONS]
    assert positions == sorted(positions)
    assert f'<html lang="{language}">' in html
    assert f'<link rel="stylesheet" href="{CSS}">' in html
    assert snapshot_sha256(snap) in html
    assert "<script" not in html
    assert html.count("<svg") == 3  # the cost chart and a radar chart for each of two types
    for candidate in snap["candidates"]:
        assert escape(candidate["name"]) in html
    if language == "zh-hans":
        assert "原生" in html and "简体中文" in html
        assert "内部平台团队、安全团队" in html  # who answered, in the report's language
    else:
        assert "Native" in html and "English" in html
        assert "Internal platform team, Security team" in html and "Both equally" in html


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_user_text_is_escaped_and_nothing_is_fetched(full, language):
    html = render(build_snapshot(full, language=language, generated_at=GENERATED), language)
    assert escape(IMG) in html and escape(LINK) in html
    assert html.count(escape(HOSTILE)) == 3  # notes, an answer's explanation, a consensus reason
    assert '<img src="http' not in html and "<img" not in html
    assert '<link rel="attachment"' not in html
    # Every remaining URL would be fetched or followed: none may be left once the escaped user
    # text and the SVG namespace are taken out.
    rest = html.replace(escape(HOSTILE), "").replace(escape("https://example.test/runbook"), "")
    rest = rest.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "http://" not in rest and "https://" not in rest and "file://" not in rest
    assert "{%" not in html and "{{" not in html


def test_query_count_does_not_grow_with_candidates(evaluation, owner, reviewers):
    poc_services.plan_init(user=owner, evaluation=evaluation)

    def count() -> int:
        with CaptureQueriesContext(connection) as captured:
            build_snapshot(evaluation, language="en", generated_at=GENERATED)
        return len(captured)

    two = add_candidates(evaluation, owner, "slurm", "volcano")
    fill(evaluation, owner, reviewers, two)
    few = count()
    more = add_candidates(evaluation, owner, "kuberay", "runai", "cloud-managed-gpu")
    fill(evaluation, owner, reviewers, more)
    many = count()
    assert many == few
    # +1 since stacks: the candidates' layers; +1 the who-questions' areas (the reminder); +5
    # since declared conflicts of interest: the appendix's list, and their history records with
    # the candidate, solution and member.
    # +6 since POC verification: the reminders' test beds, the cases' capabilities (2), the
    # beds, the layers and the claims it compares. +2 since approvals: the sign-off's requests
    # and their history.
    assert few <= 79


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_a_report_before_the_decision_is_marked_draft_on_every_page(full, language):
    snap = build_snapshot(full, language=language, generated_at=GENERATED)
    assert snap["meta"]["status"] not in ("decided", "archived")
    html = render(snap, language)
    assert 'data-testid="draft-mark"' in html and 'class="report draft"' in html
    for status in ("decided", "archived"):
        final = {**snap, "meta": {**snap["meta"], "status": status}}
        html = render(final, language)
        assert "draft-mark" not in html and "draft-decision" not in html


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_no_raw_timestamps_in_the_report(full, language):
    html = render(build_snapshot(full, language=language, generated_at=GENERATED), language)
    assert not re.search(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}", html)
    assert ("2027年3月1日" if language == "zh-hans" else "March 1, 2027") in html
