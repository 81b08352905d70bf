"""The method's second step: which type of solution carries the main responsibility.

Before tools are compared, the team picks the type (open-source tools, cloud service, enterprise
platform, hybrid) that will carry the platform, with each type's fit and boundary beside it and
the context answers that point each way. The choice is the evaluation's `main_type`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from django.utils.translation import gettext_lazy as _

from catalog.models import SolutionType

from .selectors import EvaluationData, Suggestion

T = TypeVar("T")

# A context fact answered yes -> the type it points to, and why. The flag "combines several
# resource sources" points to hybrid (FLAG_SIGNALS).
FACT_SIGNALS = {
    "hpc_batch_queues": (
        "open-source",
        _("An HPC team already runs batch queues: it can own open-source scheduling."),
    ),
    "k8s_batch_jobs": (
        "open-source",
        _("Batch and training jobs already run on Kubernetes, where open-source queues fit."),
    ),
    "single_cloud": (
        "cloud-managed",
        _("Workloads run mainly in one public cloud, whose managed GPU service is at hand."),
    ),
    "multitenancy_utilisation": (
        "enterprise-platform",
        _("Many teams share the GPUs: tenants, quotas and utilisation need governing."),
    ),
    "governance_localised": (
        "enterprise-platform",
        _("Permissions, quotas, audit and local delivery and support are required."),
    ),
}
FLAG_SIGNALS = {
    "plans_hybrid": (
        "hybrid",
        _("Several resource sources are to be combined into one pool."),
    ),
}


@dataclass
class TypeOption:
    solution_type: SolutionType
    signals: list[str] = field(default_factory=list)
    candidates: list = field(default_factory=list)
    chosen: bool = False


def type_options(data: EvaluationData) -> list[TypeOption]:
    """Every solution type, with the context answers that point to it and its candidates."""
    if "solution_types" not in data.shared:
        data.shared["solution_types"] = list(SolutionType.objects.all())
    evaluation = data.evaluation
    options = {
        t.slug: TypeOption(t, chosen=t.pk == evaluation.main_type_id)
        for t in data.shared["solution_types"]
    }
    for key, (slug, why) in FACT_SIGNALS.items():
        if data.fact(key) and slug in options:
            options[slug].signals.append(str(why))
    for flag, (slug, why) in FLAG_SIGNALS.items():
        if getattr(evaluation, flag) and slug in options:
            options[slug].signals.append(str(why))
    for candidate in data.shortlisted:
        slug = candidate.solution.solution_type.slug
        if slug in options:
            options[slug].candidates.append(candidate)
    return list(options.values())


def outside_main_type(data: EvaluationData) -> list:
    """Shortlisted candidates of another type than the one chosen (none before a choice)."""
    main = data.evaluation.main_type_id
    if main is None:
        return []
    return [c for c in data.shortlisted if c.solution.solution_type_id != main]


@dataclass
class TypeGroup(Generic[T]):
    """Items of one solution type. `outside` is true when a type decision exists and this is
    another type: its items stay visible (and addable) but are marked as outside it."""

    solution_type: SolutionType
    items: list[T]
    outside: bool = False


def group_by_type(
    items: Iterable[T], type_of: Callable[[T], SolutionType], main_type_id: int | None
) -> list[TypeGroup[T]]:
    """The one rule for showing solutions by type, never as one cross-type list: a group per
    type present, in SolutionType order, the chosen type (if any) first and the others marked
    outside it. Items keep their order within a group. Reads no database: `type_of` returns
    an already-loaded SolutionType."""
    groups: dict[int, TypeGroup[T]] = {}
    for item in items:
        solution_type = type_of(item)
        group = groups.get(solution_type.pk)
        if group is None:
            outside = main_type_id is not None and solution_type.pk != main_type_id
            group = groups[solution_type.pk] = TypeGroup(solution_type, [], outside)
        group.items.append(item)
    return sorted(
        groups.values(),
        key=lambda g: (g.outside, g.solution_type.order, g.solution_type.pk),
    )


def suggestions_by_type(
    suggestions: Iterable[Suggestion], main_type_id: int | None
) -> list[TypeGroup[Suggestion]]:
    """Shortlist suggestions grouped by type (scenario-fit order kept within each group)."""
    return group_by_type(suggestions, lambda s: s.solution.solution_type, main_type_id)
