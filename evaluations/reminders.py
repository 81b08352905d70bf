"""Risk reminders (SPEC §1.9), computed from an evaluation's own data on every read.

A reminder is a function that takes an `EvaluationData` and yields `Reminder`s. Each app
contributes its reminders, with the lookups they read, through evaluations.extensions (these
built-in ones are BUILT_IN, contributed by EvaluationsConfig.ready). Pages store only what they
show (evaluations/digests.py), and only while the data they were computed from is unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from catalog.freshness import STALE, STALE_AFTER_MONTHS, freshness_day
from catalog.selectors import row_staleness

from . import extensions
from .constraints import Verdict, constraint_checks
from .models import Status
from .selectors import EvaluationData
from .stack_controls import mixed_stacks


@dataclass(frozen=True)
class Reminder:
    key: str
    severity: str  # "high" or "medium"
    title: str
    why: str
    fix_url: str
    fix_label: str
    # More places the reminder points to, as (url, label): e.g. both sides of a disagreement.
    links: tuple[tuple[str, str], ...] = ()

    def as_fields(self) -> dict:
        """Its fields as JSON can store them (evaluations.digests keeps a page's reminders)."""
        return {**self.__dict__, "links": [list(link) for link in self.links]}

    @classmethod
    def from_fields(cls, fields: dict) -> Reminder:
        return cls(**{**fields, "links": tuple(tuple(link) for link in fields["links"])})


ReminderFn = Callable[[EvaluationData], Iterable[Reminder]]


def reminders_for(data: EvaluationData) -> list[Reminder]:
    found = [r for fn in extensions.reminder_functions() for r in fn(data)]
    return sorted(found, key=lambda r: (r.severity != "high", r.key))


def _url(name: str, data: EvaluationData, anchor: str = "") -> str:
    return reverse(f"evaluations:{name}", kwargs={"pk": data.evaluation.pk}) + anchor


CLOUD_TYPE = "cloud-managed"
COMPLIANCE_QUESTION = "compliance_evidence"


def private_deployment_ignored(data: EvaluationData):
    e = data.evaluation
    if not (e.private_deployment_required or e.compliance_required):
        return
    for c in data.shortlisted:
        if c.solution.solution_type.slug != CLOUD_TYPE:
            continue
        answer = data.answer(c, COMPLIANCE_QUESTION)
        if answer is None or not answer.is_complete:
            yield Reminder(
                key=f"private-deployment-ignored:{c.pk}",
                severity="high",
                title=_("Private deployment or compliance is required, but not checked for %(c)s")
                % {"c": c.name},
                why=_(
                    "%(c)s is a cloud-managed service, and this evaluation requires private "
                    "deployment or compliance, yet the question on multi-tenancy, audit and "
                    "compliance evidence has no complete answer for it."
                )
                % {"c": c.name},
                fix_url=_url("evaluation_questions", data, f"#candidate-{c.pk}"),
                fix_label=_("Answer the compliance question"),
            )


def hybrid_without_owner(data: EvaluationData):
    e = data.evaluation
    chosen_types = set()
    if data.decision is not None:
        chosen_types = {c.solution.solution_type.slug for c in data.decision.chosen.all()}
    hybrid_candidate = any(c.solution.solution_type.slug == "hybrid" for c in data.shortlisted)
    # A stack whose layers are of different types is a hybrid route, ticked or not.
    mixed = mixed_stacks(data.shortlisted)
    is_hybrid = e.plans_hybrid or hybrid_candidate or len(chosen_types) > 1 or mixed
    if is_hybrid and not e.unified_view_owner.strip():
        why = _(
            "Several resource sources only work together with one resource catalog, request "
            "flow, cost attribution and audit trail. Without a named owner they drift into "
            "separate islands."
        )
        if mixed:
            why += " " + _(
                "%(stacks)s combine layers of different solution types, so they are a hybrid "
                "route even though the evaluation does not say so."
            ) % {"stacks": pgettext("list separator", ", ").join(c.name for c in mixed)}
        yield Reminder(
            key="hybrid-without-owner",
            severity="high",
            title=_("A hybrid route has no owner for the unified resource view and audit"),
            why=why,
            fix_url=_url("evaluation_edit", data, "#id_unified_view_owner"),
            fix_label=_("Name the owner"),
        )


def thin_shortlist(data: EvaluationData):
    shortlisted = data.shortlisted
    if len(shortlisted) < 3:
        yield Reminder(
            key="few-candidates",
            severity="medium",
            title=_("Fewer than three candidates"),
            why=_(
                "Only %(n)d candidate(s) are shortlisted. With fewer than three there is little "
                "to compare, and the choice is hard to defend."
            )
            % {"n": len(shortlisted)},
            fix_url=_url("evaluation_shortlist", data),
            fix_label=_("Add candidates"),
        )
    types = {c.solution.solution_type_id for c in shortlisted}
    if len(shortlisted) >= 2 and len(types) == 1:
        yield Reminder(
            key="one-type-only",
            severity="medium",
            title=_("All candidates are of one type"),
            why=_(
                "Every shortlisted candidate is a %(type)s. Types draw different responsibility "
                "boundaries; comparing across at least two shows what each boundary costs you."
            )
            % {"type": shortlisted[0].solution.solution_type.name},
            fix_url=_url("evaluation_shortlist", data),
            fix_label=_("Add a candidate of another type"),
        )


def decided_without_basis(data: EvaluationData):
    if data.evaluation.status not in (Status.DECIDED, Status.ARCHIVED):
        return
    answered, total = data.progress_totals()
    decision = data.decision
    if answered < total:
        yield Reminder(
            key="decided-without-answers",
            severity="high",
            title=_("Decided with unanswered questions"),
            why=_("%(n)d of %(total)d pre-procurement answers are missing or incomplete.")
            % {"n": total - answered, "total": total},
            fix_url=_url("evaluation_questions", data),
            fix_label=_("Reopen and answer"),
        )
    if decision is None or not decision.rationale.strip():
        yield Reminder(
            key="decided-without-rationale",
            severity="high",
            title=_("Decided without a recorded rationale"),
            why=_("The decision record has no rationale, so nobody can later see why."),
            fix_url=_url("evaluation_decision", data),
            fix_label=_("Reopen and record the rationale"),
        )


def _capability_names(checks, verdict: str) -> str:
    names = [str(c.capability.name) for check in checks for c in check.having(verdict)]
    return pgettext("list separator", ", ").join(dict.fromkeys(names))


def _constraint_names(checks) -> str:
    return pgettext("list separator", ", ").join(str(c.constraint.name) for c in checks)


def hard_constraints(data: EvaluationData):
    """A shortlisted candidate whose catalog claims violate, leave unverified or only partly meet
    a hard constraint the evaluation carries (evaluations.constraints)."""
    for candidate_pk, checks in constraint_checks(data).items():
        if not checks:
            continue
        name = checks[0].candidate.name
        kinds = [
            (
                "violated",
                "high",
                Verdict.VIOLATES,
                [c for c in checks if c.blocks_decision],
                _("%(c)s violates a hard constraint: %(what)s"),
                _(
                    "The catalog says %(c)s has no support for %(caps)s. A decision that chooses "
                    "it is refused unless the owner waives the constraint with a reason."
                ),
                _("See the constraint check"),
            ),
            (
                "unverified",
                "medium",
                Verdict.UNVERIFIED,
                [c for c in checks if c.verdict == Verdict.UNVERIFIED],
                _("%(c)s: hard constraint not verified: %(what)s"),
                _(
                    "The catalog does not know whether %(c)s supports %(caps)s. Verify it in the "
                    "POC before a decision relies on it."
                ),
                _("Add the verifying POC case"),
            ),
            (
                "partial",
                "medium",
                Verdict.PARTIAL,
                [c for c in checks if c.verdict == Verdict.PARTIAL],
                _("%(c)s only partly meets: %(what)s"),
                _(
                    "The catalog claims only partial support by %(c)s for %(caps)s. Read what "
                    "the claim leaves out and ask the vendor or test it in the POC."
                ),
                _("See the constraint check"),
            ),
        ]
        for kind, severity, verdict, found, title, why, label in kinds:
            if found:
                yield Reminder(
                    key=f"constraint-{kind}:{candidate_pk}",
                    severity=severity,
                    title=title % {"c": name, "what": _constraint_names(found)},
                    why=why % {"c": name, "caps": _capability_names(found, verdict)},
                    fix_url=_url("evaluation_shortlist", data, f"#constraints-{candidate_pk}"),
                    fix_label=label,
                )


def _stale_names(checks, latest: dict, on) -> list[str]:
    """The capabilities (and named accelerator families) among `checks` whose claim the
    freshness rule (catalog.freshness) calls stale on `on`."""
    names = []
    for check in checks:
        for cap in check.capabilities:
            if cap.claim is None:
                continue
            solution_id = cap.layer.solution_id if cap.layer else check.candidate.solution_id
            finding = row_staleness(cap.claim, on=on, latest_version=latest.get(solution_id, ""))
            if finding is not None and finding.reason == STALE:
                names.append(str(cap.capability.name))
    return list(dict.fromkeys(names))


def stale_claims(data: EvaluationData):
    """A hard constraint's check rests on a catalog claim that is stale: checked more than a
    year ago, or about a release the solution has moved past (catalog.freshness)."""
    on = freshness_day()
    for candidate_pk, checks in constraint_checks(data).items():
        if not checks:
            continue
        candidate = checks[0].candidate
        latest = {candidate.solution_id: candidate.solution.known_version()}
        for layer in candidate.stack_layers:
            latest[layer.solution_id] = layer.solution.known_version()
        names = _stale_names(checks, latest, on)
        if names:
            yield Reminder(
                key=f"stale-claims:{candidate_pk}",
                severity="medium",
                title=_("%(c)s: constraint checks rest on stale catalog claims: %(what)s")
                % {"c": candidate.name, "what": pgettext("list separator", ", ").join(names)},
                why=_(
                    "These claims were last checked more than %(months)s months ago, or describe "
                    "an older release than the latest one known. Ask an administrator to check "
                    "their sources again, or verify them in the POC."
                )
                % {"months": STALE_AFTER_MONTHS},
                fix_url=_url("evaluation_shortlist", data, f"#constraints-{candidate_pk}"),
                fix_label=_("See the constraint check"),
            )


def leaderboard_without_type(data: EvaluationData):
    """The seeds' first risk: reading the type classification as a product leaderboard. Once
    candidates of several types are compared (the POC is under way) or one is chosen, the type
    that carries the main responsibility must have been decided first. The results never rank
    across types (poc.selectors.results_by_type), so without the decision nothing does."""
    evaluation = data.evaluation
    types = {c.solution.solution_type.name for c in data.shortlisted}
    ranking = evaluation.status != Status.DRAFT or data.decision is not None
    if len(types) < 2 or evaluation.main_type_id is not None or not ranking:
        return
    yield Reminder(
        key="leaderboard-without-type",
        severity="high",
        title=_("Candidates of different types are compared without a type decision"),
        why=_(
            "%(types)s are compared, but no type has been chosen to carry the main "
            "responsibility. The POC results rank candidates only within their own type: "
            "types are not a leaderboard, each draws a different line of responsibility, and "
            "no total decides between them. Decide the type, then compare the tools within it."
        )
        % {"types": pgettext("list separator", ", ").join(sorted(types))},
        fix_url=_url("evaluation_shortlist", data, "#main-type"),
        fix_label=_("Decide the type"),
    )


BUILT_IN = (
    private_deployment_ignored,
    hybrid_without_owner,
    thin_shortlist,
    decided_without_basis,
    hard_constraints,
    stale_claims,
    leaderboard_without_type,
)
