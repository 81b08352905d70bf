"""`manage.py catalog_summary`: the per-entry counts of sourced, unknown and stale claims that
the catalog table of the documentation shows (docs/guide/admin.md, "The seeded catalog"), checked
against the catalog and against that page."""

import io
import re
from datetime import date
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from catalog.models import CapabilityClaim, Solution, Source, SupportLevel
from catalog.selectors import catalog_counts

pytestmark = pytest.mark.django_db

PAGE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "admin.md"
BLOCK = re.compile(r"<!-- catalog-summary:start -->\n(.*?)\n<!-- catalog-summary:end -->", re.S)


def summary(*args) -> str:
    out = io.StringIO()
    call_command("catalog_summary", *args, stdout=out)
    return out.getvalue().rstrip("\n")


def test_the_documented_table_is_what_the_command_prints():
    block = BLOCK.search(PAGE.read_text(encoding="utf-8")).group(1)
    on = re.match(r"As of (\d{4}-\d{2}-\d{2}):", block).group(1)
    assert block == summary("--on", on), "run manage.py catalog_summary and paste its output"


def test_counts_follow_each_claim(django_assert_max_num_queries):
    with django_assert_max_num_queries(3):
        rows = {row.solution.slug: row for row in catalog_counts(on=date(2026, 12, 1))}
    assert set(rows) == set(Solution.objects.filter(is_active=True).values_list("slug", flat=True))
    for slug, row in rows.items():
        claims = CapabilityClaim.objects.filter(solution__slug=slug)
        unknown = claims.filter(level=SupportLevel.UNKNOWN).count()
        sourced = claims.exclude(level=SupportLevel.UNKNOWN).filter(sources__isnull=False)
        assert (row.claims, row.unknown) == (claims.count(), unknown), slug
        assert row.sourced == sourced.distinct().count(), slug
        assert row.none == sourced.filter(level=SupportLevel.NONE).distinct().count(), slug


def test_a_claim_checked_long_ago_counts_as_stale_and_one_without_backing_as_unsourced():
    on = date(2026, 12, 1)
    before = {row.solution.slug: row for row in catalog_counts(on=on)}["slurm"]
    claim = CapabilityClaim.objects.filter(
        solution__slug="slurm", level=SupportLevel.NATIVE
    ).first()
    old = Source.objects.create(key="old-page", title="An old page", as_of="page dated 2024-01-05")
    claim.sources.set([old])
    claim.as_of_version = ""
    claim.checked_on = None
    claim.save()
    other = (
        CapabilityClaim.objects.filter(solution__slug="slurm", level=SupportLevel.NATIVE)
        .exclude(pk=claim.pk)
        .first()
    )
    other.sources.clear()
    other.as_of_version = ""
    other.save()
    after = {row.solution.slug: row for row in catalog_counts(on=on)}["slurm"]
    assert after.stale == before.stale + 1
    assert after.unsourced == before.unsourced + 1
    assert after.sourced == before.sourced - 1
    assert "| Slurm | Open-source tool | 27 |" in summary("--on", on.isoformat())


def test_names_in_chinese_and_a_bad_date_refused():
    assert "| 企业级容器平台 |" in summary("--on", "2026-12-01", "--language", "zh-hans")
    with pytest.raises(CommandError, match="YYYY-MM-DD"):
        summary("--on", "1 December")
