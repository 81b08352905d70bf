"""The members page: the owner adds members, changes their roles and removes them. Each
form is its own view (common.views.PageAction) behind one URL."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.translation import gettext_lazy
from django.views import View

from common.views import ActionRouter, PageAction

from . import services
from .forms import MemberAddForm, MemberChangeRoleForm, MembershipForm
from .models import Membership
from .people import people_matching
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
        add_form = extra.setdefault("add_form", MemberAddForm())
        # As the owner types, the people matching it fill the field's list (MemberSearchView).
        add_form.fields["username"].widget.attrs.update(
            {
                "hx-get": reverse("evaluations:member_search", kwargs={"pk": self.evaluation.pk}),
                "hx-trigger": "input changed delay:250ms",
                "hx-target": "#member-options",
                "hx-sync": "this:replace",
            }
        )
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


class MemberSearchView(EvaluationMixin, View):
    """The people matching what the owner typed into the add form, as the options of its list
    (at most a few, never members already). Only those who manage members may search."""

    def get(self, request, pk):
        if not request.user.has_perm("evaluations.manage_members", self.evaluation):
            raise PermissionDenied
        people = people_matching(request.GET.get("username", ""), evaluation=self.evaluation)
        return render(request, "evaluations/partials/member_options.html", {"people": people})
