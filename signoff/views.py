"""The approvals page, reached from the Decision tab: the owner names approvers among the
members and withdraws undecided requests; an approver approves or rejects a finished report of
the decided evaluation, by its snapshot's SHA-256. Members only (404 otherwise); signoff.services
decides. Also the blocks sign-off adds to other pages (evaluations.extensions.Panel): the link
from the Decision tab and the home page's list of the viewer's waiting requests."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext_lazy
from django.views import View

from common.views import ActionRouter, PageAction
from evaluations.scoped import EvaluationMixin

from . import selectors, services
from .forms import DecideForm, RequestForm, WithdrawForm

HOME_APPROVALS = 10  # the home page lists this many of my waiting approval requests


class ApprovalsPage(EvaluationMixin, PageAction):
    tab = "decision"
    template_name = "signoff/approvals.html"
    errors_as_message = True

    def members(self) -> list:
        if getattr(self, "_members", None) is None:
            rows = self.evaluation.memberships.select_related("user").order_by("user__username")
            self._members = [m.user for m in rows]
        return self._members

    def form_kwargs(self) -> dict:
        # Every member is a valid choice (the service refuses a second active request with
        # its own message); the page offers those not asked yet.
        return {"members": self.members()} if self.form_class is RequestForm else {}

    def context(self, form=None, error=None, **extra):
        e, user = self.evaluation, self.request.user
        rows = list(selectors.approvals_of(e))
        can_request = user.has_perm("signoff.request_approval", e)
        mine = [a for a in rows if a.active and a.approver_id == user.pk]
        can_decide = bool(mine) and user.has_perm("signoff.decide_approval", e)
        runs = selectors.approvable_runs(e) if can_decide else []
        request_form = form if isinstance(form, RequestForm) else None
        if can_request and request_form is None:
            request_form = RequestForm(members=self.members())
        asked = {a.approver_id for a in rows if a.active}
        return {
            "rows": rows,
            "active": [a for a in rows if a.active],
            "voided": [a for a in rows if not a.active],
            "mine": mine,
            "can_request": can_request,
            "can_decide": can_decide,
            "request_form": request_form,
            "choosable": [u for u in self.members() if u.pk not in asked] if can_request else [],
            "decide_form": form if isinstance(form, DecideForm) else None,
            "runs": runs,
            "error": error,
            **extra,
        }

    def success_url(self):
        return reverse("signoff:approvals", kwargs={"pk": self.evaluation.pk})

    def approval(self, form):
        return selectors.approval_get(self.evaluation, form.cleaned_data["id"])


class RequestView(ApprovalsPage, View):
    form_class = RequestForm
    success_message = gettext_lazy("Approver named.")

    def perform(self, form):
        chosen = form.cleaned_data["approver"]
        approver = next((u for u in self.members() if u.pk == chosen), None)
        return services.approval_request(
            user=self.request.user,
            evaluation=self.evaluation,
            approver=approver,
            role=form.cleaned_data["role"],
        )


class WithdrawView(ApprovalsPage, View):
    form_class = WithdrawForm
    success_message = gettext_lazy("Request withdrawn.")

    def perform(self, form):
        return services.approval_withdraw(
            user=self.request.user,
            approval=self.approval(form),
            expected_version=form.cleaned_data["version"],
        )


class DecideView(ApprovalsPage, View):
    form_class = DecideForm
    success_message = gettext_lazy("Your decision is recorded.")

    def perform(self, form):
        data = form.cleaned_data
        return services.approval_decide(
            user=self.request.user,
            approval=self.approval(form),
            decision=data["decision"],
            run_id=data["run"],
            comment=data["comment"],
            change=data["change"],
            expected_version=data["version"],
        )


class ApprovalsView(ActionRouter, ApprovalsPage, View):
    actions = {"request": RequestView, "withdraw": WithdrawView, "decide": DecideView}

    def get(self, request, pk):
        return self.answer(self.context())


def home_requests(user, evaluation=None) -> dict:
    """The home page's panel: the viewer's requests waiting for their decision (one query)."""
    return {"approval_requests": selectors.pending_for(user, limit=HOME_APPROVALS)}
