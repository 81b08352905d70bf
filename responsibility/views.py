"""Responsibility matrices and cost pages, inside an evaluation (members only, 404 otherwise)."""

from __future__ import annotations

import copy
from decimal import Decimal

from django import forms
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views import View

from common.charts import cumulative_cost_chart
from common.numbers import amount_units
from common.views import PageAction
from evaluations.scoped import EvaluationMixin
from evaluations.selectors import candidate_get

from . import services
from .checks import is_accountable
from .forms import (
    CostInputForm,
    CostSettingsForm,
    MatrixCellForm,
    MatrixRowForm,
    PartyForm,
    WhatIfForm,
)
from .models import Area, Letter, Party
from .selectors import (
    active_areas,
    cost_input,
    cost_settings,
    evaluation_costs,
    evaluation_matrices,
    matrix_view,
    parties_for,
    rows_prefetch,
)


class MatricesView(EvaluationMixin, PageAction, View):
    """All candidates' matrices side by side: who is accountable for each area. Its form adds a
    party of this evaluation's own."""

    tab = "responsibility"
    page_cache = True
    template_name = "responsibility/matrices.html"
    form_class = PartyForm
    success_message = gettext_lazy("Party added.")

    def context(self, form=None, error=None, **extra):
        matrices = evaluation_matrices(self.evaluation, lean=True)
        names = {p.pk: p.name for p in parties_for(self.evaluation)}
        comparison = []
        by_area = [{r.area.pk: r for r in m.rows} for m in matrices]
        for area in active_areas():
            cells = []
            for rows in by_area:
                row = rows.get(area.pk)
                if row is None:  # an area between a stack's layers, in a single solution's column
                    cells.append({"owners": [], "status": "n/a"})
                    continue
                owners = [
                    _("%(party)s (A+R)") % {"party": names.get(pid, "?")}
                    if value == Letter.AR
                    else names.get(pid, "?")
                    for pid, value in row.letters.items()
                    if is_accountable(value)
                ]
                cells.append({"owners": owners, "status": row.check.status})
            if all(c["status"] == "n/a" for c in cells):
                continue
            applicable = [c for c in cells if c["status"] != "n/a"]
            differs = len({tuple(sorted(c["owners"])) for c in applicable}) > 1
            comparison.append({"area": area, "cells": cells, "differs": differs})
        return {
            "matrices": matrices,
            "comparison": comparison,
            "party_form": form or PartyForm(),
            "error": error,
            **extra,
        }

    def get(self, request, pk):
        return self.answer(self.context())

    def perform(self, form):
        return services.party_add(
            user=self.request.user, evaluation=self.evaluation, **form.cleaned_data
        )

    def success_url(self):
        return reverse("responsibility:matrices", kwargs={"pk": self.evaluation.pk})


def load_matrix(evaluation, cid):
    """The candidate (404 unless it belongs to this evaluation), its parties and its matrix."""
    candidate = candidate_get(evaluation, cid)
    candidate = (
        type(candidate)
        .objects.select_related("solution__solution_type")
        .prefetch_related(rows_prefetch())
        .get(pk=candidate.pk)
    )
    parties = parties_for(evaluation)
    return candidate, parties, matrix_view(candidate, active_areas(), parties)


class MatrixEditView(EvaluationMixin, PageAction, View):
    """One candidate's grid: areas × parties, edited cell by cell with the keyboard. Its form
    fills the rows nobody edited yet with the starting point of the candidate's type."""

    tab = "responsibility"
    template_name = "responsibility/matrix_edit.html"
    form_class = forms.Form

    def context(self, form=None, error=None, **extra):
        candidate, parties, matrix = load_matrix(self.evaluation, self.kwargs["cid"])
        return {
            "candidate": candidate,
            "parties": parties,
            "matrix": matrix,
            "letters": Letter,
            "error": error,
            **extra,
        }

    def get(self, request, pk, cid):
        return self.answer(self.context())

    def perform(self, form):
        candidate = candidate_get(self.evaluation, self.kwargs["cid"])
        added = services.matrix_prefill(user=self.request.user, candidate=candidate)
        self.success_message = _("%(n)d area(s) filled with the starting point.") % {"n": added}

    def success_url(self):
        return reverse(
            "responsibility:matrix", kwargs={"pk": self.evaluation.pk, "cid": self.kwargs["cid"]}
        )


class MatrixRowSaveView(EvaluationMixin, PageAction, View):
    """Saves one cell (letter) or a row's note/effort; answers htmx with the row's new state,
    or the whole row with the messages when the save is refused."""

    template_name = "responsibility/partials/matrix_row.html"
    partial_template_name = "responsibility/partials/matrix_row.html"
    errors_as_message = True

    def get_form(self, data=None, files=None, **kwargs):
        return (MatrixCellForm if data is not None and "party" in data else MatrixRowForm)(data)

    @property
    def area(self):
        if not hasattr(self, "_area"):
            key = self.request.POST.get("area", "")
            self._area = get_object_or_404(Area, key=key, is_active=True)
            if not self._area.applies_to(candidate_get(self.evaluation, self.kwargs["cid"])):
                raise Http404
        return self._area

    def context(self, form=None, error=None, **extra):
        candidate, parties, matrix = load_matrix(self.evaluation, self.kwargs["cid"])
        row = next(r for r in matrix.rows if r.area.pk == self.area.pk)
        return {
            "candidate": candidate,
            "parties": parties,
            "matrix": matrix,
            "r": row,
            "error": error,
            **extra,
        }

    def perform(self, form):
        candidate = candidate_get(self.evaluation, self.kwargs["cid"])
        data = form.cleaned_data
        if isinstance(form, MatrixCellForm):
            party = get_object_or_404(Party, pk=data["party"])
            return services.cell_set(
                user=self.request.user,
                candidate=candidate,
                area=self.area,
                party=party,
                letter=data["letter"],
                expected_version=data["version"],
            )
        fte = data["internal_fte"]
        return services.row_update(
            user=self.request.user,
            candidate=candidate,
            area=self.area,
            expected_version=data["version"],
            note=data["note"] if "note" in form.data else None,
            internal_fte=(fte or Decimal("0")) if "internal_fte" in form.data else None,
        )

    def htmx_target(self):
        return f"#row-{self.area.key}"

    def success(self, result):
        context = self.context(saved=True)
        return self.respond("responsibility/partials/row_saved.html", context, 200)


class CostsView(EvaluationMixin, PageAction, View):
    """Cost settings and each candidate's inputs, the totals and the chart; its forms save the
    settings (`target=settings`) or one candidate's inputs (`candidate=<id>`)."""

    tab = "costs"
    page_cache = True
    template_name = "responsibility/costs.html"
    partial_template_name = "responsibility/partials/cost_results.html"  # the what-if form
    success_message = gettext_lazy("Saved.")

    def get_form(self, data=None, files=None, **kwargs):
        if data is not None and data.get("target") == "settings":
            # A copy: a model form writes what it read into its instance, and the page that
            # refuses the form computes its totals from the saved settings (evaluation.cost),
            # which must not hold the refused values (years 123: ValueError, a 500).
            return CostSettingsForm(data, instance=copy.copy(cost_settings(self.evaluation)))
        candidate = candidate_get(self.evaluation, (data or {}).get("candidate"))
        return CostInputForm(data, instance=cost_input(candidate), prefix=f"c{candidate.pk}")

    def context(self, form=None, error=None, **extra):
        forms_by_candidate, settings_form = {}, None
        if isinstance(form, CostSettingsForm):
            settings_form = form
        elif form is not None:
            forms_by_candidate[form.instance.candidate_id] = form
        what_if = WhatIfForm(self.request.GET or None)
        settings, rows = evaluation_costs(self.evaluation, **what_if.overrides())
        for row in rows:
            row.form = forms_by_candidate.get(row.candidate.pk) or CostInputForm(
                instance=row.data,
                initial={"version": row.data.version},
                prefix=f"c{row.candidate.pk}",
            )
        chart = cumulative_cost_chart(
            [(r.candidate.name, r.result.cumulative) for r in rows],
            title=_("Cumulative cost of ownership"),
            year_label=_("Year %(n)s"),
            units=amount_units(),
            currency=settings.currency,
        )
        return {
            "settings": settings,
            "settings_form": settings_form
            or CostSettingsForm(instance=settings, initial={"version": settings.version}),
            "rows": rows,
            "chart": chart,
            "what_if": what_if,
            "years": range(1, settings.years + 1),
            "error": error,
            **extra,
        }

    def get(self, request, pk):
        return self.answer(self.context())

    def perform(self, form):
        data = {k: v for k, v in form.cleaned_data.items() if k != "version"}
        if isinstance(form, CostSettingsForm):
            return services.cost_settings_save(
                user=self.request.user,
                evaluation=self.evaluation,
                expected_version=form.cleaned_data["version"],
                **data,
            )
        return services.cost_input_save(
            user=self.request.user,
            candidate=form.instance.candidate,
            expected_version=form.cleaned_data["version"],
            **data,
        )

    def success_url(self):
        return reverse("responsibility:costs", kwargs={"pk": self.evaluation.pk})
