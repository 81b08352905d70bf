"""The support-terms tab: every shortlisted candidate's terms side by side, and the form that
records or changes one term (members only, 404 otherwise; editors write)."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext_lazy
from django.views import View

from common.views import PageAction
from evaluations.scoped import EvaluationMixin
from evaluations.selectors import candidate_get

from . import services
from .forms import SupportTermForm
from .selectors import comparison, term_get
from .terms import TERMS


class SupportView(EvaluationMixin, PageAction, View):
    tab = "support"
    template_name = "responsibility/support.html"
    success_message = gettext_lazy("Support term saved.")

    @property
    def table(self):
        if getattr(self, "_table", None) is None:
            self._table = comparison(self.evaluation)
        return self._table

    def get_form(self, data=None, files=None, **kwargs):
        return SupportTermForm(data, candidates=self.table.candidates, **kwargs)

    def form_for_saved(self, obj):
        """After a stale edit: the form showing the saved term and its version."""
        return self.edit_form(obj)

    def edit_form(self, row, candidate=None, term=None):
        if row is None:
            return self.get_form(initial={"candidate": candidate, "term": term, "version": 0})
        return self.get_form(
            initial={
                "candidate": row.candidate_id,
                "term": row.term,
                "amount": row.amount,
                "text": row.text,
                "source_kind": row.source_kind,
                "source": row.source,
                "source_url": row.source_url,
                "version": row.version,
            }
        )

    def requested_form(self):
        """?candidate=<id>&term=<key>: the form for that term, filled with what is saved."""
        cid, key = self.request.GET.get("candidate"), self.request.GET.get("term")
        keys = {t.key for t in TERMS}
        if not cid or key not in keys:
            return self.get_form(initial={"version": 0})
        candidate = candidate_get(self.evaluation, cid)
        return self.edit_form(term_get(candidate, key), candidate.pk, key)

    def context(self, form=None, error=None, **extra):
        table = self.table
        return {
            "table": table,
            "missing": [(c, table.missing(c)) for c in table.candidates],
            "form": form or self.requested_form(),
            "editing": self.request.GET.get("term") is not None,
            "error": error,
            **extra,
        }

    def get(self, request, pk):
        return self.answer(self.context())

    def perform(self, form):
        candidate = candidate_get(self.evaluation, form.cleaned_data["candidate"])
        return services.support_term_save(
            user=self.request.user,
            candidate=candidate,
            expected_version=form.cleaned_data["version"],
            **form.values(),
        )

    def success_url(self):
        return reverse("responsibility:support", kwargs={"pk": self.evaluation.pk})
