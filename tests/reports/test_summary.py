"""The executive summary a signer reads first, its caveats, and the summarised change history."""

import io
import re

import pytest
from django.utils import timezone, translation
from pypdf import PdfReader

from catalog.models import CapabilityClaim, Source
from evaluations import services as evaluation_services
from evaluations.models import Evaluation, FiveQuestion, MemberRole
from reports.render import render_pdf
from reports.snapshot import build_snapshot, snapshot_sha256
from tests.conftest import make_user
from tests.factories import add_candidates, add_member
from tests.reports.test_snapshot import fill, render

pytestmark = pytest.mark.django_db

GENERATED = "2027-03-01T09:00:00+08:00"
PLACEHOLDER = "https://example.com/poc/proof-7731"
LANGUAGES = ["en", "zh-hans"]


@pytest.fixture
def reviewers(evaluation, people):
    from common import roles

    second = make_user(roles.REVIEWER, username="rev2")
    add_member(evaluation, second, MemberRole.REVIEWER)
    return [people[MemberRole.REVIEWER], second]


def plant_caveats(slug: str) -> dict:
    """Two unknown claims, one claim with neither source nor version, one checked long ago."""
    claims = list(
        CapabilityClaim.objects.filter(solution__slug=slug)
        .exclude(level="unknown")
        .select_related("capability")
        .order_by("capability__order", "pk")[:4]
    )
    unknown, unsourced, old = claims[:2], claims[2], claims[3]
    CapabilityClaim.objects.filter(pk__in=[c.pk for c in unknown]).update(level="unknown")
    unsourced.sources.clear()
    CapabilityClaim.objects.filter(pk=unsourced.pk).update(as_of_version="")
    source = Source.objects.create(
        key=f"old-page-{slug}",
        title="An old page",
        url="https://example.org/old",
        as_of="2020-01-05",
    )
    old.sources.set([source])
    CapabilityClaim.objects.filter(pk=old.pk).update(as_of_version="", checked_on=None)
    return {
        "unknown": [c.capability for c in unknown],
        "unsourced": unsourced.capability,
        "old": old.capability,
    }


@pytest.fixture
def proposal(evaluation, owner, reviewers):
    """A POC evaluation with a recorded but not final decision for Slurm, hard constraints,
    planted caveats and a placeholder evidence link."""
    evaluation = evaluation_services.evaluation_update(
        user=owner,
        evaluation=evaluation,
        expected_version=None,
        private_deployment_required=True,
        compliance_required=True,
    )
    slurm, runai = add_candidates(evaluation, owner, "slurm", "runai")
    fill(evaluation, owner, reviewers, [slurm, runai])
    evaluation_services.answer_save(
        user=owner,
        candidate=slurm,
        question=FiveQuestion.objects.get(key="compliance_evidence"),
        parties=["internal"],
        assessment="yes",
        explanation="See the accounting report.",
        evidence_url=PLACEHOLDER,
        expected_version=None,
    )
    evaluation_services.evaluation_transition(
        user=owner, evaluation=evaluation, to_status="poc", reason="Shortlist complete 5521."
    )
    evaluation_services.decision_save(
        user=owner,
        evaluation=Evaluation.objects.get(pk=evaluation.pk),
        chosen=[slurm],
        rationale="Slurm fits the HPC team.",
        decided_on=timezone.localdate(),
        decided_by="Review board",
        expected_version=0,
    )
    evaluation.planted = {"slurm": plant_caveats("slurm"), "runai": plant_caveats("runai")}
    planted = evaluation.planted["slurm"]
    evaluation.planted_slugs = [c.slug for c in [*planted["unknown"], planted["unsourced"]]]
    return evaluation


def pages(content: bytes) -> list[str]:
    return [page.extract_text() for page in PdfReader(io.BytesIO(content)).pages]


def text(language: str, message: str) -> str:
    with translation.override(language):
        return translation.gettext(message)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_summary_is_the_first_page_after_the_cover_and_says_draft(proposal, language):
    snap = build_snapshot(proposal, language=language, generated_at=GENERATED)
    pdf = render_pdf(snap, snapshot_sha256(snap), language)
    texts = pages(pdf.content)
    page = texts[1]
    assert page.lstrip().startswith(text(language, "Executive summary"))
    assert text(language, "Draft — no decision recorded") in page
    assert "Slurm" in page and "Slurm fits the HPC team." in page
    # The headline figures: cost with its currency and grouping, the POC's completeness.
    cost = snap["summary"]["focus"]["candidates"][0]["cost"]["total"]
    grouped = f"{int(float(cost)):,}"
    assert grouped in page and snap["summary"]["focus"]["currency"] in page
    assert "%" in page
    # The context tables start on a page of their own, after the summary.
    context = text(language, "Scenario and context")
    assert context not in page
    assert any(context in p for p in texts[2:])
    if language == "en":
        # A proposal in POC status never reads as a final choice.
        assert not re.search(r"\bChosen\b", page) and "Tools chosen" not in page
        assert "Tools proposed (not final)" in page


@pytest.mark.parametrize("language", LANGUAGES)
def test_only_a_final_status_prints_the_decision_as_chosen(proposal, language):
    snap = build_snapshot(proposal, language=language, generated_at=GENERATED)
    assert snap["summary"]["focus"]["basis"] == "proposed"
    assert snap["summary"]["chain"]["proposed"] and not snap["summary"]["chain"]["decided"]
    html = render(snap, language)
    assert 'data-testid="draft-statement"' in html and 'data-testid="final-decision"' not in html
    assert text(language, "3. Tools chosen") not in html
    Evaluation.objects.filter(pk=proposal.pk).update(status="decided")
    final = build_snapshot(proposal, language=language, generated_at=GENERATED)
    assert final["summary"]["focus"]["basis"] == "chosen" and final["summary"]["chain"]["decided"]
    html = render(final, language)
    assert 'data-testid="final-decision"' in html and 'data-testid="draft-statement"' not in html
    assert text(language, "3. Tools chosen") in html


def test_the_chosen_candidate_is_checked_against_the_hard_constraints(proposal):
    snap = build_snapshot(proposal, language="en", generated_at=GENERATED)
    (row,) = snap["summary"]["focus"]["candidates"]
    slurm = next(c for c in snap["candidates"] if c["name"] == "Slurm")
    expected = [(k["name"], k["verdict"]) for k in slurm["constraints"]]
    assert expected and [(k["name"], k["verdict"]) for k in row["constraints"]] == expected
    html = render(snap, "en")
    glance = html.split('data-testid="summary-glance"', 1)[1].split("</table>", 1)[0]
    for k in row["constraints"]:
        assert k["name"] in glance and f'verdict-{k["verdict"]}">{k["verdict_label"]}' in glance
    # Only the chosen candidate is on the glance table.
    assert "Run:ai" not in glance


@pytest.mark.parametrize("language", LANGUAGES)
def test_caveats_list_the_chosen_candidates_unknown_and_stale_claims(proposal, language):
    with translation.override(language):  # capability names are translated
        planted = {
            slug: {
                "unknown": [c.name for c in caps["unknown"]],
                "unsourced": caps["unsourced"].name,
                "old": caps["old"].name,
            }
            for slug, caps in proposal.planted.items()
        }
    snap = build_snapshot(proposal, language=language, generated_at=GENERATED)
    caveats = snap["summary"]["caveats"]
    (slurm,) = caveats["candidates"]  # Run:ai is not chosen: its caveats are not listed
    assert slurm["name"] == "Slurm"
    assert set(planted["slurm"]["unknown"]) <= set(slurm["unknown"])
    stale = {s["capability"]: s for s in slurm["stale"]}
    assert stale[planted["slurm"]["unsourced"]]["reason"] == "unsourced"
    assert stale[planted["slurm"]["old"]] | {"layer": ""} == {
        **stale[planted["slurm"]["old"]],
        "reason": "stale",
        "checked": "2020-01-05",
    }
    html = render(snap, language)
    block = html.split('data-testid="caveats"', 1)[1].split("</div>\n", 2)[0]
    for name in [
        *planted["slurm"]["unknown"],
        planted["slurm"]["unsourced"],
        planted["slurm"]["old"],
    ]:
        assert name in html.split('data-testid="caveats"', 1)[1]
    assert block
    assert ("2020年1月5日" if language == "zh-hans" else "Jan. 5, 2020") in html


def test_before_a_decision_the_caveats_cover_the_shortlist(proposal, owner):
    proposal.decision.delete()
    snap = build_snapshot(proposal, language="en", generated_at=GENERATED)
    assert snap["summary"]["focus"]["basis"] == "shortlist"
    names = [c["name"] for c in snap["summary"]["caveats"]["candidates"]]
    assert names == ["Slurm", "NVIDIA Run:ai"]
    html = render(snap, "en")
    assert "No candidate has been proposed yet" in html


@pytest.mark.parametrize("language", LANGUAGES)
def test_placeholder_evidence_is_not_presented_as_a_link(proposal, language):
    snap = build_snapshot(proposal, language=language, generated_at=GENERATED)
    assert snap["summary"]["caveats"]["placeholder_links"] == 1
    html = render(snap, language)
    assert PLACEHOLDER not in html and "example.org/old" not in html
    label = text(language, "placeholder — not evidence")
    # The answer's link, and the old source each candidate's planted claim cites.
    assert html.count('data-testid="placeholder-evidence"') == 3
    pdf = render_pdf(snap, snapshot_sha256(snap), language)
    content = "\n".join(pages(pdf.content))
    # The caveat names the kind of address once, in words ("such as example.com").
    assert "example.com" not in content.replace("(such as example.com)", "").replace(
        "（如 example.com）", ""
    )
    assert label in content


def test_the_history_appendix_counts_and_keeps_only_the_decisive_changes(proposal, owner):
    for n in range(25):
        evaluation_services.evaluation_update(
            user=owner, evaluation=proposal, expected_version=None, notes=f"Trivial note {n}."
        )
    snap = build_snapshot(proposal, language="en", generated_at=GENERATED)
    history = snap["appendix"]["history"]
    kinds = {k["kind"]: k["count"] for k in history["by_kind"]}
    # Its creation and setup, 25 notes, the status change: every record is counted.
    assert kinds["evaluation"] == Evaluation.history.filter(id=proposal.pk).count() >= 27
    assert history["total"] == sum(kinds.values())
    decisive = history["decisive"]
    assert [d["kind"] for d in decisive].count("status") == 1
    assert {d["kind"] for d in decisive} == {"status", "decision"}
    status = next(d for d in decisive if d["kind"] == "status")
    assert status["reason"] == "Shortlist complete 5521." and status["object"] == "Draft → POC"
    html = render(snap, "en")
    assert "Trivial note" not in html.split('data-testid="history-kinds"', 1)[1]
    assert "Shortlist complete 5521." in html
    assert f"{history['total']} recorded changes in total" in html
    assert not re.search(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}", html)


def test_the_owners_allowances_are_decisive(proposal, owner, reviewers):
    from poc.conflicts import allowance_grant, declaration_save
    from poc.models import ConflictDeclaration

    reviewer = reviewers[0]
    runai = proposal.candidates.get(solution__slug="runai")
    declaration = ConflictDeclaration.objects.get(candidate=runai, member=reviewer)
    declaration = declaration_save(
        user=reviewer,
        candidate=runai,
        has_conflict=True,
        description="Worked for the vendor.",
        expected_version=declaration.version,
    )
    allowance_grant(
        user=owner,
        declaration=declaration,
        reason="Ended long ago 8812.",
        expected_version=declaration.version,
    )
    snap = build_snapshot(proposal, language="en", generated_at=GENERATED)
    decisive = snap["appendix"]["history"]["decisive"]
    allowed = [d for d in decisive if d["kind"] == "conflictdeclaration"]
    assert len(allowed) == 1 and "Ended long ago 8812." in allowed[0]["details"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_claim_about_an_older_release_than_the_latest_is_a_caveat(proposal, language):
    """catalog.freshness: Slurm's latest known release moved a minor release past what its
    claims describe, so every dated-by-version claim of the chosen candidate is a caveat."""
    from catalog.models import Solution

    described = set(
        CapabilityClaim.objects.filter(solution__slug="slurm", as_of_version="26.05.3")
        .exclude(level="unknown")
        .values_list("capability__slug", flat=True)
    )
    assert described
    Solution.objects.filter(slug="slurm").update(release_version="26.11.0")
    snap = build_snapshot(proposal, language=language, generated_at=GENERATED)
    (slurm,) = snap["summary"]["caveats"]["candidates"]
    behind = [s for s in slurm["stale"] if s["reason"] == "behind"]
    assert len(behind) == len(described - set(proposal.planted_slugs))
    assert all("26.05.3" in s["reason_label"] and "26.11.0" in s["reason_label"] for s in behind)
    assert behind[0]["reason_label"] in render(snap, language)


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_summary_never_spills_onto_a_page_of_its_own(proposal, language):
    """The summary is one page; the page after it begins the context section (a line of the
    summary alone on page 3 is what the print CSS must prevent)."""
    snap = build_snapshot(proposal, language=language, generated_at=GENERATED)
    texts = pages(render_pdf(snap, snapshot_sha256(snap), language).content)
    header, number = texts[1].splitlines()[0], re.compile(r"^\s*\d+ / \d+\s*$")
    body = [
        line
        for line in texts[2].splitlines()
        if line.strip() and line != header and not number.match(line)
    ]
    assert body[0].strip() == text(language, "Scenario and context"), body[:3]


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_summary_longer_than_a_page_runs_on_into_the_context(proposal, language):
    """A summary that does not fit its page (here a long rationale) continues on the next page
    and the context follows it there, instead of its last lines standing alone on a page."""
    snap = build_snapshot(proposal, language=language, generated_at=GENERATED)
    reasons = [f"Reason {n}: the board weighed this point at length." for n in range(1, 41)]
    snap["summary"]["decision"]["rationale"] = "\n".join(reasons)
    texts = pages(render_pdf(snap, snapshot_sha256(snap), language).content)
    caveats = text(language, "Caveats")
    assert caveats not in texts[1] and caveats in texts[2]  # the summary does spill
    context = text(language, "Scenario and context")
    assert context not in texts[1] and context in texts[2], [t[:200] for t in texts[1:4]]
