"""The declared-conflicts page under the POC tab: my declaration per candidate, and for the
owner every member's declaration with the decision to allow scoring despite a conflict (or to
revoke that). Members only (404 otherwise); the services (services.py) decide."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext_lazy
from django.views import View

from common.views import ActionRouter, PageAction
from evaluations.models import MemberRole
from evaluations.scoped import EvaluationMixin

from . import services
from .forms import (
    AllowanceForm,
    DeclarationsForm,
    RevokeForm,
    declaration_rows,
)
from .models import ConflictDeclaration

SCORING_ROLES = (MemberRole.OWNER, MemberRole.EDITOR, MemberRole.REVIEWER)


def undeclared(evaluation, candidates, rows) -> list[tuple[object, list]]:
    """Per candidate, the scoring members who have not declared for it yet (owner's view)."""
    members = [
        m.user
        for m in evaluation.memberships.select_related("user").order_by("user__username")
        if m.role in SCORING_ROLES
    ]
    declared = {(d.candidate_id, d.member_id) for d in rows}
    out = []
    for candidate in candidates:
        missing = [u for u in members if (candidate.pk, u.pk) not in declared]
        if missing:
            out.append((candidate, missing))
    return out


class ConflictsPage(EvaluationMixin, PageAction):
    tab = "poc"
    template_name = "poc/conflicts.html"
    success_message = gettext_lazy("Saved.")
    errors_as_message = True

    def context(self, form=None, error=None, **extra):
        e, user = self.evaluation, self.request.user
        candidates = services.shortlisted(e)
        services.mark_candidates(candidates, e, user)
        rows = services.declarations(e, user)
        declare_form = extra.pop("declare_form", None)  # my declarations as sent, if refused
        # The vendors in the reader's language (as declared, for a candidate no longer listed).
        named = {c.pk: c.vendors for c in candidates}
        for d in rows:
            d.vendors_shown = named.get(d.candidate_id, d.vendors)
        sees_all = user.has_perm("poc.see_all_declarations", e)
        return {
            "candidates": candidates,
            "declare_rows": declaration_rows(candidates, declare_form),
            "declare_errors": declare_form.non_field_errors() if declare_form else [],
            "rows": rows,
            "sees_all": sees_all,
            "undeclared": undeclared(e, candidates, rows) if sees_all else [],
            "can_declare": user.has_perm("poc.declare_conflict", e),
            "can_decide": user.has_perm("poc.decide_conflict", e),
            "error": error,
            **extra,
        }

    def success_url(self):
        return reverse("poc:conflicts", kwargs={"pk": self.evaluation.pk})

    def declaration(self, form) -> ConflictDeclaration:
        return get_object_or_404(
            ConflictDeclaration, pk=form.cleaned_data["id"], evaluation=self.evaluation
        )


class DeclareView(ConflictsPage, View):
    """My declarations for every candidate I chose something for, in one submit."""

    form_class = DeclarationsForm
    errors_as_message = False  # each candidate's row shows its own errors
    success_message = gettext_lazy("Declarations saved.")

    def form_kwargs(self):
        return {"candidates": services.shortlisted(self.evaluation)}

    def context(self, form=None, error=None, **extra):
        return super().context(form, error, declare_form=form, **extra)

    def perform(self, form):
        self.back_to_scorecard = form.cleaned_data["next"] == "scorecard"
        return services.declarations_save(
            user=self.request.user, evaluation=self.evaluation, rows=form.rows()
        )

    def success_url(self):
        if getattr(self, "back_to_scorecard", False):
            return reverse("poc:scorecard", kwargs={"pk": self.evaluation.pk})
        return super().success_url()


class AllowView(ConflictsPage, View):
    form_class = AllowanceForm
    success_message = gettext_lazy("Scoring despite the declared conflict is allowed.")

    def perform(self, form):
        return services.allowance_grant(
            user=self.request.user,
            declaration=self.declaration(form),
            reason=form.cleaned_data["reason"],
            expected_version=form.cleaned_data["version"],
        )


class RevokeView(ConflictsPage, View):
    form_class = RevokeForm
    success_message = gettext_lazy("Allowance revoked: the conflict blocks scoring again.")

    def perform(self, form):
        return services.allowance_revoke(
            user=self.request.user,
            declaration=self.declaration(form),
            expected_version=form.cleaned_data["version"],
        )


class ConflictsView(ActionRouter, ConflictsPage, View):
    actions = {
        "declare": DeclareView,
        "allow": AllowView,
        "revoke": RevokeView,
    }

    def get(self, request, pk):
        return self.answer(self.context())
