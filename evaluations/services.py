"""Writes to evaluations. Forms and the API call these; permission, sealing, validation and
concurrency rules live here once. Every function is atomic: it saves all or nothing."""

from __future__ import annotations

import datetime
from collections.abc import Iterable

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext, pgettext_lazy

from catalog.models import Scenario, Solution, SolutionType
from common.concurrency import bump, lock_and_check, lock_or_new
from common.exceptions import Conflict, Forbidden
from common.history import save_as

from . import extensions
from .answer_scales import clean_parties, party_choices
from .constraints import Verdict, candidate_checks
from .locking import evaluation_lock_for, lock_status
from .models import (
    FACT_FLAGS,
    TRANSITIONS,
    AnswerScale,
    AnswerValue,
    Assessment,
    BudgetFocus,
    Candidate,
    CandidateLayer,
    CandidateOrigin,
    CandidateStatus,
    Constraint,
    ConstraintWaiver,
    ContextAnswer,
    ContextQuestion,
    Decision,
    Evaluation,
    FiveQuestion,
    LayerRole,
    MemberRole,
    Membership,
    QuestionAnswer,
    Status,
    StatusChange,
)
from .rules import is_editor
from .selectors import evaluation_data, shortlist_suggest
from .signals import candidate_added

User = get_user_model()

EVALUATION_FIELDS = (
    "title",
    "organisation",
    "private_deployment_required",
    "compliance_required",
    "localisation_required",
    "plans_hybrid",
    "unified_view_owner",
    "notes",
)


def _require_members_open(user, evaluation: Evaluation) -> None:
    """Members change only while the evaluation is open: the people a sealed decision names as
    its members (and whom its approvals and report went to) stay as they were."""
    _require(user, "evaluations.manage_members", evaluation)
    lock_status(evaluation)
    if evaluation.is_sealed:
        raise Conflict(
            _(
                "This evaluation is %(status)s and sealed: its members cannot change until its "
                "owner reopens it with a reason."
            )
            % {"status": evaluation.get_status_display()}
        )


def _require(user, perm: str, evaluation: Evaluation) -> None:
    if not user.has_perm(perm, evaluation):
        editing = perm == "evaluations.change_evaluation"
        if editing and evaluation.is_sealed and is_editor(user, evaluation):
            raise Conflict(
                _(
                    "This evaluation is %(status)s and sealed: it is read-only until its owner "
                    "reopens it with a reason."
                )
                % {"status": evaluation.get_status_display()}
            )
        raise Forbidden(_("Your role in this evaluation does not allow this."))


def evaluation_require_editable(user, evaluation: Evaluation) -> None:
    """Lock the evaluation row and check the user may edit it in its *saved* status.

    Locking serialises every write with status changes, so nothing slips in while the
    evaluation is being marked decided.
    """
    evaluation_lock_for(user, evaluation, "evaluations.change_evaluation")


def _clean_text(value: str | None, limit: tuple[type, str, str] | None = None) -> str:
    """Trimmed text. With ``(model, field, key)``, checked against that model field's validators
    (its maximum length), for text that is not saved through ``full_clean``; errors go to key."""
    text = (value or "").strip()
    if limit:
        model, field, key = limit
        try:
            model._meta.get_field(field).run_validators(text)
        except ValidationError as error:
            raise ValidationError({key: error.messages}) from None
    return text


def _validate_scenarios(scenarios: Iterable[Scenario]) -> list[Scenario]:
    scenarios = list(scenarios)
    if not scenarios:
        raise ValidationError({"scenarios": _("Choose at least one primary scenario.")})
    return scenarios


@transaction.atomic
def evaluation_create(*, user, title: str, organisation: str, scenarios, **fields) -> Evaluation:
    """Create an evaluation; its creator becomes the owner."""
    if not user.has_perm("evaluations.add_evaluation"):
        raise Forbidden(_("Only tech leads and admins create evaluations."))
    unknown = sorted(set(fields) - set(EVALUATION_FIELDS))
    if unknown:
        raise ValidationError({name: _("This field cannot be set here.") for name in unknown})
    facts = _split_facts(fields)
    evaluation = Evaluation(
        title=_clean_text(title),
        organisation=_clean_text(organisation),
        created_by=user,
        **{k: _clean_text(v) if isinstance(v, str) else v for k, v in fields.items()},
    )
    scenarios = _validate_scenarios(scenarios)
    evaluation.full_clean()
    save_as(evaluation, user)
    evaluation.scenarios.set(scenarios)
    save_as(Membership(evaluation=evaluation, user=user, role=MemberRole.OWNER), user)
    _facts_save(evaluation, user, facts)
    return evaluation


def _split_facts(fields: dict) -> dict[str, bool]:
    """Take the requirements that are context answers (models.FACT_FLAGS) out of `fields`."""
    facts = {name: fields.pop(name) for name in FACT_FLAGS if name in fields}
    for name, value in facts.items():
        if not isinstance(value, bool):
            raise ValidationError({name: _("Give true or false.")})
    return facts


def _facts_save(evaluation: Evaluation, user, facts: dict[str, bool]) -> None:
    """A requirement box and its context question are one fact, stored as the answer: a ticked
    box answers yes; a cleared box turns a yes into no (an unanswered question or a "not sure
    yet" stays as it is, since clearing the box does not answer it)."""
    for name, required in facts.items():
        question = ContextQuestion.objects.filter(key=FACT_FLAGS[name]).first()
        answer = None
        if question is not None:
            answer = (
                ContextAnswer.objects.select_for_update()
                .filter(evaluation=evaluation, question=question)
                .first()
            )
        current = answer.value if answer is not None else None
        if required and current != AnswerValue.YES:
            value = AnswerValue.YES
        elif not required and current == AnswerValue.YES:
            value = AnswerValue.NO
        else:
            continue
        if question is None:
            raise ValidationError(
                {name: _("The context question this requirement answers is not installed.")}
            )
        answer = answer or ContextAnswer(evaluation=evaluation, question=question, version=0)
        bump(answer)
        answer.value = value
        answer.updated_by = user
        answer.full_clean()
        save_as(answer, user)


@transaction.atomic
def evaluation_update(
    *, user, evaluation: Evaluation, expected_version: int | None, scenarios=None, **fields
) -> Evaluation:
    evaluation_require_editable(user, evaluation)
    evaluation = lock_and_check(Evaluation, pk=evaluation.pk, expected_version=expected_version)
    for name in fields:
        if name not in EVALUATION_FIELDS:
            raise ValidationError({name: _("This field cannot be changed here.")})
    facts = _split_facts(fields)
    for name, value in fields.items():
        setattr(evaluation, name, _clean_text(value) if isinstance(value, str) else value)
    evaluation.full_clean()
    bump(evaluation)
    save_as(evaluation, user)
    if scenarios is not None:
        evaluation.scenarios.set(_validate_scenarios(scenarios))
    _facts_save(evaluation, user, facts)
    return evaluation


@transaction.atomic
def evaluation_type_decide(
    *,
    user,
    evaluation: Evaluation,
    solution_type: SolutionType | None,
    reason: str,
    expected_version: int | None,
) -> Evaluation:
    """Record which type of solution carries the main responsibility, and why (or clear it)."""
    evaluation_require_editable(user, evaluation)
    evaluation = lock_and_check(Evaluation, pk=evaluation.pk, expected_version=expected_version)
    reason = _clean_text(reason, (Evaluation, "main_type_reason", "reason"))
    if solution_type is not None and not reason:
        raise ValidationError(
            {"reason": _("Say why this type should carry the main responsibility.")}
        )
    evaluation.main_type = solution_type
    evaluation.main_type_reason = reason if solution_type is not None else ""
    evaluation._change_reason = reason
    bump(evaluation)
    save_as(evaluation, user)
    return evaluation


# --- members ---------------------------------------------------------------------------------


@transaction.atomic
def member_add(*, user, evaluation: Evaluation, member: User, role: str) -> Membership:
    _require_members_open(user, evaluation)
    if role not in MemberRole.values:
        raise ValidationError({"role": _("Unknown role '%(role)s'.") % {"role": role}})
    if not member.is_active:
        raise ValidationError({"user": _("This account is disabled.")})
    if evaluation.memberships.filter(user=member).exists():
        raise ValidationError(
            {"user": _("%(name)s is already a member.") % {"name": member.username}}
        )
    membership = Membership(evaluation=evaluation, user=member, role=role)
    save_as(membership, user)
    return membership


def _ensure_an_owner_remains(evaluation: Evaluation, leaving: Membership) -> None:
    # Lock the other owners too: two owners demoting each other at once must not both pass.
    others = (
        evaluation.memberships.select_for_update()
        .filter(role=MemberRole.OWNER)
        .exclude(pk=leaving.pk)
    )
    if leaving.role == MemberRole.OWNER and not others.exists():
        raise Conflict(_("An evaluation needs at least one owner; make someone else owner first."))


@transaction.atomic
def member_change_role(*, user, membership: Membership, role: str) -> Membership:
    evaluation = membership.evaluation
    _require_members_open(user, evaluation)
    if role not in MemberRole.values:
        raise ValidationError({"role": _("Unknown role '%(role)s'.") % {"role": role}})
    membership = Membership.objects.select_for_update().get(pk=membership.pk)
    if role != MemberRole.OWNER:
        _ensure_an_owner_remains(evaluation, membership)
    membership.role = role
    save_as(membership, user)
    return membership


@transaction.atomic
def member_remove(*, user, membership: Membership) -> None:
    evaluation = membership.evaluation
    _require_members_open(user, evaluation)
    _ensure_an_owner_remains(evaluation, membership)
    membership._history_user = user
    membership.delete()


# --- context ---------------------------------------------------------------------------------


@transaction.atomic
def context_answer_save(
    *,
    user,
    evaluation: Evaluation,
    question: ContextQuestion,
    value: str,
    detail: str = "",
    expected_version: int | None,
) -> ContextAnswer:
    """Create or update one context answer. `expected_version` 0 means "I saw no answer yet"."""
    evaluation_require_editable(user, evaluation)
    if value not in AnswerValue.values:
        raise ValidationError({"value": _("Answer yes, no or not sure yet.")})
    answer = lock_or_new(
        ContextAnswer, expected_version=expected_version, evaluation=evaluation, question=question
    )
    bump(answer)
    answer.value = value
    answer.detail = _clean_text(detail)
    answer.updated_by = user
    answer.full_clean()
    save_as(answer, user)
    return answer


# --- candidates ------------------------------------------------------------------------------


def _new_candidate(evaluation, solution, *, user, origin, reason="", rules=()) -> Candidate:
    if not solution.is_active:
        raise ValidationError(
            {"solution": _("%(s)s is not active in the catalog.") % {"s": solution}}
        )
    if evaluation.candidates.filter(solution=solution, stack_name="").exists():
        raise ValidationError(
            {"solution": _("%(s)s is already a candidate.") % {"s": solution.name}}
        )
    candidate = Candidate(
        evaluation=evaluation, solution=solution, origin=origin, reason=reason, added_by=user
    )
    candidate.full_clean(exclude=["evaluation", "solution"])
    try:
        with transaction.atomic():
            save_as(candidate, user)
    except IntegrityError:
        raise ValidationError(
            {"solution": _("%(s)s is already a candidate.") % {"s": solution.name}}
        ) from None
    if rules:
        candidate.rules.set(rules)
    candidate_added.send(sender=Candidate, candidate=candidate, user=user)
    return candidate


@transaction.atomic
def candidate_add(*, user, evaluation: Evaluation, solution: Solution, reason: str) -> Candidate:
    """Add a candidate by hand; the tech lead must say why (and, for a solution outside the
    chosen type, why it belongs on the shortlist all the same)."""
    evaluation_require_editable(user, evaluation)
    reason = _clean_text(reason)
    if not reason:
        outside = _outside_main_type(evaluation, [solution])
        if outside:
            raise ValidationError({"reason": outside})
        raise ValidationError({"reason": _("Say why this solution belongs on the shortlist.")})
    return _new_candidate(
        evaluation, solution, user=user, origin=CandidateOrigin.MANUAL, reason=reason
    )


def _outside_main_type(evaluation: Evaluation, solutions) -> str:
    """The message asking for a reason when any of `solutions` lies outside the type decided
    to carry the main responsibility; "" when none does (or no type is decided)."""
    main = evaluation.main_type_id
    outside = [s.name for s in solutions if main is not None and s.solution_type_id != main]
    if not outside:
        return ""
    return _(
        "Outside the chosen type (%(type)s): %(names)s. Give the reason for adding a solution "
        "of another type."
    ) % {"names": ", ".join(outside), "type": evaluation.main_type.name}


STACK_MIN_LAYERS = 2


@transaction.atomic
def candidate_compose_stack(
    *,
    user,
    evaluation: Evaluation,
    name: str,
    reason: str,
    layers: dict[str, Solution],
    main: str,
) -> Candidate:
    """Add a stack: several catalog solutions, each in a layer (role -> solution). `main` is the
    layer whose type carries the main responsibility; the stack's type is that layer's."""
    evaluation_require_editable(user, evaluation)
    name = _clean_text(name, (Candidate, "stack_name", "name"))
    reason = _clean_text(reason)
    layers = {role: solution for role, solution in layers.items() if solution is not None}
    errors = {}
    if not name:
        errors["name"] = _("Give the stack a name, e.g. “Volcano + enterprise platform”.")
    elif evaluation.candidates.filter(stack_name=name).exists():
        errors["name"] = _("Another stack in this evaluation is called %(name)s.") % {"name": name}
    if not reason:
        errors["reason"] = _("Say why this combination belongs on the shortlist.")
    unknown = sorted(set(layers) - set(LayerRole.values))
    if unknown:
        errors["layers"] = _("Unknown layer(s): %(roles)s.") % {"roles": ", ".join(unknown)}
    elif len(layers) < STACK_MIN_LAYERS:
        errors["layers"] = _(
            "A stack needs at least two layers; for one solution, add it as a single candidate."
        )
    else:
        solutions = list(layers.values())
        repeated = {s.name for s in solutions if solutions.count(s) > 1}
        inactive = {s.name for s in solutions if not s.is_active}
        if repeated:
            errors["layers"] = _("Each solution can fill one layer only: %(names)s.") % {
                "names": ", ".join(sorted(repeated))
            }
        elif inactive:
            errors["layers"] = _("Not active in the catalog: %(names)s.") % {
                "names": ", ".join(sorted(inactive))
            }
        elif main not in layers:
            errors["main"] = _(
                "Choose which of the stack's layers carries the main responsibility."
            )
    if errors:
        raise ValidationError(errors)
    candidate = Candidate(
        evaluation=evaluation,
        solution=layers[main],
        stack_name=name,
        origin=CandidateOrigin.MANUAL,
        reason=reason,
        added_by=user,
    )
    candidate.full_clean(exclude=["evaluation", "solution"])
    try:
        with transaction.atomic():
            save_as(candidate, user)
    except IntegrityError:
        raise ValidationError(
            {"name": _("Another stack in this evaluation is called %(name)s.") % {"name": name}}
        ) from None
    for role, solution in layers.items():
        save_as(CandidateLayer(candidate=candidate, solution=solution, role=role), user)
    candidate_added.send(sender=Candidate, candidate=candidate, user=user)
    return candidate


@transaction.atomic
def candidates_accept_suggestions(
    *,
    user,
    evaluation: Evaluation,
    solution_ids: Iterable[int] | None = None,
    reason: str = "",
) -> list[Candidate]:
    """Add suggested solutions (all, or the given ones) with the rules that suggested them.

    Once a type is decided, a suggestion of another type is added only with a `reason` (kept
    on the candidate); without one nothing is added."""
    evaluation_require_editable(user, evaluation)
    reason = _clean_text(reason, (Candidate, "reason", "reason"))
    suggestions = {s.solution.pk: s for s in shortlist_suggest(evaluation)}
    wanted = list(suggestions) if solution_ids is None else [int(i) for i in solution_ids]
    not_suggested = [i for i in wanted if i not in suggestions]
    if not_suggested:
        names = Solution.objects.filter(pk__in=not_suggested).values_list("name", flat=True)
        raise ValidationError(
            {
                "solutions": _("Not suggested for this evaluation: %(names)s.")
                % {"names": ", ".join(names) or ", ".join(map(str, not_suggested))}
            }
        )
    new = [suggestions[pk] for pk in wanted if suggestions[pk].already is None]
    if not reason:
        outside = _outside_main_type(evaluation, [s.solution for s in new])
        if outside:
            raise ValidationError({"reason": outside})
    return [
        _new_candidate(
            evaluation,
            s.solution,
            user=user,
            origin=CandidateOrigin.SUGGESTED,
            rules=s.rules,
            reason=reason if s.outside_main_type else "",
        )
        for s in new
    ]


@transaction.atomic
def candidate_eliminate(
    *, user, candidate: Candidate, reason: str, expected_version: int | None
) -> Candidate:
    evaluation_require_editable(user, candidate.evaluation)
    reason = _clean_text(reason, (Candidate, "elimination_reason", "reason"))
    if not reason:
        raise ValidationError({"reason": _("Give the reason for eliminating this candidate.")})
    candidate = lock_and_check(Candidate, pk=candidate.pk, expected_version=expected_version)
    if candidate.status == CandidateStatus.ELIMINATED:
        raise Conflict(_("%(s)s is already eliminated.") % {"s": candidate.name})
    candidate.status = CandidateStatus.ELIMINATED
    candidate.elimination_reason = reason
    candidate.eliminated_by = user
    candidate.eliminated_at = timezone.now()
    bump(candidate)
    save_as(candidate, user)
    return candidate


@transaction.atomic
def candidate_restore(*, user, candidate: Candidate, expected_version: int | None) -> Candidate:
    evaluation_require_editable(user, candidate.evaluation)
    candidate = lock_and_check(Candidate, pk=candidate.pk, expected_version=expected_version)
    if candidate.status != CandidateStatus.ELIMINATED:
        raise Conflict(_("%(s)s is not eliminated.") % {"s": candidate.name})
    candidate.status = CandidateStatus.SHORTLISTED
    candidate.elimination_reason = ""
    candidate.eliminated_by = None
    candidate.eliminated_at = None
    bump(candidate)
    save_as(candidate, user)
    return candidate


# --- the five questions ----------------------------------------------------------------------


@transaction.atomic
def answer_save(
    *,
    user,
    candidate: Candidate,
    question: FiveQuestion,
    parties: list[str] | None = None,
    assessment: str = Assessment.UNKNOWN,
    budget: str = BudgetFocus.UNKNOWN,
    explanation: str,
    evidence_url: str = "",
    expected_version: int | None,
) -> QuestionAnswer:
    """Create or update one candidate's answer to one question (0 = "I saw no answer yet").

    What the answer holds follows the question's scale: the parties of a who-question (keys of
    this evaluation's parties), the budget's weight, or yes / partly / no. Parts outside the
    scale are validated like the rest, then stored blank (they would say nothing).
    """
    evaluation_require_editable(user, candidate.evaluation)
    if candidate.status != CandidateStatus.SHORTLISTED:
        raise Conflict(_("%(s)s is eliminated; restore it first.") % {"s": candidate.name})
    errors = {}
    try:
        parties = clean_parties(parties, party_choices(candidate.evaluation))
    except ValidationError as error:
        errors.update(error.message_dict)
    if assessment not in Assessment.values:
        errors["assessment"] = _("Choose yes, partly, no or unknown.")
    if budget not in BudgetFocus.values:
        errors["budget"] = _("Choose what the budget weighs more: %(choices)s.") % {
            "choices": ", ".join(BudgetFocus.values)
        }
    if errors:
        raise ValidationError(errors)
    answer = lock_or_new(
        QuestionAnswer, expected_version=expected_version, candidate=candidate, question=question
    )
    bump(answer)
    answer.parties = parties if question.scale == AnswerScale.PARTIES else []
    answer.assessment = (
        assessment if question.scale == AnswerScale.ASSESSMENT else Assessment.UNKNOWN
    )
    answer.budget = budget if question.scale == AnswerScale.BUDGET else BudgetFocus.UNKNOWN
    answer.explanation = _clean_text(explanation)
    answer.evidence_url = _clean_text(evidence_url)
    answer.updated_by = user
    answer.full_clean()
    save_as(answer, user)
    return answer


# --- decision and status ---------------------------------------------------------------------


@transaction.atomic
def decision_save(
    *,
    user,
    evaluation: Evaluation,
    chosen: Iterable[Candidate],
    rationale: str,
    decided_on: datetime.date | None,
    decided_by: str,
    expected_version: int | None,
) -> Decision:
    evaluation_require_editable(user, evaluation)
    chosen = list(chosen)
    foreign = [c for c in chosen if c.evaluation_id != evaluation.pk]
    if foreign:
        raise ValidationError({"chosen": _("Choose candidates of this evaluation only.")})
    eliminated = [c.name for c in chosen if c.status != CandidateStatus.SHORTLISTED]
    if eliminated:
        raise ValidationError(
            {
                "chosen": _("Eliminated candidates cannot be chosen: %(names)s.")
                % {"names": ", ".join(eliminated)}
            }
        )
    decision = lock_or_new(Decision, expected_version=expected_version, evaluation=evaluation)
    bump(decision)
    decision.rationale = _clean_text(rationale)
    decision.decided_on = decided_on
    decision.decided_by = _clean_text(decided_by)
    decision.recorded_by = user
    decision.full_clean()
    save_as(decision, user)
    decision.chosen.set(chosen)
    return decision


# The headings the decided gate groups its items under, by the place that fixes them.
GATE_GROUPS = {
    "shortlist": pgettext_lazy("candidate list", "Shortlist"),
    "questions": gettext_lazy("Five questions"),
    "decision": gettext_lazy("Decision record"),
}


class GateItem(str):
    """One thing missing before an evaluation may be marked decided: its text (what the API
    returns) and the place that fixes it (`place`: "shortlist", "decision" or "questions", with
    `candidate` and `question` for an answer), which pages turn into a link; `group` is the
    heading pages list it under."""

    def __new__(cls, text: str, place: str, **where):
        item = super().__new__(cls, text)
        item.place, item.where = place, where
        item.group, item.note = GATE_GROUPS[place], ""
        return item


def decided_gate_missing(evaluation: Evaluation) -> list[GateItem]:
    """Everything that keeps this evaluation from being marked decided; empty when it may be."""
    data = evaluation_data(evaluation)
    missing = []
    if not data.shortlisted:
        missing.append(GateItem(_("No candidate is shortlisted."), "shortlist"))
    for row in data.progress():
        for question, parts in row.missing:
            what = (
                _("no answer")
                if parts == ["*"]
                else _("missing %(parts)s")
                % {"parts": pgettext("list separator", ", ").join(parts)}
            )
            text = _("%(candidate)s — question %(n)s “%(q)s”: %(what)s.") % {
                "candidate": row.candidate.name,
                "n": question.order,
                "q": question.text,
                "what": what,
            }
            missing.append(
                GateItem(text, "questions", candidate=row.candidate.pk, question=question.key)
            )
    decision = data.decision
    texts = []
    if decision is None:
        texts.append(_("There is no decision record."))
    else:
        if not decision.chosen.all():
            texts.append(_("The decision record names no chosen candidate."))
        if not decision.rationale:
            texts.append(_("The decision record has no rationale."))
        if not decision.decided_on:
            texts.append(_("The decision record has no date."))
        if not decision.decided_by:
            texts.append(_("The decision record does not say who decided."))
    missing.extend(GateItem(text, "decision") for text in texts)
    shortlisted = {c.pk: c for c in data.shortlisted}
    for chosen in decision.chosen.all() if decision is not None else []:
        candidate = shortlisted.get(chosen.pk)
        for check in candidate_checks(data, candidate) if candidate else []:
            if check.blocks_decision:
                text = _(
                    "%(candidate)s violates the hard constraint “%(constraint)s”: choose another "
                    "candidate, or the owner waives it with a reason."
                ) % {"candidate": candidate.name, "constraint": check.constraint.name}
                missing.append(GateItem(text, "shortlist", candidate=candidate.pk))
    return missing


def _check_for(user, candidate: Candidate, constraint: Constraint):
    evaluation = candidate.evaluation
    evaluation_require_editable(user, evaluation)
    if not user.has_perm("evaluations.waive_constraint", evaluation):
        raise Forbidden(_("Only the evaluation's owner waives a hard constraint."))
    data = evaluation_data(evaluation)
    found = [c for c in data.candidates if c.pk == candidate.pk]
    checks = candidate_checks(data, found[0]) if found else []
    return next((c for c in checks if c.constraint.pk == constraint.pk), None)


@transaction.atomic
def constraint_waive(
    *, user, candidate: Candidate, constraint: Constraint, reason: str
) -> ConstraintWaiver:
    """The owner accepts, with a reason, that a candidate violates a hard constraint."""
    check = _check_for(user, candidate, constraint)
    if check is None or check.verdict != Verdict.VIOLATES:
        raise ValidationError(
            {"constraint": _("Only a constraint this candidate violates can be waived.")}
        )
    if check.waiver is not None:
        raise Conflict(_("This constraint is already waived for this candidate."))
    reason = _clean_text(reason, (ConstraintWaiver, "reason", "reason"))
    if not reason:
        raise ValidationError({"reason": _("Say why the decision may accept this violation.")})
    waiver = ConstraintWaiver(candidate=candidate, constraint=constraint, reason=reason)
    waiver.waived_by = user
    waiver._change_reason = reason
    save_as(waiver, user)
    return waiver


@transaction.atomic
def constraint_waiver_withdraw(*, user, candidate: Candidate, constraint: Constraint) -> None:
    check = _check_for(user, candidate, constraint)
    if check is None or check.waiver is None:
        raise ValidationError(
            {"constraint": _("This constraint is not waived for this candidate.")}
        )
    check.waiver._history_user = user
    check.waiver.delete()


class GateRefused(Conflict):
    def __init__(self, missing: list[str], message: str | None = None):
        super().__init__(
            message
            or _("The evaluation cannot be marked decided yet. Missing: %(n)d item(s).")
            % {"n": len(missing)}
        )
        self.missing = missing


def _decided_gate(user, evaluation: Evaluation, reason: str) -> None:
    """What must hold before an evaluation is decided: evaluations' own list
    (`decided_gate_missing`), then each higher app's check (evaluations.extensions), which
    refuses with that list and its own items or lets the decision through."""
    missing = decided_gate_missing(evaluation)
    for check in extensions.decided_gate_checks():
        check(user, evaluation, reason, missing)
    if missing:
        raise GateRefused(missing)


@transaction.atomic
def evaluation_transition(
    *, user, evaluation: Evaluation, to_status: str, reason: str = ""
) -> Evaluation:
    """Move the status along the workflow. Leaving decided/archived is a reopen: owner only,
    with a reason, which is recorded. Every contributed status hook runs after the change is
    saved, in the same transaction (sign-off voids the approvals of a reopened decision)."""
    if to_status not in Status.values:
        raise ValidationError({"status": _("Unknown status '%(s)s'.") % {"s": to_status}})
    evaluation = Evaluation.objects.select_for_update().get(pk=evaluation.pk)
    current = Status(evaluation.status)
    target = Status(to_status)
    if target not in TRANSITIONS[current]:
        allowed = ", ".join(str(s.label) for s in TRANSITIONS[current]) or "—"
        raise Conflict(
            _("An evaluation cannot go from %(a)s to %(b)s. Allowed next: %(allowed)s.")
            % {"a": current.label, "b": target.label, "allowed": allowed}
        )
    reason = _clean_text(reason, (StatusChange, "reason", "reason"))
    reopening = evaluation.is_sealed and target not in (Status.DECIDED, Status.ARCHIVED)
    if reopening:
        _require(user, "evaluations.reopen_evaluation", evaluation)
        if not reason:
            raise ValidationError({"reason": _("Give the reason for reopening.")})
    else:
        _require(user, "evaluations.change_status", evaluation)
    if target == Status.DECIDED:
        _decided_gate(user, evaluation, reason)
    StatusChange.objects.create(
        evaluation=evaluation,
        from_status=current,
        to_status=target,
        reason=reason,
        changed_by=user,
    )
    evaluation.status = target
    evaluation._change_reason = reason  # shown with this change on the History tab
    bump(evaluation)
    save_as(evaluation, user)
    for hook in extensions.status_hooks():
        hook(user, evaluation, current, target, reason)
    return evaluation
