"""Risk reminders about responsibilities and costs (SPEC §1.9), contributed to evaluations with
the lookups they read (evaluations.extensions): costs and parties loaded with the evaluation,
and the matrices as tuples through `EvaluationData.facts` (two queries for a whole page of
evaluations, no AreaRow or Cell instances)."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext

from evaluations.extensions import Lookups
from evaluations.reminders import Reminder
from evaluations.stack_controls import is_mixed_stack, stack_overlaps

from .checks import UNANSWERED, is_accountable
from .costs import total_cost_of_ownership
from .models import CONTROL_AREAS, Area, AreaRow
from .reconcile import disagreements
from .selectors import (
    active_areas,
    cost_inputs_for,
    cost_settings,
    lean_matrix,
    matrix_facts,
    shared_parties,
)

# What these reminders read with the evaluation (contributed with them: ResponsibilityConfig).
LOOKUPS = Lookups(
    evaluation_prefetches=("parties",), evaluation_selects=("cost",), candidate_selects=("cost",)
)

OPEN_SOURCE_TYPE = "open-source"
COMMERCIAL_TYPES = {"enterprise-platform", "cloud-managed"}
# What a hybrid route needs one owner for across its resource sources (seeded areas, group
# "across_sources"): the resource catalogue, the request flow, cost attribution, the audit record.
HYBRID_AREAS = (
    "unified_resource_catalogue",
    "request_approval_flow",
    "cost_attribution",
    "unified_audit_record",
)


def _parties(data) -> list:
    """The shared parties (loaded once per page) and the evaluation's own."""
    if "responsibility" not in data.shared:
        data.shared["responsibility"] = (active_areas(), shared_parties())
    return data.shared["responsibility"][1] + list(data.evaluation.parties.all())


def _matrices(data) -> list:
    """Each shortlisted candidate's matrix, built once per EvaluationData from `matrix_facts`."""
    cache = data.__dict__.get("_matrices")
    if cache is None:
        parties = _parties(data)
        areas = data.shared["responsibility"][0]
        facts = data.facts(matrix_facts)
        cache = [lean_matrix(c, areas, parties, facts) for c in data.shortlisted]
        data.__dict__["_matrices"] = cache
    return cache


def _list(items) -> str:
    return pgettext("list separator", ", ").join(str(i) for i in items)


def _url(data, name, **kwargs):
    return reverse(f"responsibility:{name}", kwargs={"pk": data.evaluation.pk, **kwargs})


def _cost(candidate):
    try:
        return candidate.cost
    except candidate.__class__.cost.RelatedObjectDoesNotExist:
        return None


def _owner_unsettled(matrix) -> bool:
    """Some area of the matrix is not fully assigned: no answer, nobody accountable, two
    accountable, or nobody responsible. A party that owns an area and does the work itself is
    AR, so every route, open source or commercial, can settle every area the same way."""
    return not matrix.result.complete


def price_without_responsibilities(data):
    """Seed risk "prices compared, operating responsibilities not": a candidate has a price
    while its matrix does not yet name one accountable and at least one responsible party for
    every area (the same rule for every solution type)."""
    matrices = {m.candidate.pk: m for m in _matrices(data)}
    priced = [c for c in data.shortlisted if (cost := _cost(c)) is not None and cost.has_price]
    incomplete = [c for c in priced if _owner_unsettled(matrices[c.pk])]
    if incomplete:
        yield Reminder(
            key="price-without-responsibilities",
            severity="high",
            title=_("Prices compared, responsibilities not"),
            why=_(
                "Costs are entered for %(names)s, but their responsibility matrices do not yet "
                "name, for every area, one accountable party and at least one party that does "
                "the work (AR when it is the same party). A price means little until it is clear "
                "who runs, fixes and upgrades what."
            )
            % {"names": _list(c.name for c in incomplete)},
            fix_url=_url(data, "matrix", cid=incomplete[0].pk),
            fix_label=_("Complete the matrix"),
        )


def open_source_without_people(data):
    """Seed risk "open source is free, so its total cost is low": an open-source candidate
    whose cost model (responsibility.costs, as the cost page computes it) has no people cost.
    A candidate without cost inputs is not costed at all and is left to the cost page."""
    matrices = {m.candidate.pk: m for m in _matrices(data)}
    settings = cost_settings(data.evaluation)
    for c in data.shortlisted:
        cost = _cost(c)
        if c.solution.solution_type.slug != OPEN_SOURCE_TYPE or cost is None:
            continue
        fte = matrices[c.pk].fte_total
        result = total_cost_of_ownership(cost_inputs_for(settings, cost, fte))
        if result.people_total:
            continue
        if fte:
            cause = _("the loaded cost per FTE-year is set to 0")
            fix_url, fix_label = (
                _url(data, "costs") + "#id_fte_cost_per_year",
                _("Set the FTE cost"),
            )
        else:
            cause = _("its responsibility matrix records no internal effort (0 FTE)")
            fix_url, fix_label = _url(data, "matrix", cid=c.pk), _("Enter the internal effort")
        yield Reminder(
            key=f"open-source-zero-people:{c.pk}",
            severity="high",
            title=_("%(s)s is costed with no internal people") % {"s": c.name},
            why=_(
                "%(s)s is open source, and its cost of ownership counts no people: %(cause)s. "
                "Open source is not free: platform engineers, operations, security fixes, driver "
                "adaptation, monitoring and user support all take people."
            )
            % {"s": c.name, "cause": cause},
            fix_url=fix_url,
            fix_label=fix_label,
        )


def _governance_handed_over(data, matrix) -> list[str]:
    """The governance areas this matrix answers without an internal accountable party (see
    selectors.GOVERNING_KINDS), each with who is accountable instead. Unanswered areas say
    nothing yet: the matrix checks and coverage report them."""
    names = {p.pk: p.name for p in _parties(data)}
    missing = {a.pk for a in matrix.governance_without_internal_owner}
    out = []
    for r in matrix.rows:
        if r.area.pk not in missing or r.check.status == UNANSWERED:
            continue
        who = [str(names.get(pid, pid)) for pid, v in r.letters.items() if is_accountable(v)]
        if who:
            out.append(
                _("%(area)s (accountable: %(who)s)") % {"area": r.area.name, "who": _list(who)}
            )
        else:
            out.append(_("%(area)s (nobody accountable)") % {"area": r.area.name})
    return out


def commercial_without_internal_owner(data):
    """Seed risk "a commercial platform means no governance work": the matrix of an enterprise
    platform or cloud service leaves the enterprise's own teams no accountable role in an area
    marked as governance (permissions and audit, tenant quotas)."""
    for m in _matrices(data):
        c = m.candidate
        if c.solution.solution_type.slug not in COMMERCIAL_TYPES:
            continue
        handed_over = _governance_handed_over(data, m)
        if handed_over:
            yield Reminder(
                key=f"commercial-no-internal-owner:{c.pk}",
                severity="high",
                title=_("No internal owner for governance under %(s)s") % {"s": c.name},
                why=_(
                    "A commercial platform does not govern for you, yet the matrix of %(s)s "
                    "leaves no internal team accountable for: %(areas)s."
                )
                % {"s": c.name, "areas": _list(handed_over)},
                fix_url=_url(data, "matrix", cid=c.pk),
                fix_label=_("Assign an internal owner"),
            )


def matrix_gaps_and_conflicts(data):
    for m in _matrices(data):
        if not m.started or not (m.result.gaps or m.result.conflicts):
            continue
        c = m.candidate
        yield Reminder(
            key=f"matrix-gaps:{c.pk}",
            severity="medium",
            title=_("Unclear ownership under %(s)s") % {"s": c.name},
            why=_("%(gaps)d area(s) with nobody accountable and %(conflicts)d with two or more.")
            % {"gaps": len(m.result.gaps), "conflicts": len(m.result.conflicts)},
            fix_url=_url(data, "matrix", cid=c.pk),
            fix_label=_("Agree on one owner per area"),
        )


def hybrid_without_unified_owner(data):
    """Seed risk "hybrid without a unified catalogue and audit": the evaluation plans several
    resource sources, and a candidate's matrix names nobody accountable (no A) for one of
    HYBRID_AREAS. Two accountable parties is an owner too many, not none: matrix-gaps says so."""
    ticked = data.evaluation.plans_hybrid
    for m in _matrices(data):
        # A stack whose layers are of different types is a hybrid route, ticked or not.
        if not (ticked or is_mixed_stack(m.candidate)):
            continue
        missing = [
            r.area
            for r in m.rows
            if r.area.key in HYBRID_AREAS and not any(is_accountable(v) for v in r.letters.values())
        ]
        if not missing:
            continue
        c = m.candidate
        yield Reminder(
            key=f"hybrid-without-unified-owner:{c.pk}",
            severity="high",
            title=_("Hybrid route without a unified owner under %(s)s") % {"s": c.name},
            why=(
                _(
                    "This evaluation combines several resource sources, yet the matrix of %(s)s "
                    "names nobody accountable for: %(areas)s. Without one owner for the resource "
                    "catalogue, the request flow, cost attribution and the audit record across "
                    "sources, each source becomes an island of its own."
                )
                if ticked
                else _(
                    "%(s)s combines layers of different solution types, so it is a hybrid route "
                    "even though the evaluation does not say so; yet its matrix names nobody "
                    "accountable for: %(areas)s. Without one owner for the resource catalogue, "
                    "the request flow, cost attribution and the audit record across its layers, "
                    "each layer becomes an island of its own."
                )
            )
            % {"s": c.name, "areas": _list(a.name for a in missing)},
            fix_url=_url(data, "matrix", cid=c.pk) + f"#row-{missing[0].key}",
            fix_label=_("Name an accountable owner"),
        )


# What each duplicated control's reminder says: (title, fix label). The title reads
# "<stack>: <n> quota systems (<layers>): decide which one owns quota".
CONTROL_TEXTS = {
    "quota": gettext_lazy("%(s)s: %(n)d quota systems (%(layers)s): decide which one owns quota"),
    "tenancy": gettext_lazy(
        "%(s)s: %(n)d tenant models (%(layers)s): decide which one owns multi-tenancy"
    ),
    "monitoring": gettext_lazy(
        "%(s)s: %(n)d GPU monitoring systems (%(layers)s): decide which one owns monitoring"
    ),
    "rbac": gettext_lazy("%(s)s: %(n)d RBAC systems (%(layers)s): decide which one owns RBAC"),
}
AREA_FOR_CONTROL = {control: area for area, control in CONTROL_AREAS.items()}


def control_notes(batch) -> dict[int, set[tuple[int, str]]]:
    """For the evaluations of a batch (EvaluationData.facts): the (candidate id, area key) of
    every "which layer owns …" row whose note records a decision. One query, read only when
    some stack duplicates a control."""
    owners = {c.pk: d.evaluation.pk for d in batch for c in d.shortlisted if c.is_stack}
    out: dict[int, set] = {d.evaluation.pk: set() for d in batch}
    rows = (
        AreaRow.objects.filter(candidate_id__in=owners, area__key__in=CONTROL_AREAS)
        .exclude(note="")
        .values_list("candidate_id", "area__key")
        .order_by()
    )
    for candidate_id, area_key in rows:
        out[owners[candidate_id]].add((candidate_id, area_key))
    return out


def duplicated_control_without_owner(data):
    """A stack two or more of whose layers provide the same control (queueing and quota,
    multi-tenancy, GPU monitoring, RBAC: evaluations.stack_controls), while its matrix row
    "which layer owns …" names nobody accountable or records no decision in its note."""
    for m in _matrices(data):
        c = m.candidate
        overlaps = stack_overlaps(c)
        if not overlaps:
            continue
        noted = data.facts(control_notes) or set()
        rows = {r.area.key: r for r in m.rows}
        for overlap in overlaps:
            area_key = AREA_FOR_CONTROL[overlap.key]
            row = rows.get(area_key)
            owned = row is not None and any(is_accountable(v) for v in row.letters.values())
            if owned and (c.pk, area_key) in noted:
                continue
            profile = reverse("evaluations:evaluation_shortlist", kwargs={"pk": data.evaluation.pk})
            yield Reminder(
                key=f"duplicated-control:{overlap.key}:{c.pk}",
                severity="medium",
                title=CONTROL_TEXTS[overlap.key]
                % {"s": c.name, "n": len(overlap.layers), "layers": overlap.solutions},
                why=_(
                    "The catalog claims %(control)s natively for each of %(layers)s. Left alone, "
                    "each layer keeps its own settings, and nobody can say which one a team's "
                    "limit or access really comes from. Record in the matrix row which layer "
                    "owns it (in the note) and who is accountable, and switch the others off "
                    "or keep them in step."
                )
                % {"control": overlap.label, "layers": overlap.solutions},
                fix_url=_url(data, "matrix", cid=c.pk) + f"#row-{area_key}",
                fix_label=_("Decide which layer owns it"),
                links=((f"{profile}#stack-profile-{c.pk}", _("See the stack's profile")),),
            )


def _question_areas(data) -> dict[str, list[str]]:
    """Who-question key -> the keys of the areas it asks about (seeded, admin-editable),
    loaded once per page."""
    if "question_areas" not in data.shared:
        pairs = Area.questions.through.objects.filter(
            fivequestion__scale="parties", area__is_active=True
        ).values_list("fivequestion__key", "area__key")
        mapping: dict[str, list[str]] = {}
        for question_key, area_key in pairs:
            mapping.setdefault(question_key, []).append(area_key)
        data.shared["question_areas"] = mapping
    return data.shared["question_areas"]


def answers_disagree_with_matrix(data):
    """A who-question's answer names parties none of which the candidate's matrix makes
    accountable or responsible for an area the question asks about (responsibility.reconcile):
    one reminder per candidate, linking the answer and the matrix row."""
    mapping = _question_areas(data)
    if not mapping:
        return
    names = {p.key: p.name for p in _parties(data)}
    questions = [q for q in data.questions if q.key in mapping]

    def who(keys) -> str:
        return _list(names.get(k, k) for k in keys) if keys else _("nobody")

    for m in _matrices(data):
        c = m.candidate
        by_area = {r.area.key: r for r in m.rows}
        found = []
        for q in questions:
            answer = data.answer(c, q.key)
            if answer is None or not answer.parties:
                continue
            rows = [by_area[k] for k in mapping[q.key] if k in by_area]
            for check in disagreements(answer.parties, [r.check for r in rows]):
                found.append((q, answer, by_area[check.area], check))
        if not found:
            continue
        items = [
            _(
                "“%(question)s” answers %(answered)s, but the matrix makes %(accountable)s "
                "accountable and %(responsible)s responsible for %(area)s"
            )
            % {
                "question": q.text,
                "answered": who(answer.parties),
                "accountable": who(check.accountable),
                "responsible": who(check.responsible),
                "area": row.area.name,
            }
            for q, answer, row, check in found
        ]
        answer_url = reverse("evaluations:evaluation_questions", kwargs={"pk": data.evaluation.pk})
        answered = list(dict.fromkeys(q.key for q, *_rest in found))
        rows = {row.area.key: row.area for _q, _a, row, _c in found}
        yield Reminder(
            key=f"answers-disagree-with-matrix:{c.pk}",
            severity="high",
            title=_("The answers and the matrix of %(s)s name different owners") % {"s": c.name},
            why=_(
                "Who does the work must be the same in the five questions and in the "
                "responsibility matrix; for %(s)s they differ: %(items)s. Correct whichever "
                "side is wrong."
            )
            % {"s": c.name, "items": pgettext("list separator", "; ").join(items)},
            fix_url=f"{answer_url}#answer-{c.pk}-{answered[0]}",
            fix_label=_("See the answer"),
            links=tuple(
                (f"{answer_url}#answer-{c.pk}-{key}", _("See the answer")) for key in answered[1:]
            )
            + tuple(
                (
                    _url(data, "matrix", cid=c.pk) + f"#row-{key}",
                    _("See the matrix row: %(area)s") % {"area": area.name},
                )
                for key, area in rows.items()
            ),
        )


REMINDERS = (
    price_without_responsibilities,
    open_source_without_people,
    commercial_without_internal_owner,
    matrix_gaps_and_conflicts,
    hybrid_without_unified_owner,
    duplicated_control_without_owner,
    answers_disagree_with_matrix,
)
