"""Hard constraints checked against the catalog.

An evaluation carries a constraint when its flag is set or one of its facts is answered yes
(`Constraint`). For every shortlisted candidate and every carried constraint, each capability the
constraint needs is read from the candidate's catalog claim:

    native, via add-on -> met          partial -> partial
    none               -> violates     unknown, or no claim -> unverified

and the constraint's verdict is the worst of its capabilities. A constraint that checks the named
accelerator families reads each family's AcceleratorSupport row the same way. An "unknown" row
says what was read and when, and is unverified; a family with no row at all is unverified too,
marked `missing` (a hole in the catalog, which the suite keeps from happening for seeded
entries), so a lack of data is shown as such instead of passing for a finding.
A stack's claim for a capability is the best of its layers' claims, and the check names the
layer (`evaluations.stacks`). A violated constraint keeps a decision that chooses the candidate
from being recorded, unless the owner waived it with a reason.
Pages, the API, reminders, the decided gate and the report all read `constraint_checks`.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Prefetch
from django.utils.translation import gettext_lazy as _

from catalog.models import AcceleratorFamily, AcceleratorSupport, CapabilityClaim, SupportLevel

from .models import Constraint, ConstraintWaiver
from .selectors import EvaluationData
from .stacks import best_claim, combine, constraint_claims


class Verdict:
    MET = "met"
    PARTIAL = "partial"
    UNVERIFIED = "unverified"
    VIOLATES = "violates"

    LABELS = {
        MET: _("Met"),
        PARTIAL: _("Partial"),
        UNVERIFIED: _("Unverified"),
        VIOLATES: _("Violates"),
    }
    ORDER = [MET, PARTIAL, UNVERIFIED, VIOLATES]  # from best to worst


LEVEL_VERDICT = {
    SupportLevel.NATIVE: Verdict.MET,
    SupportLevel.ADDON: Verdict.MET,
    SupportLevel.PARTIAL: Verdict.PARTIAL,
    SupportLevel.NONE: Verdict.VIOLATES,
    SupportLevel.UNKNOWN: Verdict.UNVERIFIED,
}

# Each candidate's waivers, and the claims a constraint reads (capability and sources with them),
# come with the evaluation: a fixed number of queries, whatever the number of candidates.
CANDIDATE_LOOKUPS = (
    constraint_claims(),
    Prefetch("waivers", queryset=ConstraintWaiver.objects.select_related("waived_by")),
)


@dataclass(frozen=True)
class CapabilityCheck:
    capability: object  # catalog.Capability, or catalog.AcceleratorFamily the evaluation names
    claim: CapabilityClaim | None  # or the family's AcceleratorSupport row
    verdict: str
    layer: object = None  # evaluations.CandidateLayer providing it, for a stack
    missing: bool = False  # a named family with no row in the catalog for this candidate

    @property
    def verdict_label(self) -> str:
        return str(Verdict.LABELS[self.verdict])

    @property
    def is_family(self) -> bool:
        """A named accelerator family rather than a catalog capability."""
        return isinstance(self.capability, AcceleratorFamily)


@dataclass(frozen=True)
class ConstraintCheck:
    candidate: object  # evaluations.Candidate
    constraint: Constraint
    capabilities: list[CapabilityCheck]
    waiver: object = None  # evaluations.ConstraintWaiver

    @property
    def verdict(self) -> str:
        return max((c.verdict for c in self.capabilities), key=Verdict.ORDER.index)

    @property
    def verdict_label(self) -> str:
        return str(Verdict.LABELS[self.verdict])

    @property
    def blocks_decision(self) -> bool:
        return self.verdict == Verdict.VIOLATES and self.waiver is None

    def having(self, verdict: str) -> list[CapabilityCheck]:
        return [c for c in self.capabilities if c.verdict == verdict]


def active_constraints(data: EvaluationData) -> list[Constraint]:
    """The active constraint library, loaded once per page (shared by a page's evaluations)."""
    if "constraints" not in data.shared:
        data.shared["constraints"] = list(
            Constraint.objects.filter(is_active=True).prefetch_related("capabilities")
        )
    return data.shared["constraints"]


def carried_constraints(data: EvaluationData) -> list[Constraint]:
    """The constraints this evaluation carries: its flag is set or one of its facts is yes."""
    evaluation = data.evaluation
    return [
        c
        for c in active_constraints(data)
        if (c.flag and getattr(evaluation, c.flag, False)) or any(data.fact(f) for f in c.facts)
    ]


def _solution_claims(solution):
    """The claims constraints read: prefetched with the evaluation, or read now (one candidate)."""
    claims = getattr(solution, "constraint_claims", None)
    if claims is None:
        claims = solution.claims.select_related("capability").prefetch_related("sources")
    return list(claims)


def _claims(candidate) -> dict:
    """Capability pk -> (layer, claim): the solution's own, or the best of a stack's layers."""
    layers = candidate.stack_layers
    if layers:
        return combine([(layer, _solution_claims(layer.solution)) for layer in layers])
    return combine([(None, _solution_claims(candidate.solution))])


def named_families(data: EvaluationData) -> list[AcceleratorFamily]:
    """The accelerator families the evaluation's context answers name in their details (e.g.
    "NVIDIA A800 and Ascend 910B"), read once per page."""
    key = ("named_families", data.evaluation.pk)
    if key not in data.shared:
        text = " ".join(a.detail for a in data.context.values() if a and a.detail)
        families = data.shared.get("families")
        if families is None and text.strip():
            families = data.shared["families"] = list(AcceleratorFamily.objects.all())
        data.shared[key] = [f for f in families or [] if text.strip() and f.named_in(text)]
    return data.shared[key]


def _family_support(data: EvaluationData, candidate) -> dict[int, tuple]:
    """Family pk -> (layer, support row): the candidate's own, or the best of a stack's layers
    (one query for all the evaluation's candidates)."""
    key = ("family_support", data.evaluation.pk)
    if key not in data.shared:
        solutions = {c.solution_id for c in data.shortlisted}
        solutions |= {layer.solution_id for c in data.shortlisted for layer in c.stack_layers}
        rows: dict[int, list] = {}
        for row in AcceleratorSupport.objects.filter(solution_id__in=solutions).prefetch_related(
            "sources"
        ):
            rows.setdefault(row.solution_id, []).append(row)
        data.shared[key] = rows
    rows = data.shared[key]
    layers = [(layer, rows.get(layer.solution_id, [])) for layer in candidate.stack_layers]
    by_family: dict[int, list] = {}
    for layer, found in layers or [(None, rows.get(candidate.solution_id, []))]:
        for row in found:
            by_family.setdefault(row.family_id, []).append((layer, row))
    return {pk: best_claim(pairs) for pk, pairs in by_family.items()}


def candidate_checks(data: EvaluationData, candidate, constraints=None) -> list[ConstraintCheck]:
    constraints = carried_constraints(data) if constraints is None else constraints
    claims = _claims(candidate)
    waivers = {w.constraint_id: w for w in candidate.waivers.all()}
    checks = []
    for constraint in constraints:
        capabilities = []
        for capability in constraint.capabilities.all():
            layer, claim = claims.get(capability.pk, (None, None))
            level = claim.level if claim else SupportLevel.UNKNOWN
            capabilities.append(CapabilityCheck(capability, claim, LEVEL_VERDICT[level], layer))
        families = named_families(data) if constraint.checks_families else []
        if families:
            support = _family_support(data, candidate)
            for family in families:
                layer, row = support.get(family.pk, (None, None))
                level = row.level if row else SupportLevel.UNKNOWN
                capabilities.append(
                    CapabilityCheck(family, row, LEVEL_VERDICT[level], layer, missing=row is None)
                )
        if capabilities:
            checks.append(
                ConstraintCheck(candidate, constraint, capabilities, waivers.get(constraint.pk))
            )
    return checks


def constraint_checks(data: EvaluationData) -> dict[int, list[ConstraintCheck]]:
    """Candidate pk -> its checks, for every shortlisted candidate."""
    constraints = carried_constraints(data)
    return {c.pk: candidate_checks(data, c, constraints) for c in data.shortlisted}
