"""Each user's start page and the list of their evaluations."""

from __future__ import annotations

from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.paginator import Paginator
from django.shortcuts import render
from django.views import View
from django.views.generic import TemplateView

from ..filters import EvaluationFilterSet
from ..rows import evaluation_list_queryset, evaluation_rows

HOME_EVALUATIONS = 10  # the home page lists this many of my most recently changed evaluations
LIST_PAGE_SIZE = 20  # rows per page of the evaluation list


class HomeView(LoginRequiredMixin, TemplateView):
    """Each user's start page: the panels other apps add (evaluations.extensions), their latest
    evaluations (with status, progress, reminders) and a link to all of them, then tools."""

    template_name = "home.html"

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        user = self.request.user
        qs = evaluation_list_queryset(user)
        ctx["rows"] = evaluation_rows(user, qs[:HOME_EVALUATIONS])
        ctx["evaluation_count"] = (
            len(ctx["rows"]) if len(ctx["rows"]) < HOME_EVALUATIONS else qs.count()
        )
        ctx["can_create"] = user.has_perm("evaluations.add_evaluation")
        return ctx


class EvaluationListView(LoginRequiredMixin, View):
    """Every evaluation the user is a member of, filtered by status or text, a page at a time."""

    def get(self, request):
        user = request.user
        filters = EvaluationFilterSet(request.GET, queryset=evaluation_list_queryset(user))
        qs = filters.qs if filters.is_valid() else filters.queryset.none()
        page = Paginator(qs, LIST_PAGE_SIZE).get_page(request.GET.get("page"))
        query = request.GET.copy()
        query.pop("page", None)
        context = {
            "rows": evaluation_rows(user, page.object_list),
            "page": page,
            "filters": filters,
            "query": query.urlencode(),
            "can_create": user.has_perm("evaluations.add_evaluation"),
        }
        return render(request, "evaluations/evaluation_list.html", context)
