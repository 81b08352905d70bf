"""Writes to support terms (pages and the API call these): each is atomic, checks that the user
may edit the evaluation and that the candidate is shortlisted, and refuses a stale edit."""

from __future__ import annotations

from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from common.concurrency import bump, lock_and_check, lock_or_new
from common.exceptions import Conflict
from common.history import save_as
from evaluations.models import Candidate, CandidateStatus
from evaluations.services import evaluation_require_editable

from .models import SourceKind, SupportTerm
from .terms import BY_KEY


def _editable(user, candidate: Candidate) -> None:
    evaluation_require_editable(user, candidate.evaluation)
    if candidate.status != CandidateStatus.SHORTLISTED:
        raise Conflict(_("%(s)s is eliminated; restore it first.") % {"s": candidate.name})


@transaction.atomic
def support_term_save(
    *,
    user,
    candidate: Candidate,
    term: str,
    expected_version: int | None,
    amount: Decimal | None = None,
    text: str = "",
    source_kind: str = SourceKind.CONTRACT,
    source: str = "",
    source_url: str = "",
) -> SupportTerm:
    """Record or change one term of the candidate (version 0: the editor saw none saved)."""
    if term not in BY_KEY:
        raise ValidationError({"term": _("Choose one of the listed support terms.")})
    _editable(user, candidate)
    row = lock_or_new(
        SupportTerm, expected_version=expected_version, candidate=candidate, term=term
    )
    row.amount, row.text = amount, text or ""
    row.source_kind, row.source, row.source_url = source_kind, source or "", source_url or ""
    row.updated_by = user
    row.full_clean(exclude=["candidate"])
    bump(row)
    save_as(row, user)
    return row


@transaction.atomic
def support_term_delete(*, user, row: SupportTerm, expected_version: int | None) -> None:
    _editable(user, row.candidate)
    row = lock_and_check(SupportTerm, pk=row.pk, expected_version=expected_version)
    row._history_user = user
    row.delete()
