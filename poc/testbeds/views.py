"""The POC's test-bed page: each shortlisted candidate's test bed (a form per candidate for
editors and owners), the mismatch between beds, and what the POC verified or contradicted."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views import View

from common.forms import form_error_text
from common.views import PageAction
from evaluations.scoped import EvaluationMixin
from evaluations.selectors import candidate_get

from ..verification import poc_verification
from . import comparable, services
from .forms import BedEquivalenceForm, EquivalenceWithdrawForm, TestBedForm


class TestBedsView(EvaluationMixin, PageAction, View):
    __test__ = False  # not a pytest test class

    tab = "poc"
    template_name = "poc/testbeds.html"
    form_class = TestBedForm
    success_message = gettext_lazy("Test bed saved.")

    def context(self, form=None, error=None, **extra):
        e = self.evaluation
        sent = form.data.get("candidate") if form is not None and form.is_bound else None
        rows = []
        for candidate, bed in services.beds_of(e):
            mine = form if sent is not None and str(candidate.pk) == str(sent) else None
            rows.append((candidate, bed, mine or TestBedForm.for_bed(candidate, bed)))
        if sent is not None and error is None and not any(f is form for _c, _b, f in rows):
            # No candidate's form to show the errors next to (its id is not one of them).
            error = form_error_text(form) or _("That candidate is not on the shortlist.")
        beds = [
            services.Bed(c.name, b.accelerator, b.accelerator_count, b.nodes)
            for c, b, _f in rows
            if b is not None
        ]
        owner = self.request.user.has_perm("poc.declare_bed_equivalence", e)
        declare = form if isinstance(form, BedEquivalenceForm) else None
        return {
            "equivalences": e.bed_equivalences.select_related(
                "first__solution", "second__solution"
            ),
            "can_declare": owner,
            "equivalence_form": declare or (self.equivalence_form() if owner else None),
            "rows": rows,
            "mismatch": services.bed_mismatch(beds),
            "verification": poc_verification(e, self.request.user),
            "can_change_plan": self.request.user.has_perm("poc.change_plan", e),
            "error": error,
            **extra,
        }

    def equivalence_form(self, data=None) -> BedEquivalenceForm:
        recorded = [c for c, b in services.beds_of(self.evaluation) if comparable.conditions_key(b)]
        return BedEquivalenceForm(data, candidates=recorded)

    def get_form(self, data=None, files=None, **kwargs):
        sent = str((data or {}).get("candidate", ""))
        return TestBedForm(data, auto_id=f"bed-{sent if sent.isdigit() else 'sent'}-%s")

    def form_for_saved(self, obj):
        return TestBedForm.for_bed(obj.candidate, obj)

    def get(self, request, pk):
        return self.answer(self.context())

    def perform(self, form):
        data = form.cleaned_data
        candidate = candidate_get(self.evaluation, data["candidate"])
        candidate.evaluation = self.evaluation
        return services.bed_save(
            user=self.request.user,
            candidate=candidate,
            expected_version=data["version"],
            **{name: data[name] for name in TestBedForm.FIELDS},
        )

    def success_url(self):
        return reverse("poc:testbeds", kwargs={"pk": self.evaluation.pk})


class BedEquivalenceDeclareView(TestBedsView):
    """The owner declares two candidates' test beds equivalent, with a reason."""

    form_class = BedEquivalenceForm
    success_message = gettext_lazy("Test beds declared equivalent.")

    def get_form(self, data=None, files=None, **kwargs):
        return self.equivalence_form(data)

    def form_for_saved(self, obj):
        return None

    def perform(self, form):
        data = form.cleaned_data
        return comparable.equivalence_declare(
            user=self.request.user,
            evaluation=self.evaluation,
            first=candidate_get(self.evaluation, data["first"]),
            second=candidate_get(self.evaluation, data["second"]),
            reason=data["reason"],
        )


class BedEquivalenceWithdrawView(TestBedsView):
    """The owner withdraws a declaration: the beds are compared apart again."""

    form_class = EquivalenceWithdrawForm
    errors_as_message = True
    success_message = gettext_lazy("Declaration withdrawn.")

    def get_form(self, data=None, files=None, **kwargs):
        return EquivalenceWithdrawForm(data, auto_id="withdraw-%s")

    def form_for_saved(self, obj):
        return None

    def perform(self, form):
        data = form.cleaned_data
        return comparable.equivalence_withdraw(
            user=self.request.user,
            equivalence=comparable.equivalence_get(self.evaluation, data["equivalence"]),
            expected_version=None,
        )
