"""The method's second step: which type of solution carries the main responsibility.

Before tools are compared, the team picks the type (open-source tools, cloud service, enterprise
platform, hybrid) that will carry the platform, with each type's fit and boundary beside it and
the context answers that point each way. The choice is the evaluation's `main_type`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.utils.translation import gettext_lazy as _

from catalog.models import SolutionType

from .selectors import EvaluationData

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
