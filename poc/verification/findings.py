"""POC results fed back into the facts: which catalog capabilities this evaluation's POC
verified or contradicted for each candidate.

Each plan case names the capabilities it verifies (`PlanCase.verified_capabilities`). A cell's
agreed score (poc.scoring.cell_value: the consensus when recorded, otherwise the reviewers'
agreed value) is read against the rubric, where 3 means "meets the acceptance criteria":

    agreed >= 3  -> the case passed: its capabilities are verified in this POC
    agreed <  3  -> the case failed: its capabilities are contradicted by the POC
    unscored     -> nothing

A capability verified by several cases is contradicted as soon as one of them failed (a failure
is evidence the claim does not hold as tested); the finding lists both kinds of case.

Blind scoring holds: the cell values come from `poc.selectors.scorecard(evaluation, user)`, so
a cell hidden from the viewer (others scored it, they have not yet) counts as unscored here,
and `hidden` says how many verifying cells were left out for that reason.

The global catalog is never changed from here: staff review the findings across evaluations
(`review.findings_page`, the staff page) and update claims themselves.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Prefetch, prefetch_related_objects

from catalog.models import Capability, CapabilityClaim
from evaluations.stacks import combine

from ..models import PlanCase, Score
from ..selectors import Scorecard, scorecard
from ..testbeds.models import TestBed

MEETS = Decimal("3")  # rubric 3: meets the acceptance criteria

VERIFIED = "verified"
CONTRADICTED = "contradicted"


# --- the pure rule ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    status: str  # VERIFIED or CONTRADICTED
    passed: tuple[str, ...] = ()  # case keys that met the acceptance criteria
    failed: tuple[str, ...] = ()  # case keys that did not

    @property
    def verified(self) -> bool:
        return self.status == VERIFIED


def outcome(value: Decimal | None) -> str | None:
    """A cell's agreed score read against the rubric: VERIFIED, CONTRADICTED or None."""
    if value is None:
        return None
    return VERIFIED if value >= MEETS else CONTRADICTED


def derive(
    cases: list[tuple[str, tuple[str, ...]]],
    cell_values: dict[tuple[str, str], Decimal | None],
    candidates: list[str],
) -> dict[str, dict[str, Finding]]:
    """candidate key -> capability key -> Finding, from (case key, capability keys) and the
    cells' agreed values (keyed (case key, candidate key), None for unscored or hidden)."""
    out: dict[str, dict[str, Finding]] = {}
    for cand in candidates:
        passed: dict[str, list[str]] = {}
        failed: dict[str, list[str]] = {}
        for case_key, capabilities in cases:
            result = outcome(cell_values.get((case_key, cand)))
            if result is None:
                continue
            target = passed if result == VERIFIED else failed
            for cap in capabilities:
                target.setdefault(cap, []).append(case_key)
        findings = {}
        for cap in sorted(set(passed) | set(failed)):
            status = CONTRADICTED if cap in failed else VERIFIED
            findings[cap] = Finding(status, tuple(passed.get(cap, ())), tuple(failed.get(cap, ())))
        out[cand] = findings
    return out


# --- reads -----------------------------------------------------------------------------------


# What `PlanCase.verified_capabilities` reads, for lists of plan cases.
CASE_CAPABILITIES = (
    Prefetch("verifies", queryset=Capability.objects.select_related("group")),
    Prefetch("source_case__verifies", queryset=Capability.objects.select_related("group")),
)


def verifying_cases(evaluation) -> list[PlanCase]:
    """The evaluation's plan cases with their capabilities (two prefetches)."""
    capabilities = Capability.objects.select_related("group")
    return list(
        evaluation.poc_cases.select_related("group", "source_case").prefetch_related(
            Prefetch("verifies", queryset=capabilities),
            Prefetch("source_case__verifies", queryset=capabilities),
        )
    )


@dataclass
class CapabilityFinding:
    capability: Capability
    finding: Finding
    cases: list[PlanCase]  # the cases behind it, passed first
    claim: CapabilityClaim | None  # the catalog's claim for the candidate (a stack: its best)

    @property
    def verified(self) -> bool:
        return self.finding.verified

    @property
    def failed_cases(self) -> list[PlanCase]:
        return [c for c in self.cases if str(c.pk) in self.finding.failed]

    @property
    def passed_cases(self) -> list[PlanCase]:
        return [c for c in self.cases if str(c.pk) in self.finding.passed]


@dataclass
class CandidateFindings:
    candidate: object  # evaluations.Candidate
    bed: TestBed | None
    findings: list[CapabilityFinding] = field(default_factory=list)

    @property
    def version(self) -> str:
        return self.bed.product_version if self.bed else ""

    @property
    def verified(self) -> list[CapabilityFinding]:
        return [f for f in self.findings if f.verified]

    @property
    def contradicted(self) -> list[CapabilityFinding]:
        return [f for f in self.findings if not f.verified]


@dataclass
class Verification:
    candidates: list[CandidateFindings]
    capabilities: list[Capability]  # every capability the plan verifies, in catalog order
    hidden: int  # verifying cells hidden from the viewer by blind scoring

    def matrix(self) -> list[tuple[Capability, list[CapabilityFinding | None]]]:
        """Capabilities × candidates, for the comparison."""
        by = [{f.capability.pk: f for f in c.findings} for c in self.candidates]
        return [(cap, [b.get(cap.pk) for b in by]) for cap in self.capabilities]

    def for_candidate(self, candidate) -> CandidateFindings | None:
        return next((c for c in self.candidates if c.candidate.pk == candidate.pk), None)

    @property
    def any(self) -> bool:
        return any(c.findings for c in self.candidates)


def _claims(candidates) -> dict[int, dict[int, CapabilityClaim]]:
    """candidate pk -> capability pk -> the candidate's catalog claim (a stack's best layer)."""
    prefetch_related_objects(candidates, "layers")
    solutions = {c.solution_id for c in candidates}
    layers = {c.pk: c.stack_layers for c in candidates}
    for ls in layers.values():
        solutions |= {layer.solution_id for layer in ls}
    by_solution: dict[int, list[CapabilityClaim]] = {pk: [] for pk in solutions}
    for claim in CapabilityClaim.objects.filter(solution_id__in=solutions):
        by_solution[claim.solution_id].append(claim)
    out = {}
    for c in candidates:
        if layers[c.pk]:
            combined = combine([(layer, by_solution[layer.solution_id]) for layer in layers[c.pk]])
        else:
            combined = combine([(None, by_solution[c.solution_id])])
        out[c.pk] = {pk: claim for pk, (_layer, claim) in combined.items()}
    return out


def poc_verification(
    evaluation, user, *, see_all: bool | None = None, card: Scorecard | None = None
) -> Verification:
    """What this evaluation's POC verified and contradicted, as `user` may see it (or as
    `card`, a scorecard already read for them, shows it)."""
    if card is None:
        card = scorecard(evaluation, user, see_all=see_all, rows=False)  # values are enough
    all_cases = card.all_cases
    prefetch_related_objects(all_cases, *CASE_CAPABILITIES)
    cases = [c for c in all_cases if c.verified_capabilities()]
    caps_of = {str(c.pk): c.verified_capabilities() for c in cases}
    case_of = {str(c.pk): c for c in cases}
    capability_of = {cap.slug: cap for caps in caps_of.values() for cap in caps}
    keys = [str(c.pk) for c in card.candidates]
    derived = derive(
        [(k, tuple(cap.slug for cap in caps)) for k, caps in caps_of.items()],
        card.cell_values,
        keys,
    )
    hidden = sum(1 for case_pk, _candidate in card.hidden_keys if str(case_pk) in caps_of)
    beds = {b.candidate_id: b for b in TestBed.objects.filter(candidate__in=card.candidates)}
    claims = _claims(card.candidates)
    order = {cap.pk: (cap.group.order, cap.order, cap.pk) for cap in capability_of.values()}
    out = []
    for candidate in card.candidates:
        findings = []
        for slug, finding in derived[str(candidate.pk)].items():
            cap = capability_of[slug]
            behind = [case_of[k] for k in finding.passed + finding.failed]
            findings.append(
                CapabilityFinding(cap, finding, behind, claims[candidate.pk].get(cap.pk))
            )
        findings.sort(key=lambda f: order[f.capability.pk])
        out.append(CandidateFindings(candidate, beds.get(candidate.pk), findings))
    capabilities = sorted(capability_of.values(), key=lambda cap: order[cap.pk])
    return Verification(out, capabilities, hidden)


def shortlist_facts(evaluation, user) -> dict[int, CandidateFindings]:
    """Candidate pk -> its findings, for the shortlist (contributed: evaluations.extensions)."""
    if not Score.objects.filter(case__evaluation=evaluation, submitted_at__isnull=False).exists():
        return {}  # nothing scored yet: nothing verified (one query, not a scorecard)
    verification = poc_verification(evaluation, user)
    return {cf.candidate.pk: cf for cf in verification.candidates if cf.findings}
