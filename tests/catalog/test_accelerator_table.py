"""The accelerator table without holes (catalog/accelerators.py): every entry has a row for
every family, "unknown" only with what was read and when, and no row contradicts the entry's
accelerator claims."""

import pytest

from catalog.accelerators import table_problems
from catalog.models import AcceleratorFamily, AcceleratorSupport, CapabilityClaim, Solution

pytestmark = pytest.mark.django_db


def test_the_seeded_table_has_no_holes_and_no_contradictions():
    assert table_problems() == []
    assert AcceleratorSupport.objects.count() == (
        Solution.objects.filter(is_active=True).count() * AcceleratorFamily.objects.count()
    )


def test_the_entries_the_issue_named_now_have_sourced_rows():
    for slug in ("enterprise-container-platform", "huawei-cloud", "tencent-cloud", "azure"):
        rows = AcceleratorSupport.objects.filter(solution__slug=slug)
        assert rows.count() == AcceleratorFamily.objects.count()
        assert all(r.sources.exists() and r.checked_on for r in rows)
    ecp = AcceleratorSupport.objects.get(
        solution__slug="enterprise-container-platform", family__slug="ascend"
    )
    assert ecp.level == "add-on"
    runai = AcceleratorSupport.objects.get(solution__slug="runai", family__slug="ascend")
    assert runai.level == "none"
    assert {s.key for s in runai.sources.all()} >= {"RA-sm"}
    claim = CapabilityClaim.objects.get(
        solution__slug="runai", capability__slug="localised-accelerators"
    )
    assert "RA-amd" not in {s.key for s in claim.sources.all()}


def test_a_row_supporting_ascend_contradicts_an_nvidia_only_claim():
    AcceleratorSupport.objects.filter(solution__slug="runai", family__slug="ascend").update(
        level="native"
    )
    problems = table_problems()
    assert "runai/ascend: supported, but the localised-accelerators claim says none" in problems
    assert any(p.startswith("runai: several families supported") for p in problems)


def test_a_family_a_claim_names_cannot_be_unknown_or_missing():
    AcceleratorSupport.objects.filter(
        solution__slug="enterprise-container-platform", family__slug="ascend"
    ).update(level="unknown")
    assert (
        "enterprise-container-platform/ascend: the heterogeneous-accelerators claim names it, "
        "but its row is not supported"
    ) in table_problems()
    AcceleratorSupport.objects.filter(solution__slug="tencent-cloud", family__slug="amd").delete()
    assert "tencent-cloud/amd: no row" in table_problems()


def test_an_unknown_row_must_say_what_was_read_and_when():
    row = AcceleratorSupport.objects.get(solution__slug="baidu-ai-cloud", family__slug="nvidia")
    row.sources.clear()
    assert "baidu-ai-cloud/nvidia: unknown without what was read and when" in table_problems()
