"""The building blocks, one entry per cloud, accelerator families and checked-on days: what the
seed holds, how a "which cloud?" answer picks its cloud's entry, and where users see them."""

import datetime

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from catalog.freshness import checked_on
from catalog.models import (
    AcceleratorFamily,
    AcceleratorSupport,
    CapabilityClaim,
    ShortlistRule,
    Solution,
    Source,
    SupportLevel,
)
from catalog.selectors import claim_freshness
from evaluations.selectors import rule_solutions, shortlist_suggest
from tests.factories import make_evaluation

pytestmark = pytest.mark.django_db

BUILDING_BLOCKS = {
    "kueue",
    "hami",
    "nvidia-gpu-operator",
    "kubernetes-dra",
    "kai-scheduler",
    "koordinator",
}
CLOUDS = {
    "alibaba-cloud",
    "huawei-cloud",
    "tencent-cloud",
    "baidu-ai-cloud",
    "volcano-engine",
    "aws",
    "google-cloud",
    "azure",
}
# The days the seeded sources and claims were read (the first day sources carried one, then
# the re-reads of the sources seeded before it).
CHECKED_DAYS = {datetime.date(2026, 12, d) for d in (1, 2, 3, 4)}


def test_building_blocks_and_clouds_are_entries_of_their_own():
    slugs = set(Solution.objects.values_list("slug", flat=True))
    assert slugs >= BUILDING_BLOCKS | CLOUDS
    for slug in BUILDING_BLOCKS | CLOUDS:
        solution = Solution.objects.get(slug=slug)
        sourced = solution.claims.exclude(level=SupportLevel.UNKNOWN)
        assert sourced.count() >= 10, slug
        assert solution.name_zh_hans and solution.summary_zh_hans
    assert Solution.objects.get(slug="kueue").solution_type.slug == "open-source"
    assert {s.solution_type.slug for s in Solution.objects.filter(slug__in=CLOUDS)} == {
        "cloud-managed"
    }


def test_every_source_and_every_sourced_claim_has_the_day_it_was_checked():
    for source in Source.objects.filter(key__regex=r"^(BB|CN|GL|ACC)-"):
        assert source.checked_on == datetime.date(2026, 12, 1), source.key
    assert Source.objects.filter(key__regex=r"^(BB|CN|GL|ACC)-").count() >= 100
    assert set(Source.objects.values_list("checked_on", flat=True)) <= CHECKED_DAYS
    for rows in (CapabilityClaim.objects, AcceleratorSupport.objects):
        sourced = rows.exclude(level=SupportLevel.UNKNOWN)
        assert sourced.exists()
        assert set(sourced.values_list("checked_on", flat=True)) <= CHECKED_DAYS
        assert not sourced.filter(as_of_version="").exists()


def test_a_checked_on_day_makes_an_old_page_fresh_again():
    claim = (
        CapabilityClaim.objects.exclude(level=SupportLevel.UNKNOWN)
        .filter(sources__isnull=False)
        .select_related("solution")
        .first()
    )
    claim.checked_on = None
    source = claim.sources.first()
    Source.objects.filter(pk=source.pk).update(as_of="docs read 2020-01-05", checked_on=None)
    claim.sources.set([source])
    claim.as_of_version = "docs as of 2020"
    claim.save()
    claim.solution.latest_version = ""
    on = datetime.date(2026, 12, 1)
    assert claim_freshness(claim, on=on).stale
    claim.checked_on = datetime.date(2026, 11, 20)
    fresh = claim_freshness(claim, on=on)
    assert not fresh.stale and fresh.checked == datetime.date(2026, 11, 20)
    assert checked_on(["2020", "2026-11-20"]) == datetime.date(2026, 11, 20)


@pytest.mark.parametrize(
    "detail,expected",
    [
        ("Aliyun", {"alibaba-cloud"}),
        ("我们主要用阿里云", {"alibaba-cloud"}),
        ("华为云 CCE", {"huawei-cloud"}),
        ("Tencent TKE", {"tencent-cloud"}),
        ("百度智能云", {"baidu-ai-cloud"}),
        ("火山引擎", {"volcano-engine"}),
        ("AWS and Azure", {"aws", "azure"}),
        ("GKE", {"google-cloud"}),
        ("our own data centre", {"cloud-managed-gpu"}),
        ("", {"cloud-managed-gpu"}),
        ("Volcano scheduler on premises", {"cloud-managed-gpu"}),  # not Volcano Engine
        ("a stack of our own", {"cloud-managed-gpu"}),  # "ACK" only as a whole word
    ],
)
def test_which_cloud_picks_the_entry_the_answer_names(detail, expected):
    rule = ShortlistRule.objects.get(key="single-cloud")
    assert rule.by_detail
    assert {s.slug for s in rule_solutions(rule, {"single_cloud": detail})} == expected


def test_the_shortlist_suggests_the_named_cloud(owner):
    from evaluations.models import AnswerValue, ContextAnswer, ContextQuestion

    evaluation = make_evaluation(owner)
    question = ContextQuestion.objects.get(key="single_cloud")
    answer = ContextAnswer.objects.create(
        evaluation=evaluation,
        question=question,
        value=AnswerValue.YES,
        detail="Huawei Cloud",
        updated_by=owner,
    )
    assert [s.solution.slug for s in shortlist_suggest(evaluation)] == ["huawei-cloud"]
    answer.detail = ""
    answer.save()
    assert [s.solution.slug for s in shortlist_suggest(evaluation)] == ["cloud-managed-gpu"]


def test_batch_and_mixed_accelerator_rules_name_the_building_blocks():
    def solutions(key):
        return set(ShortlistRule.objects.get(key=key).solutions.values_list("slug", flat=True))

    assert solutions("k8s-batch-jobs") == {"volcano", "kueue"}
    assert solutions("mixed-accelerators") == {"hami", "volcano"}


def test_accelerator_support_is_recorded_per_family_with_sources():
    domestic = set(AcceleratorFamily.objects.filter(is_domestic=True).values_list("slug", flat=1))
    assert {"ascend", "cambricon-mlu", "hygon-dcu", "kunlunxin-xpu"} <= domestic
    assert "nvidia" not in domestic
    for row in AcceleratorSupport.objects.prefetch_related("sources"):
        # every row, unknown ones too, says what was read and when
        assert row.sources.all() and row.as_of_version and row.note_zh_hans, row
        assert row.checked_on, row
    hami = {
        r.family.slug: r.level
        for r in AcceleratorSupport.objects.filter(solution__slug="hami").select_related("family")
    }
    assert {"ascend", "cambricon-mlu", "hygon-dcu", "kunlunxin-xpu"} <= set(hami)
    slurm = AcceleratorSupport.objects.get(solution__slug="slurm", family__slug="ascend")
    assert slurm.level == SupportLevel.PARTIAL  # declared by hand as generic GRES


def test_the_solution_page_shows_accelerator_families_and_what_is_unknown(client, tech_lead):
    client.force_login(tech_lead)
    page = client.get(reverse("catalog:solution_detail", kwargs={"slug": "hami"}))
    body = page.content.decode()
    assert page.status_code == 200
    assert 'data-testid="accelerator-table"' in body
    assert "Cambricon MLU" in body and "checked 2026-12-01" in body
    baidu = client.get(reverse("catalog:solution_detail", kwargs={"slug": "baidu-ai-cloud"}))
    table = baidu.content.decode().split('data-testid="accelerator-table"')[1]
    assert "Huawei Ascend NPU" in table and "do not name" in table  # unknown, with what was read
    assert 'data-testid="accelerators-unknown"' not in baidu.content.decode()
    AcceleratorSupport.objects.filter(solution__slug="slurm", family__slug="ascend").delete()
    slurm = client.get(reverse("catalog:solution_detail", kwargs={"slug": "slurm"}))
    gap = slurm.content.decode().split('data-testid="accelerators-unknown"')[1]
    assert "Huawei Ascend NPU" in gap.split("</p>")[0]
    chinese = client.get(
        reverse("catalog:solution_detail", kwargs={"slug": "alibaba-cloud"}),
        headers={"Accept-Language": "zh-hans"},
    )
    assert "阿里云" in chinese.content.decode()


def test_the_api_lists_support_and_refuses_a_sourceless_level(admin_user):
    api = APIClient()
    api.force_authenticate(admin_user)
    listed = api.get("/api/catalog/accelerator-support/", {"family__slug": "ascend"})
    assert listed.status_code == 200
    rows = listed.json()
    rows = rows["results"] if isinstance(rows, dict) else rows
    assert rows and {r["family"] for r in rows} == {"ascend"}
    refused = api.post(
        "/api/catalog/accelerator-support/",
        {"solution": "slurm", "family": "ascend", "level": "native", "sources": []},
        format="json",
    )
    assert refused.status_code == 400
    kept = AcceleratorSupport.objects.get(solution__slug="slurm", family__slug="ascend")
    assert kept.level == SupportLevel.PARTIAL


def test_the_kubernetes_ecosystem_is_a_reference_stack_of_its_parts(client, owner):
    k8s = Solution.objects.get(slug="kubernetes-gpu")
    assert k8s.reference_layers() == {
        "execution": "nvidia-gpu-operator",
        "batch_queue": "kueue",
        "other": "hami",
    }
    client.force_login(owner)
    page = client.get(reverse("catalog:solution_detail", kwargs={"slug": "kubernetes-gpu"}))
    parts = page.content.decode().split('data-testid="reference-parts"')[1].split("</dd>")[0]
    assert "Kueue" in parts and "HAMi" in parts
    evaluation = make_evaluation(owner)
    url = reverse("evaluations:evaluation_shortlist", kwargs={"pk": evaluation.pk})
    offered = client.get(url, {"reference": "kubernetes-gpu"}).content.decode()
    form = offered.split('data-testid="compose-stack"')[1].split("</form>")[0]
    assert 'value="Kubernetes GPU ecosystem"' in form
    for slug in ("nvidia-gpu-operator", "kueue", "hami"):
        assert f'<option value="{slug}" selected>' in form
    added = client.post(
        url,
        {
            "action": "stack",
            "name": "Kubernetes GPU ecosystem",
            "main": "batch_queue",
            "layer_execution": "nvidia-gpu-operator",
            "layer_batch_queue": "kueue",
            "layer_other": "hami",
            "reason": "The reference stack, as one candidate.",
        },
    )
    assert added.status_code == 302
    stack = evaluation.candidates.get(stack_name="Kubernetes GPU ecosystem")
    assert sorted(layer.solution.slug for layer in stack.stack_layers) == [
        "hami",
        "kueue",
        "nvidia-gpu-operator",
    ]


def test_a_reference_stack_must_name_existing_entries():
    from django.core.exceptions import ValidationError

    k8s = Solution.objects.get(slug="kubernetes-gpu")
    k8s.reference_stack = {"main": "execution", "layers": {"execution": "no-such-entry"}}
    with pytest.raises(ValidationError, match="no-such-entry"):
        k8s.full_clean()
    k8s.reference_stack = ["kueue"]
    with pytest.raises(ValidationError):
        k8s.full_clean()
