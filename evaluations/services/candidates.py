"""The shortlist: candidates added by hand or from the rules' suggestions, stacks, elimination
and restoring."""

from __future__ import annotations

from collections.abc import Iterable

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from catalog.models import Solution
from common.concurrency import bump, lock_and_check
from common.exceptions import Conflict
from common.history import save_as

from ..models import (
    Candidate,
    CandidateLayer,
    CandidateOrigin,
    CandidateStatus,
    Evaluation,
    LayerRole,
)
from ..selectors import shortlist_suggest
from ..signals import candidate_added
from .checks import clean_text, evaluation_require_editable


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
    reason = clean_text(reason)
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
    name = clean_text(name, (Candidate, "stack_name", "name"))
    reason = clean_text(reason)
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
    reason = clean_text(reason, (Candidate, "reason", "reason"))
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
    reason = clean_text(reason, (Candidate, "elimination_reason", "reason"))
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
