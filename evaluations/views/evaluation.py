"""An evaluation's own pages: creating it, the overview (where its status moves; the decided
gate lists what is missing), editing it, the decision record and the history."""

from __future__ import annotations

from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.urls import reverse
from django.utils.translation import gettext_lazy
from django.views import View

from common.views import PageAction

from .. import extensions, services
from ..acknowledgements import gate_reminders
from ..forms import DecisionForm, EvaluationForm, TransitionForm
from ..history import history_entries, history_timeline
from ..models import FACT_FLAGS, TRANSITIONS, Status
from ..scoped import EvaluationMixin
from ..selectors import evaluation_data


def gate_groups(items: list) -> list[dict]:
    """The decided gate's (item, link) pairs grouped by their heading, in order of first
    appearance: each group with its items, how many, its note and where to start fixing it."""
    groups: dict = {}
    for item, link in items:
        group = groups.setdefault(
            str(item.group), {"label": item.group, "note": item.note, "link": link, "items": []}
        )
        group["items"].append((item, link))
    return list(groups.values())


class EvaluationCreateView(LoginRequiredMixin, PageAction, View):
    template_name = "evaluations/evaluation_form.html"
    form_class = EvaluationForm
    success_message = gettext_lazy("Evaluation created. Next: answer the context.")

    def dispatch(self, request, *args, **kwargs):
        if request.user.is_authenticated and not request.user.has_perm(
            "evaluations.add_evaluation"
        ):
            raise PermissionDenied
        return super().dispatch(request, *args, **kwargs)

    def get_form(self, data=None, files=None, **kwargs):
        form = super().get_form(data, files, **kwargs)
        del form.fields["version"]  # nothing saved yet that another editor could change
        return form

    def context(self, form, **extra):
        return {"form": form, "creating": True, **extra}

    def get(self, request):
        return self.answer(self.context(self.get_form()))

    def perform(self, form):
        return services.evaluation_create(user=self.request.user, **form.cleaned_data)

    def success_url(self):
        return reverse("evaluations:evaluation_context", kwargs={"pk": self.result.pk})

    def success(self, result):
        self.result = result
        return super().success(result)


class EvaluationDetailView(EvaluationMixin, PageAction, View):
    """The overview; its form moves the status (the decided gate lists what is missing)."""

    tab = "overview"
    page_cache = True
    template_name = "evaluations/evaluation_detail.html"
    form_class = TransitionForm
    errors_as_message = True
    success_message = gettext_lazy("Status changed.")
    lists_reminders = True

    def page_data(self):
        # Reminders come stored with the strip, or were counted from all the data just now.
        if getattr(self, "_data", None) is not None:
            return self._data
        return evaluation_data(self.evaluation, viewer=self.request.user, light=True)

    def context(self, form, error=None, domain_error=None, **extra):
        targets = sorted(TRANSITIONS[Status(self.evaluation.status)], key=list(Status).index)
        missing = list(getattr(domain_error, "missing", ()))
        user = self.request.user
        shown = bool(missing) or self.gate_asked()
        if shown and not missing:
            missing = services.decided_gate_preview(user, self.evaluation)
        return {
            "targets": [Status(t) for t in targets],
            "sealed": self.evaluation.is_sealed,
            "error": error,
            "gate_shown": shown,
            "gate_groups": gate_groups([(item, self.gate_link(item)) for item in missing]),
            # Only open POC cells left: the owner may decide anyway with a reason (poc.gate).
            "gate_reason": bool(missing)
            and all(item.place == "poc" for item in missing)
            and user.has_perm("evaluations.waive_constraint", self.evaluation),
            "gate_acknowledged": self.acknowledged() if shown else [],
            "can_acknowledge": user.has_perm("evaluations.acknowledge_reminder", self.evaluation),
            **extra,
        }

    def gate_asked(self) -> bool:
        """Whether the page shows what the decided gate lists now (`?gate=1`, or after an
        acknowledgement), for someone who may move the status of an open evaluation."""
        return (
            self.request.GET.get("gate") == "1"
            and not self.evaluation.is_sealed
            and self.request.user.has_perm("evaluations.change_status", self.evaluation)
        )

    def acknowledged(self) -> list:
        """The open high reminders the owner has acknowledged, as the viewer may see them."""
        data = evaluation_data(self.evaluation)
        return gate_reminders(data, self.request.user).acknowledged

    def gate_link(self, item) -> str:
        """Where a missing item of the decided gate is put right."""
        pk = self.evaluation.pk
        if item.place == "reminder":
            return item.where.get("fix_url") or f"{self.evaluation.get_absolute_url()}#reminders"
        if item.place == "type":
            return reverse("evaluations:evaluation_shortlist", kwargs={"pk": pk}) + "#main-type"
        if item.place == "questions":
            url = reverse("evaluations:evaluation_questions", kwargs={"pk": pk})
            return f"{url}#answer-{item.where['candidate']}-{item.where['question']}"
        contributed = extensions.gate_link(self.evaluation, item)  # another app's item
        if contributed:
            return contributed
        if item.place == "shortlist":
            return reverse("evaluations:evaluation_shortlist", kwargs={"pk": pk})
        return reverse("evaluations:evaluation_decision", kwargs={"pk": pk})

    def get(self, request, pk):
        return self.answer(self.context(self.get_form()))

    def perform(self, form):
        return services.evaluation_transition(
            user=self.request.user,
            evaluation=self.evaluation,
            to_status=form.cleaned_data["status"],
            reason=form.cleaned_data["reason"],
        )

    def success_url(self):
        return self.evaluation.get_absolute_url()


class EvaluationEditView(EvaluationMixin, PageAction, View):
    tab = "overview"
    template_name = "evaluations/evaluation_form.html"
    form_class = EvaluationForm
    success_message = gettext_lazy("Saved.")

    def form_kwargs(self):
        return {"instance": self.evaluation}

    def form_for_saved(self, obj):
        return EvaluationForm(instance=obj, initial={"version": obj.version})

    def get(self, request, pk):
        return self.answer({"form": self.form_for_saved(self.evaluation)})

    def perform(self, form):
        unchanged = set(FACT_FLAGS) - set(form.changed_facts())
        data = {k: v for k, v in form.cleaned_data.items() if k != "version" and k not in unchanged}
        return services.evaluation_update(
            user=self.request.user,
            evaluation=self.evaluation,
            expected_version=form.cleaned_data["version"],
            **data,
        )

    def success_url(self):
        return self.evaluation.get_absolute_url()


class DecisionView(EvaluationMixin, PageAction, View):
    tab = "decision"
    template_name = "evaluations/decision.html"
    form_class = DecisionForm
    success_message = gettext_lazy("Decision record saved.")

    def form_kwargs(self):
        return {"evaluation": self.evaluation}

    def form_for_saved(self, decision):
        initial = {"version": 0}
        if decision is not None:
            initial = {
                "chosen": list(decision.chosen.all()),
                "rationale": decision.rationale,
                "decided_on": decision.decided_on,
                "decided_by": decision.decided_by,
                "version": decision.version,
            }
        return DecisionForm(initial=initial, evaluation=self.evaluation)

    def context(self, form, **extra):
        return {"form": form, "decision": getattr(self.evaluation, "decision", None), **extra}

    def get(self, request, pk):
        decision = getattr(self.evaluation, "decision", None)
        return self.answer(self.context(self.form_for_saved(decision)))

    def perform(self, form):
        data = form.cleaned_data
        return services.decision_save(
            user=self.request.user,
            evaluation=self.evaluation,
            chosen=data["chosen"],
            rationale=data["rationale"],
            decided_on=data["decided_on"],
            decided_by=data["decided_by"],
            expected_version=data["version"],
        )


class HistoryView(EvaluationMixin, View):
    tab = "history"
    page_cache = True

    def get(self, request, pk):
        page = Paginator(history_timeline(self.evaluation), 50).get_page(request.GET.get("page"))
        entries = history_entries(self.evaluation, page.object_list)
        return self.render("evaluations/history.html", entries=entries, page=page)
