"""Stacks: one candidate built from several catalog solutions, each in a layer.

The seeds' most common outcome is a combination (open-source scheduling underneath, an enterprise
platform on top for the unified view, tenancy, audit and service, a cloud for burst capacity).
A stack's capability profile combines its layers: for each capability the best claim of any
layer, and the layer that makes it; where no layer provides it, it is missing. The constraint
check (`evaluations.constraints`) reads the same combination.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Prefetch

from catalog.models import Capability, CapabilityClaim, SupportLevel

from .models import CandidateLayer
from .stack_controls import control_claims

# Best first: a layer that provides a capability natively beats one that needs an add-on, and
# an unknown claim is better than a documented "none" (someone may still provide it).
LEVEL_RANK = {
    SupportLevel.NATIVE: 0,
    SupportLevel.ADDON: 1,
    SupportLevel.PARTIAL: 2,
    SupportLevel.UNKNOWN: 3,
    SupportLevel.NONE: 4,
}
PROVIDED = {SupportLevel.NATIVE, SupportLevel.ADDON, SupportLevel.PARTIAL}


# The layers, their solutions and the claims the constraint check reads come with the
# evaluation, in a fixed number of queries.
def constraint_claims(lookup: str = "solution__claims") -> Prefetch:
    """The claims a hard constraint reads, with capability and sources, as `constraint_claims`
    on each solution."""
    return Prefetch(
        lookup,
        queryset=CapabilityClaim.objects.filter(capability__constraints__is_active=True)
        .distinct()
        .select_related("capability")
        .prefetch_related("sources"),
        to_attr="constraint_claims",
    )


# Each candidate's layers with the claims the constraint checks and the duplicated controls
# (evaluations.stack_controls) read (contributed with the built-in reminders:
# EvaluationsConfig.ready).
CANDIDATE_LOOKUPS = (
    Prefetch(
        "layers",
        queryset=CandidateLayer.objects.select_related("solution__solution_type").prefetch_related(
            constraint_claims(), control_claims()
        ),
    ),
)


@dataclass(frozen=True)
class LayeredClaim:
    """What a candidate can do for one capability, and which of its layers provides it."""

    capability: Capability
    claim: CapabilityClaim | None
    layer: CandidateLayer | None = None

    @property
    def level(self) -> str:
        return self.claim.level if self.claim else SupportLevel.UNKNOWN

    @property
    def level_label(self) -> str:
        return str(SupportLevel(self.level).label)

    @property
    def missing(self) -> bool:
        """No layer provides it (every claim is none or unknown)."""
        return self.level not in PROVIDED


def best_claim(claims: list[tuple[CandidateLayer | None, CapabilityClaim]]):
    """The (layer, claim) that provides a capability best, or (None, None) without claims."""
    if not claims:
        return None, None
    return min(claims, key=lambda pair: LEVEL_RANK[pair[1].level])


def combine(
    layer_claims: list[tuple[CandidateLayer | None, list[CapabilityClaim]]],
) -> dict[int, tuple[CandidateLayer | None, CapabilityClaim]]:
    """Capability pk -> the best (layer, claim) over the layers' claims."""
    by_capability: dict[int, list] = {}
    for layer, claims in layer_claims:
        for claim in claims:
            by_capability.setdefault(claim.capability_id, []).append((layer, claim))
    return {pk: best_claim(pairs) for pk, pairs in by_capability.items()}


def stack_profile(candidate) -> list[LayeredClaim]:
    """Every active catalog capability with the candidate's combined claim (for a single
    solution, its own claims with no layer)."""
    return stack_profiles([candidate])[candidate.pk]


def stack_profiles(candidates) -> dict[int, list[LayeredClaim]]:
    """stack_profile of each candidate, read in three queries for all of them."""
    layers = {c.pk: c.stack_layers for c in candidates}
    # The solutions are loaded already (with their candidate or layer): the claims' own rows
    # are enough, and so are the capabilities read once.
    solutions = {c.solution_id: c.solution for c in candidates if not layers[c.pk]}
    solutions |= {layer.solution_id: layer.solution for ls in layers.values() for layer in ls}
    claims: dict[int, list[CapabilityClaim]] = {pk: [] for pk in solutions}
    capabilities = list(
        Capability.objects.select_related("group").order_by("group__order", "order", "pk")
    )
    capability_by_pk = {cap.pk: cap for cap in capabilities}
    for claim in CapabilityClaim.objects.filter(solution_id__in=list(claims)).prefetch_related(
        "sources"
    ):
        claim.solution, claim.capability = (
            solutions[claim.solution_id],
            capability_by_pk[claim.capability_id],
        )
        claims[claim.solution_id].append(claim)
    out = {}
    for c in candidates:
        if layers[c.pk]:
            combined = combine([(layer, claims[layer.solution_id]) for layer in layers[c.pk]])
        else:
            combined = combine([(None, claims[c.solution_id])])
        rows = []
        for capability in capabilities:
            layer, claim = combined.get(capability.pk, (None, None))
            rows.append(LayeredClaim(capability, claim, layer))
        out[c.pk] = rows
    return out
