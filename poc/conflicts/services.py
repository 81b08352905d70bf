"""Declared conflicts of interest: who may score which candidate, the declarations and the
owner's decisions on them. Pages and the API call these; `poc.services` asks
`require_clear` before every score write, so no route can score past a declaration.

The rule (`scoring_block`): a member scores a candidate only after declaring, for that
candidate, either no relationship with its vendor(s) or what the relationship is; a declared
conflict blocks their scoring of that candidate until the owner allows it with a reason. The
owner never allows their own conflict. Changing a declaration withdraws an allowance, so the
owner decides again on what is declared now.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _

from common.concurrency import bump, lock_and_check, lock_or_new
from common.exceptions import Conflict, Forbidden
from common.history import save_as
from common.people import person_name
from evaluations.extensions import HistorySource
from evaluations.locking import evaluation_lock_for
from evaluations.models import Candidate, CandidateLayer, CandidateStatus, Evaluation, LayerRole

from .models import ConflictDeclaration

UNDECLARED = "undeclared"
CONFLICT = "conflict"


# --- the rule --------------------------------------------------------------------------------


def scoring_block(*, declared: bool, has_conflict: bool, allowed: bool) -> str | None:
    """Why a member may not score a candidate (UNDECLARED, CONFLICT), or None when they may."""
    if not declared:
        return UNDECLARED
    if has_conflict and not allowed:
        return CONFLICT
    return None


def block_of(declaration: ConflictDeclaration | None) -> str | None:
    if declaration is None:
        return scoring_block(declared=False, has_conflict=False, allowed=False)
    return scoring_block(
        declared=True, has_conflict=declaration.has_conflict, allowed=declaration.allowed
    )


def _vendor_names(solutions) -> str:
    return "; ".join(f"{s.maintainer} ({s.name})" for s in solutions)


def vendors_of(candidate: Candidate) -> str:
    """The candidate's vendor(s) from the catalog: each solution's maintainer, with the
    solution named (a stack lists every layer)."""
    return _vendor_names(
        [layer.solution for layer in candidate.stack_layers] or [candidate.solution]
    )


def block_message(candidate: Candidate, declaration: ConflictDeclaration | None) -> str:
    """What a member is told where a score of `candidate` is refused ("" when it is not)."""
    return _message(candidate, None, declaration)


def _message(candidate: Candidate, vendors: str | None, declaration) -> str:
    block = block_of(declaration)
    if block == UNDECLARED:
        return _(
            "Declare any relationship with the vendor of %(candidate)s (%(vendors)s) before "
            "scoring it: none, or what the relationship is."
        ) % {"candidate": candidate.name, "vendors": vendors or vendors_of(candidate)}
    if block == CONFLICT:
        return _(
            "You declared a conflict of interest with %(candidate)s: your scoring of it is "
            "blocked unless the owner allows it with a reason."
        ) % {"candidate": candidate.name}
    return ""


def require_clear(user, candidate: Candidate) -> None:
    """Refuse (409) a score write by `user` on `candidate` that the rule blocks."""
    declaration = ConflictDeclaration.objects.filter(candidate=candidate, member=user).first()
    message = block_message(candidate, declaration)
    if message:
        raise Conflict(message)


# --- reads -----------------------------------------------------------------------------------


def shortlisted(evaluation: Evaluation) -> list[Candidate]:
    return list(
        Candidate.objects.filter(evaluation=evaluation, status=CandidateStatus.SHORTLISTED)
        .select_related("solution")
        .prefetch_related("layers__solution")
    )


def my_declarations(evaluation: Evaluation, user) -> dict[int, ConflictDeclaration]:
    """The user's declarations in this evaluation, by candidate id."""
    rows = ConflictDeclaration.objects.filter(evaluation=evaluation, member=user)
    return {d.candidate_id: d for d in rows.select_related("decided_by")}


def mark_candidates(candidates, evaluation: Evaluation, user) -> list[Candidate]:
    """Set `scoring_block` (a message, or ""), `vendors` and `declaration` on each candidate for
    `user`; return those still waiting for the user's declaration. One query (two with a stack
    among the candidates), whatever the number of candidates."""
    mine = my_declarations(evaluation, user)
    layers: dict[int, list] = {}
    if any(c.stack_name for c in candidates):
        rows = CandidateLayer.objects.filter(candidate__in=[c.pk for c in candidates])
        for layer in rows.select_related("solution"):
            layers.setdefault(layer.candidate_id, []).append(layer)
    waiting = []
    for candidate in candidates:
        if candidate.stack_name:
            order = LayerRole.values
            stack = sorted(layers.get(candidate.pk, []), key=lambda la: order.index(la.role))
            candidate.vendors = _vendor_names([la.solution for la in stack] or [candidate.solution])
        else:
            candidate.vendors = _vendor_names([candidate.solution])
        declaration = mine.get(candidate.pk)
        candidate.declaration = declaration
        candidate.scoring_block = _message(candidate, candidate.vendors, declaration)
        candidate.scoring_block_short = {
            UNDECLARED: _("Declare your relationship with the vendor first."),
            CONFLICT: _("Blocked: you declared a conflict of interest."),
        }.get(block_of(declaration), "")
        if declaration is None:
            waiting.append(candidate)
    return waiting


def declarations(evaluation: Evaluation, user) -> list[ConflictDeclaration]:
    """The declarations `user` may read: every member's for the owner and viewers (and for
    everyone once the evaluation is sealed), their own otherwise."""
    rows = ConflictDeclaration.objects.filter(evaluation=evaluation).select_related(
        "member", "decided_by", "candidate__solution"
    )
    if not user.has_perm("poc.see_all_declarations", evaluation):
        rows = rows.filter(member=user)
    return list(rows.order_by("candidate__solution__name", "candidate__stack_name", "member_id"))


def declaration_get(evaluation: Evaluation, user, pk) -> ConflictDeclaration:
    """One declaration the user may read (404 otherwise, whether or not it exists)."""
    for row in declarations(evaluation, user):
        if str(row.pk) == str(pk):
            return row
    raise Http404


# --- writes ----------------------------------------------------------------------------------


@transaction.atomic
def declaration_save(
    *, user, candidate: Candidate, has_conflict: bool, description: str = "", expected_version
) -> ConflictDeclaration:
    """My declaration for one candidate: no relationship with its vendor(s), or what it is."""
    evaluation = candidate.evaluation
    evaluation_lock_for(user, evaluation, "poc.declare_conflict")
    if candidate.status != CandidateStatus.SHORTLISTED:
        raise Conflict(_("%(s)s is eliminated; it is not scored.") % {"s": candidate.name})
    description = (description or "").strip() if has_conflict else ""
    if has_conflict and not description:
        raise ValidationError(
            {
                "description": _(
                    "Describe the relationship (for example former employee, shareholding, "
                    "reseller agreement)."
                )
            }
        )
    row = lock_or_new(
        ConflictDeclaration, expected_version=expected_version, candidate=candidate, member=user
    )
    changed = row.pk is None or (row.has_conflict, row.description) != (
        bool(has_conflict),
        description,
    )
    row.evaluation = evaluation
    row.has_conflict = bool(has_conflict)
    row.description = description
    if changed:
        row.declared_at = timezone.now()
        row.vendors = vendors_of(candidate)[:500]
        row.allowed, row.allowance_reason = False, ""  # the owner decides on what is declared now
        row.decided_by, row.decided_at = None, None
    _save(row, user)
    return row


def declarations_save(*, user, evaluation: Evaluation, rows) -> list[ConflictDeclaration]:
    """Several of my declarations at once, all or none: `rows` holds (candidate, has_conflict,
    description, expected_version). A refused row names its candidate's fields
    (`c<id>-description`), and a stale one refuses the whole set."""
    saved = []
    with transaction.atomic():
        for candidate, has_conflict, description, version in rows:
            candidate.evaluation = evaluation
            try:
                saved.append(
                    declaration_save(
                        user=user,
                        candidate=candidate,
                        has_conflict=has_conflict,
                        description=description,
                        expected_version=version,
                    )
                )
            except ValidationError as exc:
                errors = getattr(exc, "message_dict", {"description": exc.messages})
                raise ValidationError(
                    {f"c{candidate.pk}-{name}": messages for name, messages in errors.items()}
                ) from exc
    return saved


def _save(row: ConflictDeclaration, user) -> None:
    """Validate and save a declaration one version up, recording who changed it."""
    bump(row)
    row.full_clean(exclude=["evaluation", "candidate", "member", "decided_by"])
    save_as(row, user)


@transaction.atomic
def allowance_grant(
    *, user, declaration: ConflictDeclaration, reason: str, expected_version
) -> ConflictDeclaration:
    """The owner lets a member score a candidate despite their declared conflict, saying why."""
    evaluation_lock_for(user, declaration.evaluation, "poc.decide_conflict")
    row = lock_and_check(ConflictDeclaration, pk=declaration.pk, expected_version=expected_version)
    if row.member_id == user.pk:
        raise Forbidden(_("You cannot allow your own declared conflict of interest."))
    if not row.has_conflict:
        raise Conflict(_("This member declared no conflict for this candidate: nothing to allow."))
    reason = (reason or "").strip()
    if not reason:
        raise ValidationError({"reason": _("Say why this member may score despite the conflict.")})
    row.allowed, row.allowance_reason = True, reason
    row.decided_by, row.decided_at = user, timezone.now()
    _save(row, user)
    return row


@transaction.atomic
def allowance_revoke(
    *, user, declaration: ConflictDeclaration, expected_version
) -> ConflictDeclaration:
    """The owner withdraws an allowance: the conflict blocks scoring again (scores already
    submitted stay, as every submitted score does)."""
    evaluation_lock_for(user, declaration.evaluation, "poc.decide_conflict")
    row = lock_and_check(ConflictDeclaration, pk=declaration.pk, expected_version=expected_version)
    if not row.allowed:
        raise Conflict(_("Scoring despite this conflict is not allowed: nothing to revoke."))
    row.allowed, row.allowance_reason = False, ""
    row.decided_by, row.decided_at = user, timezone.now()
    bump(row)
    save_as(row, user)
    return row


# --- history ---------------------------------------------------------------------------------


def _describe(record) -> str:
    candidate = record.candidate.name if record.candidate else f"#{record.candidate_id}"
    member = record.member
    who = person_name(member) if member else f"#{record.member_id}"
    return f"{candidate} — {who}"


def history_source():
    """Declarations and the owner's decisions on them show on the evaluation's History tab
    (and in the report's change history)."""
    return HistorySource(
        "conflictdeclaration",
        rows=lambda evaluation: ConflictDeclaration.history.filter(evaluation_id=evaluation.pk),
        describe=_describe,
        related=("candidate__solution", "member"),
    )
