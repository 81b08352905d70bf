"""The members page: the owner adds members, changes their roles and removes them. Each
form is its own view (common.views.PageAction) behind one URL."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext_lazy
from django.views import View

from common.views import ActionRouter, PageAction

from . import services
from .forms import MemberAddForm, MemberChangeRoleForm, MembershipForm
from .models import Membership
from .scoped import EvaluationMixin


class MembersPage(EvaluationMixin, PageAction):
    tab = "members"
    template_name = "evaluations/members.html"
    success_message = gettext_lazy("Members updated.")
    errors_as_message = True

    def context(self, form=None, error=None, **extra):
        members = self.evaluation.memberships.select_related("user").order_by(
            "role", "user__username"
        )
        extra.setdefault("add_form", MemberAddForm())
        return {"members": members, "error": error, **extra}

    def success_url(self):
        return reverse("evaluations:evaluation_members", kwargs={"pk": self.evaluation.pk})

    def membership(self, form):
        return get_object_or_404(
            Membership, pk=form.cleaned_data["membership"], evaluation=self.evaluation
        )


class MemberAddView(MembersPage, View):
    form_class = MemberAddForm
    errors_as_message = False  # the add form shows its errors next to its fields

    def context(self, form=None, error=None, **extra):
        return super().context(form, error, add_form=form, **extra)

    def perform(self, form):
        return services.member_add(
            user=self.request.user,
            evaluation=self.evaluation,
            member=form.cleaned_data["username"],
            role=form.cleaned_data["role"],
        )


class MemberChangeRoleView(MembersPage, View):
    form_class = MemberChangeRoleForm

    def perform(self, form):
        return services.member_change_role(
            user=self.request.user,
            membership=self.membership(form),
            role=form.cleaned_data["role"],
        )


class MemberRemoveView(MembersPage, View):
    form_class = MembershipForm

    def perform(self, form):
        return services.member_remove(user=self.request.user, membership=self.membership(form))


class MembersView(ActionRouter, MembersPage, View):
    actions = {"add": MemberAddView, "role": MemberChangeRoleView, "remove": MemberRemoveView}

    def get(self, request, pk):
        return self.answer(self.context())
