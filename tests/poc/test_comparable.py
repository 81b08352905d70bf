"""Comparable or not compared: candidates are ranked, led, given win shares and tested for
robustness only against candidates of the same solution type tested under the same conditions
(poc.testbeds.comparable). Two candidates of one type on different test beds never share a
rank, a leader or a win share, on the page, in the API, in the workbook or in the report; the
owner may declare their beds equivalent, with a reason, and only then are they compared."""

from io import BytesIO

import pytest
from django.urls import reverse
from openpyxl import load_workbook
from rest_framework.test import APIClient

from evaluations.models import MemberRole
from poc import services
from poc.models import BedEquivalence
from poc.selectors import results
from poc.testbeds import bed_save
from poc.testbeds.comparable import conditions_key, equivalence_declare
from poc.testbeds.models import TestBed
from reports.render import report_html
from reports.snapshot import build_snapshot
from tests.factories import add_candidates, declare_none

pytestmark = pytest.mark.django_db

GENERATED = "2027-03-01T09:00:00+08:00"
A800 = {"accelerator_vendor": "NVIDIA", "accelerator_model": "A800", "accelerator_count": 32}
ASCEND = {"accelerator_vendor": "Huawei", "accelerator_model": "Ascend 910B"}
A800_LABEL = "NVIDIA A800 × 32, 4 nodes"
ASCEND_LABEL = "Huawei Ascend 910B × 16, 2 nodes"
NOTE = f"not comparable: different test bed ({A800_LABEL} vs {ASCEND_LABEL})"
# Slurm and Volcano are open-source tools, Run:ai an enterprise platform.
SCORES = {"slurm": "3", "volcano": "2", "runai": "4"}


@pytest.fixture
def scored(evaluation, owner, people):
    candidates = add_candidates(evaluation, owner, "slurm", "volcano", "runai")
    services.plan_init(user=owner, evaluation=evaluation)
    reviewer = people[MemberRole.REVIEWER]
    declare_none(evaluation, owner, reviewer)
    for case in evaluation.poc_cases.all():
        for c in candidates:
            services.score_save(
                user=reviewer,
                case=case,
                candidate=c,
                score=SCORES[c.solution.slug],
                submit=True,
                expected_version=0,
            )
    by_slug = {c.solution.slug: c for c in candidates}
    # The vendor's own Ascend pool for Volcano, the shared A800 pool for Slurm.
    bed_save(user=owner, candidate=by_slug["slurm"], expected_version=0, nodes=4, **A800)
    bed_save(
        user=owner,
        candidate=by_slug["volcano"],
        expected_version=0,
        accelerator_count=16,
        nodes=2,
        **ASCEND,
    )
    return by_slug


def api(user) -> APIClient:
    client = APIClient()
    client.default_format = "json"
    client.force_authenticate(user)
    return client


def open_source(res):
    return [t for t in res.by_type if t.solution_type.slug == "open-source"]


def declare(evaluation, owner, scored, reason="Same MLPerf throughput measured on both pools."):
    return equivalence_declare(
        user=owner,
        evaluation=evaluation,
        first=scored["slurm"],
        second=scored["volcano"],
        reason=reason,
    )


# --- the rule --------------------------------------------------------------------------------


def test_conditions_compare_accelerator_scale_and_versions_not_spelling():
    base = {"accelerator_count": 32, "nodes": 4, **A800, "components": "Kubernetes 1.29\nCUDA 12"}
    same = TestBed(
        **{**base, "accelerator_model": " a800 ", "components": "cuda 12\nkubernetes  1.29"}
    )
    assert conditions_key(TestBed(**base)) == conditions_key(same)
    for change in ({"nodes": 8}, {"accelerator_count": 16}, {"components": "Kubernetes 1.30"}):
        assert conditions_key(TestBed(**{**base, **change})) != conditions_key(TestBed(**base))
    # The product version is the candidate's own: not a condition.
    assert conditions_key(TestBed(**base, product_version="Volcano 1.9")) == conditions_key(
        TestBed(**base)
    )
    assert conditions_key(None) is None and conditions_key(TestBed(notes="later")) is None


def test_versions_keep_beds_apart_only_when_both_name_the_component(evaluation, owner, scored):
    hardware = {"nodes": 4, **A800}
    bed = TestBed.objects.get(candidate=scored["volcano"])
    bed_save(
        user=owner,
        candidate=scored["volcano"],
        expected_version=bed.version,
        components="Kubernetes 1.29.4\nNVIDIA GPU Operator 23.9.2",
        **hardware,
    )
    bed = TestBed.objects.get(candidate=scored["slurm"])
    # Slurm's own stack names no Kubernetes: the same test bed as Volcano's.
    bed_save(
        user=owner,
        candidate=scored["slurm"],
        expected_version=bed.version,
        components="Rocky Linux 9.3\nEnroot 3.4",
        **hardware,
    )
    groups = open_source(results(evaluation, owner))
    assert [[c.solution.slug for c in t.candidates] for t in groups] == [["slurm", "volcano"]]
    assert groups[0].bed_label == A800_LABEL
    # Both name Kubernetes, in two versions: apart, and the label says why.
    bed_save(
        user=owner,
        candidate=scored["slurm"],
        expected_version=bed.version + 1,
        components="kubernetes 1.28.2",
        **hardware,
    )
    groups = open_source(results(evaluation, owner))
    assert [t.bed_label for t in groups] == [
        f"{A800_LABEL}; kubernetes 1.28.2",
        f"{A800_LABEL}; Kubernetes 1.29.4",
    ]


# --- never ranked together -------------------------------------------------------------------


def test_same_type_on_different_beds_never_shares_a_rank_leader_or_win_share(
    evaluation, owner, scored
):
    res = results(evaluation, owner)
    slurm, volcano = (str(scored[s].pk) for s in ("slurm", "volcano"))
    groups = open_source(res)
    assert [[c.solution.slug for c in t.candidates] for t in groups] == [["slurm"], ["volcano"]]
    assert [t.bed_label for t in groups] == [A800_LABEL, ASCEND_LABEL]
    assert [t.ranked[0][1] for t in groups] == [1, 1]
    assert [t.leaders for t in groups] == [(slurm,), (volcano,)]
    assert [set(t.wins) for t in groups] == [{slurm}, {volcano}]
    assert groups[0].others[0].note == NOTE
    # Run:ai (another type, no bed recorded) is a group of its own.
    runai = [t for t in res.by_type if t.solution_type.slug == "enterprise-platform"]
    assert [t.bed_label for t in runai] == ["test bed not recorded"]
    assert not runai[0].others
    # No figure across groups.
    assert res.sensitivity is None and res.wins is None
    assert all(leaders == () for _p, _fit, leaders in res.by_profile)


def test_a_candidate_without_a_bed_is_not_ranked_with_one_that_has_one(evaluation, owner, scored):
    TestBed.objects.filter(candidate=scored["volcano"]).delete()
    groups = open_source(results(evaluation, owner))
    assert [t.bed_label for t in groups] == [A800_LABEL, "test bed not recorded"]
    assert [[rank for _c, rank in t.ranked] for t in groups] == [[1], [1]]


def test_the_results_page_shows_each_bed_apart_with_its_own_chart(
    client, evaluation, owner, scored
):
    client.force_login(owner)
    body = client.get(reverse("poc:results", kwargs={"pk": evaluation.pk})).content.decode()
    assert 'data-testid="within-group"' in body
    assert body.count('data-testid="fit-type-open-source"') == 2
    assert body.count("No. 1 on this test bed") == 2 and "No. 2" not in body
    assert NOTE in body.replace("&nbsp;", " ")
    assert body.count('data-testid="radar"') == 3  # one chart per comparable group
    assert body.count('data-testid="robustness"') == 3


def test_the_api_groups_by_type_and_test_bed(evaluation, owner, scored):
    body = api(owner).get(f"/api/evaluations/{evaluation.pk}/poc/results/").json()
    groups = [t for t in body["by_type"] if t["type"]["slug"] == "open-source"]
    assert [t["test_bed"]["label"] for t in groups] == [A800_LABEL, ASCEND_LABEL]
    assert [t["ranking"] for t in groups] == [
        [{"candidate": scored["slurm"].pk, "rank": 1}],
        [{"candidate": scored["volcano"].pk, "rank": 1}],
    ]
    assert groups[0]["not_comparable"] == [
        {"test_bed": ASCEND_LABEL, "candidates": [scored["volcano"].pk], "note": NOTE}
    ]
    assert [[w["candidate"] for w in t["win_shares"]] for t in groups] == [
        [scored["slurm"].pk],
        [scored["volcano"].pk],
    ]
    # The top-level fields name no leader across groups.
    assert body["sensitivity"] is None and body["win_shares"] == []
    assert all(p["leaders"] == [] for p in body["profiles"])
    schema = api(owner).get("/api/schema/", {"format": "json"}).json()["components"]["schemas"]
    assert {"test_bed", "not_comparable"} <= set(schema["TypeResults"]["properties"])


def test_one_comparable_group_keeps_the_top_level_figures(evaluation, owner, scored):
    scored["runai"].delete()
    TestBed.objects.all().delete()
    body = api(owner).get(f"/api/evaluations/{evaluation.pk}/poc/results/").json()
    assert len(body["by_type"]) == 1
    assert body["by_type"][0]["test_bed"] == {
        "label": "test bed not recorded",
        "recorded": False,
        "equivalences": [],
    }
    assert body["sensitivity"]["leader"] == [scored["slurm"].pk]
    assert body["win_shares"] == body["by_type"][0]["win_shares"]


def test_the_workbook_ranks_within_comparable_groups(client, evaluation, owner, scored):
    client.force_login(owner)
    response = client.get(reverse("poc:export", kwargs={"pk": evaluation.pk}))
    ws = load_workbook(BytesIO(response.content))["Comparable groups"]
    rows = [r for r in ws.iter_rows(min_row=2, values_only=True) if r[2]]
    by_name = {r[2]: r for r in rows}
    assert by_name["Slurm"][1] == A800_LABEL and by_name["Volcano"][1] == ASCEND_LABEL
    assert by_name["Slurm"][3] == by_name["Volcano"][3] == 1
    assert by_name["Slurm"][5] == by_name["Volcano"][5] == 1.0
    assert NOTE in by_name["Slurm"][6]
    api_book = api(owner).get(f"/api/evaluations/{evaluation.pk}/poc/scorecard.xlsx")
    assert "Comparable groups" in load_workbook(BytesIO(api_book.content)).sheetnames


def test_the_report_prints_groups_apart(evaluation, owner, scored):
    snap = build_snapshot(evaluation, language="en", generated_at=GENERATED)
    fit = [t for t in snap["poc"]["scenario_fit"]["types"] if t["type"] == "Open-source tool"]
    assert [(t["test_bed"], t["candidates"]) for t in fit] == [
        (A800_LABEL, [{"name": "Slurm", "rank": 1}]),
        (ASCEND_LABEL, [{"name": "Volcano", "rank": 1}]),
    ]
    robustness = [t for t in snap["poc"]["robustness"]["types"] if t["type"] == "Open-source tool"]
    assert [t["leader"] for t in robustness] == [["Slurm"], ["Volcano"]]
    assert len(snap["poc"]["radars"]) == 3
    html = report_html(snap, "0" * 64, "en", for_pdf=False)
    assert NOTE in html and "No. 1 on this test bed" in html


# --- declared equivalent ---------------------------------------------------------------------


def test_declaring_beds_equivalent_merges_them_with_a_reason_and_history(
    evaluation, owner, people, scored
):
    from django.core.exceptions import ValidationError

    from common.exceptions import Forbidden

    with pytest.raises(ValidationError, match="Say why"):
        declare(evaluation, owner, scored, reason="  ")
    with pytest.raises(Forbidden):
        declare(evaluation, people[MemberRole.EDITOR], scored)
    row = declare(evaluation, owner, scored)
    assert row.history.count() == 1 and row.history.first().history_user == owner
    groups = open_source(results(evaluation, owner))
    assert len(groups) == 1 and not groups[0].others
    assert [(c.solution.slug, rank) for c, rank in groups[0].ranked] == [
        ("slurm", 1),
        ("volcano", 2),
    ]
    assert groups[0].bed_label == f"{A800_LABEL} ≡ {ASCEND_LABEL}"
    snap = build_snapshot(evaluation, language="en", generated_at=GENERATED)
    assert snap["poc"]["bed_equivalences"][0]["reason"] == row.reason
    assert row.reason in report_html(snap, "0" * 64, "en", for_pdf=False)
    # Changing a bed ends the declaration's effect: compared apart again.
    bed = TestBed.objects.get(candidate=scored["volcano"])
    bed_save(
        user=owner,
        candidate=scored["volcano"],
        expected_version=bed.version,
        accelerator_count=8,
        nodes=1,
        **ASCEND,
    )
    assert len(open_source(results(evaluation, owner))) == 2


def test_the_equivalence_page_form_is_for_the_owner_only(client, evaluation, owner, people, scored):
    url = reverse("poc:bed_equivalence_declare", kwargs={"pk": evaluation.pk})
    data = {"first": scored["slurm"].pk, "second": scored["volcano"].pk, "reason": "Same runs."}
    client.force_login(people[MemberRole.EDITOR])
    page = client.get(reverse("poc:testbeds", kwargs={"pk": evaluation.pk})).content.decode()
    assert 'data-testid="equivalence-form"' not in page
    assert client.post(url, data).status_code == 403
    client.force_login(owner)
    assert client.post(url, {**data, "reason": ""}).status_code == 400
    assert not BedEquivalence.objects.exists()
    assert client.post(url, data).status_code == 302
    row = BedEquivalence.objects.get()
    page = client.get(reverse("poc:testbeds", kwargs={"pk": evaluation.pk})).content.decode()
    assert "Same runs." in page and 'data-testid="equivalence-form"' in page
    withdraw = reverse("poc:bed_equivalence_withdraw", kwargs={"pk": evaluation.pk})
    # Withdrawing on the page names no version (as for waivers); the API's DELETE takes one.
    assert client.post(withdraw, {"equivalence": row.pk}).status_code == 302
    assert not BedEquivalence.objects.filter(pk=row.pk).exists()
    assert not BedEquivalence.objects.exists()
    assert BedEquivalence.history.filter(history_type="-").count() == 1


def test_the_equivalence_api_is_owner_only_and_versioned(evaluation, owner, people, scored):
    url = f"/api/evaluations/{evaluation.pk}/poc/testbeds/equivalences/"
    data = {"first": scored["slurm"].pk, "second": scored["volcano"].pk, "reason": "Same runs."}
    assert api(people[MemberRole.EDITOR]).post(url, data).status_code == 403
    missing = api(owner).post(url, {**data, "reason": ""})
    assert missing.status_code == 400 and "reason" in missing.json()
    no_bed = api(owner).post(url, {**data, "second": scored["runai"].pk})
    assert no_bed.status_code == 400 and "second" in no_bed.json()
    made = api(owner).post(url, data)
    assert made.status_code == 201, made.content
    assert made.json()["first_test_bed"] == A800_LABEL
    listing = api(people[MemberRole.VIEWER]).get(url).json()
    assert [e["reason"] for e in listing] == ["Same runs."]
    body = api(owner).get(f"/api/evaluations/{evaluation.pk}/poc/results/").json()
    groups = [t for t in body["by_type"] if t["type"]["slug"] == "open-source"]
    assert len(groups) == 1 and groups[0]["test_bed"]["equivalences"][0]["reason"] == "Same runs."
    detail = f"{url}{made.json()['id']}/"
    assert api(people[MemberRole.EDITOR]).delete(detail, HTTP_IF_MATCH='"1"').status_code == 403
    assert api(owner).delete(detail).status_code == 428
    assert api(owner).delete(detail, HTTP_IF_MATCH='"1"').status_code == 204
    assert not BedEquivalence.objects.exists()
