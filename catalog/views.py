from django.contrib.auth.mixins import LoginRequiredMixin
from django.shortcuts import render
from django.utils import timezone
from django.views import View
from django.views.generic import DetailView
from django_filters.views import FilterView

from common.views import HtmxTemplateMixin

from .filters import SolutionFilterSet
from .forms import CompareForm
from .freshness import STALE_AFTER_MONTHS
from .models import AcceleratorFamily, Solution, SolutionType, SupportLevel
from .selectors import (
    MAX_COMPARE,
    chosen_solutions,
    claim_freshness,
    solution_comparison,
    solution_detail_queryset,
    solution_queryset,
)


class SolutionListView(LoginRequiredMixin, HtmxTemplateMixin, FilterView):
    """The catalog: filter by type and scenario, tick solutions to compare.

    The ticked solutions travel with every filter request as `s=<slug>` (the filter form
    includes the ticked boxes), so the table comes back with them still ticked; those the
    filters hide stay ticked below the table. `compare_form` is a refused comparison whose
    error is shown next to the compare button.
    """

    filterset_class = SolutionFilterSet
    queryset = solution_queryset()
    template_name = "catalog/solution_list.html"
    partial_template_name = "catalog/partials/solution_table.html"
    context_object_name = "solutions"
    compare_form: CompareForm | None = None

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        chosen = chosen_solutions(slugs=self.request.GET.getlist("s"))
        shown = {s.pk for s in ctx["solutions"]}
        ctx["chosen_slugs"] = {s.slug for s in chosen}
        ctx["chosen_hidden"] = [s for s in chosen if s.pk not in shown]
        ctx["compare_form"] = self.compare_form
        ctx["types"] = SolutionType.objects.all()
        ctx["max_compare"] = MAX_COMPARE
        return ctx


class SolutionDetailView(LoginRequiredMixin, DetailView):
    queryset = solution_detail_queryset()
    template_name = "catalog/solution_detail.html"
    context_object_name = "solution"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        claims = sorted(
            self.object.claims.all(),
            key=lambda c: (c.capability.group.order, c.capability.group_id, c.capability.order),
        )
        groups: dict = {}
        today = timezone.localdate()
        for claim in claims:
            claim.freshness = claim_freshness(claim, on=today)
            groups.setdefault(claim.capability.group, []).append(claim)
        ctx["claim_groups"] = groups
        ctx["levels"] = SupportLevel
        ctx["stale_count"] = sum(1 for c in claims if c.freshness.stale)
        ctx["unknown_count"] = sum(1 for c in claims if c.level == SupportLevel.UNKNOWN)
        ctx["stale_after"] = STALE_AFTER_MONTHS
        ctx["can_edit_claims"] = self.request.user.has_perm("catalog.change_capabilityclaim")
        slugs = list(self.object.reference_layers().values())
        ctx["reference_parts"] = (
            list(Solution.objects.filter(slug__in=slugs).order_by("name")) if slugs else []
        )
        support = sorted(self.object.accelerator_support.all(), key=lambda r: r.family.order)
        ctx["accelerator_support"] = support
        documented = {row.family_id for row in support}
        ctx["undocumented_families"] = [
            f for f in AcceleratorFamily.objects.all() if f.pk not in documented
        ]
        return ctx


class CompareView(LoginRequiredMixin, View):
    """Side-by-side capability matrix of 2–8 solutions chosen with ?s=<slug>&s=<slug>.

    A refused choice (too few, too many, unknown) answers 400 with the catalog list, filtered
    as it was, the pick still ticked and the reason next to the compare button.
    """

    template_name = "catalog/solution_compare.html"

    def get(self, request):
        form = CompareForm(request.GET or None)
        ctx = {"form": form, "levels": SupportLevel, "all_solutions": solution_queryset()}
        if form.is_bound and form.is_valid():
            comparison = solution_comparison(solutions=form.cleaned_data["s"])
            ctx["comparison"] = comparison
            ctx["summary"] = list(zip(comparison.solutions, comparison.level_counts(), strict=True))
            return render(request, self.template_name, ctx)
        if form.is_bound:
            response = SolutionListView.as_view(compare_form=form)(request)
            response.status_code = 400
            return response
        return render(request, self.template_name, ctx)
