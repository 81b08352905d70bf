"""The seeded catalog is complete, bilingual, sourced and written in our own words."""

import re
from pathlib import Path

import pytest
from django.core.management import call_command

from catalog.models import (
    Capability,
    CapabilityClaim,
    Scenario,
    ShortlistRule,
    Solution,
    SolutionType,
    Source,
    SupportLevel,
)
from catalog.services import SEED_FILE, catalog_load_seed

pytestmark = pytest.mark.django_db

SEEDS_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "seeds"
ROUTES = {
    "slurm",
    "kubernetes-gpu",
    "volcano",
    "kuberay",
    "runai",
    "cloud-managed-gpu",
    "enterprise-container-platform",
}


def translated_fields(model):
    from modeltranslation.translator import translator

    return translator.get_options_for_model(model).fields


def test_counts_match_the_method():
    assert set(SolutionType.objects.values_list("slug", flat=True)) == {
        "open-source",
        "cloud-managed",
        "enterprise-platform",
        "hybrid",
    }
    assert set(Scenario.objects.values_list("slug", flat=True)) == {
        "training",
        "inference",
        "research-hpc",
        "platform-governance",
    }
    assert set(Solution.objects.values_list("slug", flat=True)) >= ROUTES
    assert Capability.objects.count() >= 20


@pytest.mark.parametrize(
    "model,required",
    [
        (SolutionType, ("name", "fits", "boundary")),
        (Scenario, ("name", "description")),
        (Capability, ("name", "description")),
        (Solution, ("name", "maintainer", "summary", "focus_points", "limits")),
        (ShortlistRule, ("reason",)),
    ],
)
def test_every_text_exists_in_both_languages(model, required):
    assert set(required) <= set(translated_fields(model))
    for obj in model.objects.all():
        for field in required:
            for lang in ("en", "zh_hans"):
                value = getattr(obj, f"{field}_{lang}")
                assert value and value.strip(), f"{obj} has no {field}_{lang}"
        # The Chinese text is Chinese, not a copy of the English one.
        assert re.search(r"[\u4e00-\u9fff]", getattr(obj, f"{required[-1]}_zh_hans"))


def test_every_solution_has_a_claim_for_every_capability():
    n_caps = Capability.objects.count()
    for solution in Solution.objects.filter(slug__in=ROUTES):
        assert solution.claims.count() == n_caps, solution.slug


def test_every_known_claim_cites_a_source_and_a_version():
    known = CapabilityClaim.objects.exclude(level=SupportLevel.UNKNOWN).prefetch_related("sources")
    assert known.count() > 100
    for claim in known:
        assert claim.sources.all(), f"{claim} has no source"
        assert claim.as_of_version or claim.solution.slug == "enterprise-container-platform"
        assert claim.note_en and claim.note_zh_hans, f"{claim} has no note"


def test_levels_follow_the_fact_sheet_on_spot_checks():
    def level(solution, capability):
        return CapabilityClaim.objects.get(
            solution__slug=solution, capability__slug=capability
        ).level

    assert level("volcano", "gang-scheduling") == SupportLevel.NATIVE
    assert level("kubernetes-gpu", "gang-scheduling") == SupportLevel.ADDON
    assert level("slurm", "inference-serving") == SupportLevel.NONE
    # The fact sheet has "?"; read again on 2026-12-03: Kueue's MultiKueue dispatches RayJobs and
    # RayClusters to other clusters (managedBy), a separately installed component.
    assert level("kuberay", "hybrid-bursting") == SupportLevel.ADDON


def test_levels_follow_the_level_rules_where_they_were_corrected():
    """LEVEL_RULES (catalog/choices.py): what needs a separately installed component is an
    add-on, and what the product's own documentation was read for and does not offer is none
    (not unknown)."""

    def claim(solution, capability):
        return CapabilityClaim.objects.prefetch_related("sources").get(
            solution__slug=solution, capability__slug=capability
        )

    # vGPU and dynamic MIG need volcano-vgpu-device-plugin; GPU metrics the DCGM exporter.
    assert claim("volcano", "gpu-sharing").level == SupportLevel.ADDON
    assert claim("volcano", "gpu-monitoring").level == SupportLevel.ADDON
    assert claim("kubernetes-gpu", "gpu-sharing").level == SupportLevel.ADDON
    for solution, capability in (
        ("volcano", "cost-accounting"),
        ("kuberay", "backfill"),
        ("kuberay", "cost-accounting"),
        ("slurm", "canary-release"),
    ):
        found = claim(solution, capability)
        assert found.level == SupportLevel.NONE, found
        assert found.sources.all() and found.as_of_version, found
    # Read in the current KServe documentation, not in the 0.9 pages.
    canary = claim("kubernetes-gpu", "canary-release")
    assert canary.as_of_version == "KServe 0.20"
    assert all("/0.9/" not in s.url for s in canary.sources.all())
    assert "serverless" in canary.note_en
    # Corrected when the sources were read again on 2026-12-03.
    assert claim("volcano", "web-ui").level == SupportLevel.ADDON  # volcano-sh/dashboard
    assert "v1.37" in claim("kubernetes-gpu", "inference-serving").note_en
    assert claim("volcano", "inference-serving").as_of_version == "Kthena v1.0.0"
    assert "alpha FailureRecoveryPolicy" in claim("kueue", "job-failure-recovery").note_en
    # Product documentation and release notes, not vendor articles, issues or third-party mirrors.
    urls = [s.url for s in Source.objects.filter(claims__isnull=False).distinct()]
    assert not [u for u in urls if "alauda.cn/blog" in u]
    assert not [u for u in urls if "/issues/" in u or "pulumi.com" in u]


def test_shortlist_rules_cover_spec_1_4():
    expected = {
        "hpc_batch_queues": "slurm",
        "container_platform_inference": "kubernetes-gpu",
        "k8s_batch_jobs": "volcano",
        "ray_workloads": "kuberay",
        "multitenancy_utilisation": "runai",
        "single_cloud": "cloud-managed-gpu",
        "heterogeneous_accelerators": "enterprise-container-platform",
    }
    rules = ShortlistRule.objects.prefetch_related("solutions")
    for fact, slug in expected.items():
        assert any(
            fact in r.facts and slug in {s.slug for s in r.solutions.all()} for r in rules
        ), f"no rule puts {slug} on the shortlist for {fact}"


def test_loading_twice_changes_nothing(capsys):
    def state():
        return (
            CapabilityClaim.objects.count(),
            Solution.objects.count(),
            CapabilityClaim.history.count(),
            Solution.history.count(),
            sorted(CapabilityClaim.objects.values_list("pk", "version")),
        )

    before = state()
    call_command("seed_catalog")
    assert "Catalog loaded" in capsys.readouterr().out
    # Nothing saved again: no history record, no claim version moved (an open edit stays valid).
    assert state() == before


def test_load_refuses_a_sourceless_claim_and_saves_nothing(tmp_path):
    text = SEED_FILE.read_text(encoding="utf-8")
    # Break one claim: a native level with no sources.
    broken = re.sub(r"sources: \[[^\]]+\]", "sources: []", text, count=1)
    assert broken != text
    bad = tmp_path / "bad.yaml"
    bad.write_text(broken, encoding="utf-8")
    Solution.objects.filter(slug="slurm").update(licence="changed")
    with pytest.raises(Exception, match="source"):
        catalog_load_seed(path=bad)
    assert Solution.objects.get(slug="slurm").licence == "changed"


@pytest.mark.skipif(not SEEDS_DIR.is_dir(), reason="source articles are not beside the project")
def test_seed_texts_are_not_copied_from_the_source_articles():
    """No run of 14 or more Chinese characters from the articles appears in our texts."""
    ours = SEED_FILE.read_text(encoding="utf-8")
    for article in SEEDS_DIR.glob("*.txt"):
        for run in re.findall(r"[\u4e00-\u9fff，、]{14,}", article.read_text(encoding="utf-8")):
            for i in range(len(run) - 13):
                assert run[i : i + 14] not in ours, f"copied from {article.name}: {run}"
