"""Risk reminders about responsibilities and costs (SPEC §1.9), added to the evaluations
registry. They read the rows prefetched through `selectors.EXTRA_PREFETCHES`."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _

from evaluations import selectors as evaluation_selectors
from evaluations.reminders import Reminder, reminder

from .selectors import active_areas, matrix_view, rows_prefetch, shared_parties

evaluation_selectors.EXTRA_PREFETCHES += [
    "candidates__cost",
    "cost",
    "parties",
]
# The matrix rows ride on the candidates prefetch of the evaluation data.
evaluation_selectors.CANDIDATE_PREFETCHES.append(rows_prefetch())

COMMERCIAL_TYPES = {"enterprise-platform", "cloud-managed"}


def _matrices(data) -> list:
    """Each shortlisted candidate's matrix, computed once per EvaluationData."""
    cache = data.__dict__.get("_matrices")
    if cache is None:
        if "responsibility" not in data.shared:
            data.shared["responsibility"] = (active_areas(), shared_parties())
        areas, shared = data.shared["responsibility"]
        parties = shared + list(data.evaluation.parties.all())
        cache = [matrix_view(c, areas, parties) for c in data.shortlisted]
        data.__dict__["_matrices"] = cache
    return cache


def _url(data, name, **kwargs):
    return reverse(f"responsibility:{name}", kwargs={"pk": data.evaluation.pk, **kwargs})


def _cost(candidate):
    try:
        return candidate.cost
    except candidate.__class__.cost.RelatedObjectDoesNotExist:
        return None


@reminder
def price_without_responsibilities(data):
    matrices = {m.candidate.pk: m for m in _matrices(data)}
    priced = [c for c in data.shortlisted if (cost := _cost(c)) is not None and cost.has_price]
    incomplete = [c for c in priced if not matrices[c.pk].result.complete]
    if incomplete:
        yield Reminder(
            key="price-without-responsibilities",
            severity="high",
            title=_("Prices compared, responsibilities not"),
            why=_(
                "Costs are entered for %(names)s, but their responsibility matrices are "
                "incomplete. A price means little until it is clear who runs, fixes and "
                "upgrades what."
            )
            % {"names": ", ".join(c.solution.name for c in incomplete)},
            fix_url=_url(data, "matrix", cid=incomplete[0].pk),
            fix_label=_("Complete the matrix"),
        )


@reminder
def open_source_without_people(data):
    matrices = {m.candidate.pk: m for m in _matrices(data)}
    try:
        fte_cost = data.evaluation.cost.fte_cost_per_year
    except data.evaluation.__class__.cost.RelatedObjectDoesNotExist:
        fte_cost = None
    for c in data.shortlisted:
        if c.solution.solution_type.slug != "open-source" or _cost(c) is None:
            continue
        if matrices[c.pk].fte_total == 0 or fte_cost == 0:
            yield Reminder(
                key=f"open-source-zero-people:{c.pk}",
                severity="high",
                title=_("%(s)s is costed with no internal people") % {"s": c.solution.name},
                why=_(
                    "Open source is not free: platform engineers, operations, security, driver "
                    "adaptation, monitoring and user support all take people. Their cost is "
                    "zero here."
                ),
                fix_url=_url(data, "matrix", cid=c.pk),
                fix_label=_("Enter the internal effort"),
            )


@reminder
def commercial_without_internal_owner(data):
    for m in _matrices(data):
        c = m.candidate
        if c.solution.solution_type.slug not in COMMERCIAL_TYPES or not m.started:
            continue
        if m.governance_without_internal_owner:
            yield Reminder(
                key=f"commercial-no-internal-owner:{c.pk}",
                severity="high",
                title=_("No internal owner for governance under %(s)s") % {"s": c.solution.name},
                why=_(
                    "A commercial platform does not govern for you. Nobody internal is "
                    "accountable for: %(areas)s."
                )
                % {"areas": ", ".join(a.name for a in m.governance_without_internal_owner)},
                fix_url=_url(data, "matrix", cid=c.pk),
                fix_label=_("Assign an internal owner"),
            )


@reminder
def matrix_gaps_and_conflicts(data):
    for m in _matrices(data):
        if not m.started or not (m.result.gaps or m.result.conflicts):
            continue
        c = m.candidate
        yield Reminder(
            key=f"matrix-gaps:{c.pk}",
            severity="medium",
            title=_("Unclear ownership under %(s)s") % {"s": c.solution.name},
            why=_("%(gaps)d area(s) with nobody accountable and %(conflicts)d with two or more.")
            % {"gaps": len(m.result.gaps), "conflicts": len(m.result.conflicts)},
            fix_url=_url(data, "matrix", cid=c.pk),
            fix_label=_("Agree on one owner per area"),
        )
