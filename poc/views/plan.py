"""The POC plan page: one test plan for every candidate (cases, group and case weights, the
scenario profile's weights). Each form posts an `action` to the page; each action is a view."""

from __future__ import annotations

from django import forms
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views import View

from common.views import ActionRouter, PageAction
from evaluations.scoped import EvaluationMixin

from .. import services
from ..forms import (
    CustomCaseForm,
    LibraryCaseForm,
    PlanCaseForm,
    ProfileForm,
    VerifyCapabilityForm,
    WeightForm,
)
from ..models import PlanCase, PlanGroup
from ..selectors import (
    plan_cases,
    plan_default_profile,
    plan_groups,
    profile_in_use,
    profiles_with_scenarios,
    scored_case_ids,
)
from ..verification import CASE_CAPABILITIES


class PlanPage(EvaluationMixin, PageAction):
    """The plan page around each of its forms."""

    tab = "poc"
    page_cache = True
    template_name = "poc/plan.html"
    success_message = gettext_lazy("Plan updated.")
    errors_as_message = True

    def context(self, form=None, error=None, **extra):
        e = self.evaluation
        extra.setdefault("custom_form", CustomCaseForm())
        extra.setdefault("library_form", LibraryCaseForm(evaluation=e))
        groups = plan_groups(e)
        profiles = profiles_with_scenarios()
        return {
            "groups": groups,
            "cases": plan_cases(e).prefetch_related(*CASE_CAPABILITIES),
            "scored_cases": scored_case_ids(e),
            "profiles": profiles,
            "default_profile": plan_default_profile(e, profiles),
            "profile_in_use": profile_in_use(groups, profiles),
            "can_change_plan": self.request.user.has_perm("poc.change_plan", e),
            "error": error,
            **extra,
        }

    def success_url(self):
        return reverse("poc:plan", kwargs={"pk": self.evaluation.pk})


class PlanInitView(PlanPage, View):
    form_class = forms.Form

    def perform(self, form):
        n = services.plan_init(user=self.request.user, evaluation=self.evaluation)
        self.success_message = _("%(n)d case(s) added from the library.") % {"n": n}


class PlanLibraryCaseView(PlanPage, View):
    form_class = LibraryCaseForm
    errors_as_message = False  # shown next to the field

    def form_kwargs(self):
        return {"evaluation": self.evaluation}

    def context(self, form=None, error=None, **extra):
        return super().context(form, error, library_form=form, **extra)

    def perform(self, form):
        return services.plan_case_add_library(
            user=self.request.user, evaluation=self.evaluation, case=form.cleaned_data["case"]
        )


class PlanCustomCaseView(PlanPage, View):
    form_class = CustomCaseForm
    errors_as_message = False  # shown next to the fields

    def context(self, form=None, error=None, **extra):
        return super().context(form, error, custom_form=form, **extra)

    def perform(self, form):
        return services.plan_case_add_custom(
            user=self.request.user, evaluation=self.evaluation, **form.cleaned_data
        )


class PlanVerifyView(PlanPage, View):
    """The shortlist's "add the verifying POC case" button: adds it and shows the plan."""

    form_class = VerifyCapabilityForm

    def perform(self, form):
        case = services.plan_case_verify(
            user=self.request.user,
            evaluation=self.evaluation,
            capability=form.cleaned_data["capability"],
        )
        self.success_message = _("Added to the POC plan: “%(case)s”.") % {"case": case.shown_title}
        return case


class PlanWeightView(PlanPage, View):
    """A case's weight. With htmx each weight saves on change and answers its own small form
    (saved, or refused with the message and the saved weight); without, the page as usual."""

    form_class = WeightForm
    partial_template_name = "poc/partials/weight_form.html"
    model: type = PlanCase
    action = "case_weight"

    def weighted(self):
        pk = self.request.POST.get("id", "")
        return get_object_or_404(
            self.model, pk=pk if pk.isdigit() else 0, evaluation=self.evaluation
        )

    def context(self, form=None, error=None, **extra):
        if getattr(self.request, "htmx", False):
            row = self.weighted()
            row.refusal = error
            return {"row": row, "action": self.action, **extra}
        # The whole page again: the refusal belongs to the row that was sent, not to every row
        # the page's weight forms show.
        context = super().context(form, None, **extra)
        key = "groups" if self.model is PlanGroup else "cases"
        context[key] = list(context[key])
        for row in context[key]:
            if str(row.pk) == self.request.POST.get("id"):
                row.refusal = error
        return context

    def htmx_target(self):
        return f"#weight-{self.action}-{self.request.POST.get('id', '')}"

    def perform(self, form):
        return services.plan_weight_set(
            user=self.request.user,
            obj=self.weighted(),
            weight=form.cleaned_data["weight"],
            expected_version=form.cleaned_data["version"],
        )

    def success(self, result):
        if getattr(self.request, "htmx", False):
            return self.answer({"row": result, "action": self.action, "saved": True})
        return super().success(result)


class PlanGroupWeightView(PlanWeightView):
    model = PlanGroup
    action = "group_weight"


class PlanCaseRemoveView(PlanPage, View):
    form_class = PlanCaseForm

    def perform(self, form):
        case = get_object_or_404(PlanCase, pk=form.cleaned_data["id"], evaluation=self.evaluation)
        return services.plan_case_remove(user=self.request.user, case=case)


class PlanProfileView(PlanPage, View):
    form_class = ProfileForm

    def perform(self, form):
        return services.plan_apply_profile(
            user=self.request.user, evaluation=self.evaluation, profile=form.cleaned_data["profile"]
        )


class PlanView(ActionRouter, PlanPage, View):
    actions = {
        "init": PlanInitView,
        "library": PlanLibraryCaseView,
        "custom": PlanCustomCaseView,
        "case_weight": PlanWeightView,
        "group_weight": PlanGroupWeightView,
        "remove": PlanCaseRemoveView,
        "profile": PlanProfileView,
    }

    def get(self, request, pk):
        return self.answer(self.context())
