"""The report's robustness section names a leader only on enough data (poc.scoring.sufficiency)
and never prints a blank new leader."""

import pytest

from evaluations.models import MemberRole
from poc import services as poc_services
from reports.render import report_html
from reports.snapshot import build_snapshot, snapshot_sha256
from tests.factories import add_candidates, declare_none

pytestmark = pytest.mark.django_db

GENERATED = "2027-03-01T09:00:00+08:00"


def scored(evaluation, owner, reviewer, candidates, how_many=None):
    poc_services.plan_init(user=owner, evaluation=evaluation)
    declare_none(evaluation, reviewer)
    cases = list(evaluation.poc_cases.order_by("group__order", "order", "pk"))
    for i, case in enumerate(cases[:how_many]):
        for n, candidate in enumerate(candidates):
            poc_services.score_save(
                user=reviewer,
                case=case,
                candidate=candidate,
                score=str((i + 2 * n) % 5 + 0.5),
                submit=True,
                expected_version=None,
            )


def html(evaluation, language):
    snap = build_snapshot(evaluation, language=language, generated_at=GENERATED)
    return snap, report_html(snap, snapshot_sha256(snap), language, for_pdf=False)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_one_scored_cell_names_no_leader(evaluation, owner, people, language):
    candidates = add_candidates(evaluation, owner, "slurm", "runai")
    scored(evaluation, owner, people[MemberRole.REVIEWER], candidates, how_many=1)
    snap, body = html(evaluation, language)
    types = snap["poc"]["robustness"]["types"]
    assert types and all(t["thin"] and t["leader"] == [] and t["wins"] == [] for t in types)
    assert 'data-testid="thin-data"' in body
    assert "would be ." not in body and "新的领先者将是。" not in body
    assert "100.0%" not in body.split('id="robustness"')[1].split("</section>")[0]


def test_complete_scores_name_the_leader(evaluation, owner, people):
    candidates = add_candidates(evaluation, owner, "slurm", "runai")
    scored(evaluation, owner, people[MemberRole.REVIEWER], candidates)
    snap, body = html(evaluation, "en")
    types = snap["poc"]["robustness"]["types"]
    assert types and all(not t["thin"] and t["leader"] and t["wins"] for t in types)
    assert 'data-testid="thin-data"' not in body
    metrics = [
        case["metric"]
        for group in snap["poc"]["groups"]
        for case in group["cases"]
        if case["metric"]
    ]
    assert metrics and all("→ 3" in m["bands"] for m in metrics)
