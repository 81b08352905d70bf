"""The shortlist page: suggestions with their reasons, candidates added, eliminated with a
reason and restored. Each form is its own view (common.views.PageAction) behind one URL."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views import View

from common.views import ActionRouter, PageAction

from . import extensions, services
from .constraints import carried_constraints, constraint_checks
from .forms import (
    AcceptSuggestionsForm,
    AddCandidateForm,
    EliminateCandidateForm,
    RestoreCandidateForm,
    StackForm,
    TypeDecisionForm,
    WaiveForm,
    WaiverForm,
)
from .scoped import EvaluationMixin
from .selectors import candidate_fits, candidate_get, shortlist_suggest
from .stack_controls import overlap_by_capability, stack_overlaps
from .stacks import stack_profiles
from .types import outside_main_type, suggestions_by_type, type_options


def reference_stacks():
    """Catalog entries that are assembled from other entries (offered as ready-made stacks)."""
    from catalog.models import Solution

    return Solution.objects.filter(is_active=True).exclude(reference_stack={}).order_by("name")


def candidate_facts(rows, evaluation, user) -> None:
    """Set `facts` on each candidate of `rows`: [(template, fact)] from the facts other apps
    contribute (the POC adds the capabilities it verified or contradicted)."""
    sources = extensions.candidate_fact_sources()
    found = [(template, fn(evaluation, user)) for template, fn in sources]
    for candidate, _fit in rows:
        candidate.facts = [
            (template, facts[candidate.pk]) for template, facts in found if candidate.pk in facts
        ]


def profile_rows(candidate, profile):
    """A stack's profile as the page shows it: the stack, its rows each with the duplicated
    control it belongs to (or None), how many capabilities no layer provides, and the
    duplicated controls (evaluations.stack_controls)."""
    overlaps = stack_overlaps(candidate)
    dup = overlap_by_capability(overlaps)
    rows = [(row, dup.get(row.capability.slug)) for row in profile]
    return candidate, rows, sum(row.missing for row in profile), overlaps


class ShortlistPage(EvaluationMixin, PageAction):
    """The shortlist page around each of its forms."""

    tab = "shortlist"
    page_cache = True
    template_name = "evaluations/shortlist.html"
    success_message = gettext_lazy("Saved.")
    errors_as_message = True

    def context(self, form=None, error=None, **extra):
        extra.setdefault("add_form", AddCandidateForm(evaluation=self.evaluation))
        references = [s for s in reference_stacks() if s.reference_layers()]
        chosen = next((s for s in references if s.slug == self.request.GET.get("reference")), None)
        extra.setdefault("stack_form", StackForm.from_reference(chosen) if chosen else StackForm())
        extra.setdefault("reference_stacks", references)
        checks = constraint_checks(self.data)
        user, evaluation = self.request.user, self.evaluation
        groups = suggestions_by_type(shortlist_suggest(evaluation), evaluation.main_type_id)
        rows = candidate_fits(self.data)
        candidate_facts(rows, evaluation, user)
        stacks = [c for c in self.data.shortlisted if c.is_stack]
        profiles = stack_profiles(stacks)
        return {
            "suggestion_groups": groups,
            # Once a type is decided, "accept all" takes only its suggestions: the others each
            # need a reason.
            "accept_all": [
                s.solution.pk for g in groups if not g.outside for s in g.items if s.already is None
            ],
            "candidate_rows": rows,
            "error": error,
            "carried": carried_constraints(self.data),
            "constraint_rows": [(c, checks[c.pk]) for c in self.data.shortlisted if checks[c.pk]],
            "can_waive": user.has_perm("evaluations.waive_constraint", evaluation),
            # Another app's action on an unverified capability (evaluations.extensions).
            "capability_action": extensions.capability_action(user, evaluation),
            "type_options": type_options(self.data),
            "stack_profiles": [profile_rows(c, profiles[c.pk]) for c in stacks],
            "outside_type": {c.pk for c in outside_main_type(self.data)},
            **extra,
        }

    def success_url(self):
        return reverse("evaluations:evaluation_shortlist", kwargs={"pk": self.evaluation.pk})

    def candidate(self, form):
        return candidate_get(self.evaluation, form.cleaned_data["candidate"])


class CandidatesAcceptView(ShortlistPage, View):
    form_class = AcceptSuggestionsForm

    def perform(self, form):
        added = services.candidates_accept_suggestions(
            user=self.request.user,
            evaluation=self.evaluation,
            solution_ids=form.cleaned_data["solution"] or None,
            reason=form.cleaned_data["reason"],
        )
        self.success_message = _("%(n)d suggested candidate(s) added.") % {"n": len(added)}
        return added


class CandidateAddView(ShortlistPage, View):
    form_class = AddCandidateForm
    errors_as_message = False  # the add form shows its errors next to its fields
    success_message = gettext_lazy("Candidate added.")

    def form_kwargs(self):
        return {"evaluation": self.evaluation}

    def context(self, form=None, error=None, **extra):
        return super().context(form, error, add_form=form, **extra)

    def perform(self, form):
        return services.candidate_add(
            user=self.request.user, evaluation=self.evaluation, **form.cleaned_data
        )


class CandidateStackView(ShortlistPage, View):
    form_class = StackForm
    errors_as_message = False  # the stack form shows its errors next to its fields
    success_message = gettext_lazy("Stack added as one candidate.")

    def context(self, form=None, error=None, **extra):
        return super().context(form, error, stack_form=form, **extra)

    def perform(self, form):
        data = form.cleaned_data
        return services.candidate_compose_stack(
            user=self.request.user,
            evaluation=self.evaluation,
            name=data["name"],
            reason=data["reason"],
            layers=data["layers"],
            main=data["main"],
        )


class CandidateEliminateView(ShortlistPage, View):
    form_class = EliminateCandidateForm

    def perform(self, form):
        return services.candidate_eliminate(
            user=self.request.user,
            candidate=self.candidate(form),
            reason=form.cleaned_data["reason"],
            expected_version=form.cleaned_data["version"],
        )


class CandidateRestoreView(ShortlistPage, View):
    form_class = RestoreCandidateForm

    def perform(self, form):
        return services.candidate_restore(
            user=self.request.user,
            candidate=self.candidate(form),
            expected_version=form.cleaned_data["version"],
        )


class ConstraintWaiveView(ShortlistPage, View):
    form_class = WaiveForm
    success_message = gettext_lazy("Constraint waived; the waiver is kept in the history.")

    def perform(self, form):
        return services.constraint_waive(
            user=self.request.user,
            candidate=self.candidate(form),
            constraint=form.cleaned_data["constraint"],
            reason=form.cleaned_data["reason"],
        )


class ConstraintUnwaiveView(ShortlistPage, View):
    form_class = WaiverForm
    success_message = gettext_lazy("Waiver withdrawn.")

    def perform(self, form):
        return services.constraint_waiver_withdraw(
            user=self.request.user,
            candidate=self.candidate(form),
            constraint=form.cleaned_data["constraint"],
        )


class TypeDecideView(ShortlistPage, View):
    form_class = TypeDecisionForm
    success_message = gettext_lazy("Type recorded; it is kept in the history.")

    def perform(self, form):
        return services.evaluation_type_decide(
            user=self.request.user,
            evaluation=self.evaluation,
            solution_type=form.cleaned_data["main_type"],
            reason=form.cleaned_data["reason"],
            expected_version=form.cleaned_data["version"],
        )


class ShortlistView(ActionRouter, ShortlistPage, View):
    actions = {
        "accept": CandidatesAcceptView,
        "add": CandidateAddView,
        "stack": CandidateStackView,
        "eliminate": CandidateEliminateView,
        "restore": CandidateRestoreView,
        "type": TypeDecideView,
        "waive": ConstraintWaiveView,
        "unwaive": ConstraintUnwaiveView,
    }

    def get(self, request, pk):
        return self.answer(self.context())
