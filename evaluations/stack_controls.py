"""What a stack's layers duplicate, and when a stack is hybrid.

A stack often carries the same control more than once: an open-source queue such as Kueue, a
second one such as Volcano and an enterprise platform's own project quotas are three quota
systems. Someone has to decide which one owns the control, or each team configures its own.

Which layer provides which control is read from the catalog's claims: a layer provides a
control when its solution claims one of the control's capabilities natively ("the product's
own release does it"). A claim via add-on names another component (often the very layer
beside it), and a partial claim documents a limit, so neither counts as a system of its own.

A stack whose layers are of different solution types is a hybrid route for every hybrid rule
(the unified-view owner, the areas across resource sources), whether or not the evaluation
ticks "hybrid".
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Prefetch
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext

from catalog.models import CapabilityClaim, SupportLevel

from .models import CandidateLayer


@dataclass(frozen=True)
class Control:
    key: str
    capabilities: tuple[str, ...]  # catalog capability slugs
    label: object  # a lazy translation


# The controls a stack should have one owner for, and the catalog capabilities that make them.
CONTROLS = (
    Control("quota", ("queues", "quotas"), _("queueing and quota")),
    Control("tenancy", ("multi-tenancy",), _("multi-tenancy")),
    Control("monitoring", ("gpu-monitoring",), _("GPU monitoring")),
    Control("rbac", ("rbac",), _("RBAC")),
)
CONTROL_KEYS = tuple(c.key for c in CONTROLS)
CONTROL_CAPABILITIES = tuple(slug for c in CONTROLS for slug in c.capabilities)


@dataclass(frozen=True)
class Overlap:
    """A control two or more of a stack's layers provide, and those layers (bottom to top)."""

    control: Control
    layers: tuple  # evaluations.CandidateLayer, …

    @property
    def key(self) -> str:
        return self.control.key

    @property
    def label(self) -> str:
        return str(self.control.label)

    @property
    def solutions(self) -> str:
        return pgettext("list separator", ", ").join(str(x.solution.name) for x in self.layers)


def control_claims(lookup: str = "solution__claims") -> Prefetch:
    """The native claims of the control capabilities, as `control_claims` on each solution."""
    return Prefetch(
        lookup,
        queryset=CapabilityClaim.objects.filter(
            capability__slug__in=CONTROL_CAPABILITIES, level=SupportLevel.NATIVE
        ).select_related("capability"),
        to_attr="control_claims",
    )


def layers_with_controls() -> Prefetch:
    """A candidate's layers with what stack_overlaps reads, for a list of candidates."""
    return Prefetch(
        "layers",
        queryset=CandidateLayer.objects.select_related("solution__solution_type").prefetch_related(
            control_claims()
        ),
    )


def _native_slugs(layers) -> dict[int, set[str]]:
    """Solution pk -> the control capabilities it claims natively: prefetched with the layers
    (control_claims) or read now in one query."""
    solutions = {layer.solution_id: layer.solution for layer in layers}
    if all(hasattr(s, "control_claims") for s in solutions.values()):
        return {pk: {c.capability.slug for c in s.control_claims} for pk, s in solutions.items()}
    out: dict[int, set[str]] = {pk: set() for pk in solutions}
    rows = CapabilityClaim.objects.filter(
        solution_id__in=list(solutions),
        capability__slug__in=CONTROL_CAPABILITIES,
        level=SupportLevel.NATIVE,
    ).values_list("solution_id", "capability__slug")
    for solution_id, slug in rows:
        out[solution_id].add(slug)
    return out


def stack_overlaps(candidate) -> list[Overlap]:
    """The controls two or more of the candidate's layers provide (none for a single solution),
    computed once per candidate instance."""
    cached = candidate.__dict__.get("stack_overlaps")
    if cached is not None:
        return cached
    layers = candidate.stack_layers
    found = []
    if layers:
        native = _native_slugs(layers)
        for control in CONTROLS:
            providing = tuple(
                layer for layer in layers if native[layer.solution_id] & set(control.capabilities)
            )
            if len({layer.solution_id for layer in providing}) >= 2:
                found.append(Overlap(control, providing))
    candidate.__dict__["stack_overlaps"] = found
    return found


def duplicated_controls(candidate) -> set[str]:
    return {o.key for o in stack_overlaps(candidate)}


def overlap_by_capability(overlaps: list[Overlap]) -> dict[str, Overlap]:
    """Capability slug -> the overlap it belongs to (to mark a profile's rows)."""
    return {slug: o for o in overlaps for slug in o.control.capabilities}


def is_mixed_stack(candidate) -> bool:
    """A stack whose layers are of different solution types: a hybrid route."""
    return len({layer.solution.solution_type_id for layer in candidate.stack_layers}) > 1


def mixed_stacks(candidates) -> list:
    return [c for c in candidates if is_mixed_stack(c)]
