"""Responsibility matrices and cost pages, inside an evaluation (members only, 404 otherwise)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import get_object_or_404, redirect
from django.utils.translation import gettext as _
from django.views import View

from common.charts import cumulative_cost_chart
from common.exceptions import DomainError, StaleEdit
from evaluations.selectors import candidate_get
from evaluations.views import EvaluationMixin, form_errors_from

from . import services
from .forms import CostInputForm, CostSettingsForm, PartyForm, WhatIfForm
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


class MatricesView(EvaluationMixin, View):
    """All candidates' matrices side by side: who is accountable for each area."""

    tab = "responsibility"

    def page(self, status=200, **extra):
        matrices = evaluation_matrices(self.evaluation)
        names = {p.pk: p.name for p in parties_for(self.evaluation)}
        comparison = []
        for i, area in enumerate(active_areas()):
            cells = []
            for m in matrices:
                row = m.rows[i]
                owners = [
                    names.get(pid, "?") for pid, letter in row.letters.items() if letter == "A"
                ]
                cells.append({"owners": owners, "status": row.check.status})
            differs = len({tuple(sorted(c["owners"])) for c in cells}) > 1
            comparison.append({"area": area, "cells": cells, "differs": differs})
        extra.setdefault("party_form", PartyForm())
        return self.render(
            "responsibility/matrices.html",
            status=status,
            matrices=matrices,
            comparison=comparison,
            **extra,
        )

    def get(self, request, pk):
        return self.page()

    def post(self, request, pk):
        form = PartyForm(request.POST)
        if not form.is_valid():
            return self.page(status=400, party_form=form)
        try:
            services.party_add(user=request.user, evaluation=self.evaluation, **form.cleaned_data)
        except DomainError as exc:
            return self.page(status=exc.status_code, error=exc.message)
        except ValidationError as exc:
            form_errors_from(form, exc)
            return self.page(status=400, party_form=form)
        messages.success(request, _("Party added."))
        return redirect("responsibility:matrices", pk=pk)


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


class MatrixEditView(EvaluationMixin, View):
    """One candidate's grid: areas × parties, edited cell by cell with the keyboard."""

    tab = "responsibility"

    def load(self, cid):
        return load_matrix(self.evaluation, cid)

    def get(self, request, pk, cid):
        candidate, parties, matrix = self.load(cid)
        return self.render(
            "responsibility/matrix_edit.html",
            candidate=candidate,
            parties=parties,
            matrix=matrix,
            letters=Letter,
        )

    def post(self, request, pk, cid):
        """Prefill from the candidate's type (rows already edited are kept)."""
        candidate = candidate_get(self.evaluation, cid)
        try:
            added = services.matrix_prefill(user=request.user, candidate=candidate)
        except DomainError as exc:
            candidate, parties, matrix = self.load(cid)
            return self.render(
                "responsibility/matrix_edit.html",
                status=exc.status_code,
                error=exc.message,
                candidate=candidate,
                parties=parties,
                matrix=matrix,
                letters=Letter,
            )
        messages.success(request, _("%(n)d area(s) filled with the starting point.") % {"n": added})
        return redirect("responsibility:matrix", pk=pk, cid=cid)


class MatrixRowSaveView(EvaluationMixin, View):
    """Saves one cell (letter) or a row's note/effort; answers htmx with the row's new state."""

    def post(self, request, pk, cid):
        candidate = candidate_get(self.evaluation, cid)
        area = get_object_or_404(Area, key=request.POST.get("area", ""), is_active=True)
        version = request.POST.get("version") or None
        status, error = 200, None
        try:
            version = int(version) if version is not None else None
            if "party" in request.POST:
                party = get_object_or_404(Party, pk=request.POST.get("party") or 0)
                services.cell_set(
                    user=request.user,
                    candidate=candidate,
                    area=area,
                    party=party,
                    letter=request.POST.get("letter", ""),
                    expected_version=version,
                )
            else:
                services.row_update(
                    user=request.user,
                    candidate=candidate,
                    area=area,
                    expected_version=version,
                    note=request.POST.get("note"),
                    internal_fte=request.POST.get("internal_fte") or "0",
                )
        except StaleEdit as exc:
            status, error = 409, exc.message
        except DomainError as exc:
            status, error = exc.status_code, exc.message
        except ValidationError as exc:
            status, error = 400, " ".join(exc.messages)
        except ValueError:
            status, error = 400, _("The version must be a whole number.")
        candidate, parties, matrix = load_matrix(self.evaluation, cid)
        row = next(r for r in matrix.rows if r.area.pk == area.pk)
        ctx = {"candidate": candidate, "parties": parties, "matrix": matrix, "r": row}
        if status == 200:
            return self.render("responsibility/partials/row_saved.html", **ctx, saved=True)
        response = self.render(
            "responsibility/partials/matrix_row.html", status=status, error=error, **ctx
        )
        response["HX-Retarget"] = f"#row-{area.key}"
        response["HX-Reswap"] = "outerHTML"
        return response


class CostsView(EvaluationMixin, View):
    tab = "costs"

    def page(self, status=200, forms_by_candidate=None, settings_form=None, **extra):
        what_if = WhatIfForm(self.request.GET or None)
        settings, rows = evaluation_costs(self.evaluation, **what_if.overrides())
        forms_by_candidate = forms_by_candidate or {}
        for row in rows:
            row.form = forms_by_candidate.get(row.candidate.pk) or CostInputForm(
                instance=row.data,
                initial={"version": row.data.version},
                prefix=f"c{row.candidate.pk}",
            )
        chart = cumulative_cost_chart(
            [(r.candidate.solution.name, r.result.cumulative) for r in rows],
            title=_("Cumulative cost of ownership"),
            year_label=_("Year"),
            currency=settings.currency,
        )
        template = (
            "responsibility/partials/cost_results.html"
            if self.request.htmx and self.request.method == "GET"
            else "responsibility/costs.html"
        )
        return self.render(
            template,
            status=status,
            settings=settings,
            settings_form=settings_form
            or CostSettingsForm(instance=settings, initial={"version": settings.version}),
            rows=rows,
            chart=chart,
            what_if=what_if,
            years=range(1, settings.years + 1),
            **extra,
        )

    def get(self, request, pk):
        return self.page()

    def post(self, request, pk):
        target = request.POST.get("target")
        try:
            if target == "settings":
                form = CostSettingsForm(request.POST, instance=cost_settings(self.evaluation))
                if not form.is_valid():
                    return self.page(status=400, settings_form=form)
                data = {k: v for k, v in form.cleaned_data.items() if k != "version"}
                services.cost_settings_save(
                    user=request.user,
                    evaluation=self.evaluation,
                    expected_version=form.cleaned_data["version"],
                    **data,
                )
            else:
                candidate = candidate_get(self.evaluation, request.POST.get("candidate"))
                form = CostInputForm(
                    request.POST, instance=cost_input(candidate), prefix=f"c{candidate.pk}"
                )
                if not form.is_valid():
                    return self.page(status=400, forms_by_candidate={candidate.pk: form})
                data = {k: v for k, v in form.cleaned_data.items() if k != "version"}
                services.cost_input_save(
                    user=request.user,
                    candidate=candidate,
                    expected_version=form.cleaned_data["version"],
                    **data,
                )
        except StaleEdit as exc:
            return self.page(status=409, error=exc.message)
        except DomainError as exc:
            return self.page(status=exc.status_code, error=exc.message)
        except ValidationError as exc:
            return self.page(status=400, error=" ".join(exc.messages))
        messages.success(request, _("Saved."))
        return redirect("responsibility:costs", pk=pk)
