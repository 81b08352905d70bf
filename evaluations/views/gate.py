"""The owner's acknowledgements of open high reminders, given and withdrawn from the decided
gate's list on the overview. A refusal shows the overview again with the gate's list and the
message; success goes back to it with the list as it is now."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from .. import services
from ..forms import AcknowledgeForm, ReminderKeyForm
from .evaluation import EvaluationDetailView


class GateActionView(EvaluationDetailView):
    page_cache = False
    http_method_names = ["post"]

    def gate_asked(self) -> bool:
        return not self.evaluation.is_sealed

    def success_url(self):
        return f"{self.evaluation.get_absolute_url()}?gate=1#gate"


class ReminderAcknowledgeView(GateActionView):
    form_class = AcknowledgeForm
    success_message = gettext_lazy("Reminder acknowledged.")

    def perform(self, form):
        data = form.cleaned_data
        return services.reminder_acknowledge(
            user=self.request.user,
            evaluation=self.evaluation,
            key=data["key"],
            reason=data["reason"],
            expected_version=data["version"],
        )


class ReminderWithdrawView(GateActionView):
    form_class = ReminderKeyForm
    success_message = gettext_lazy("Acknowledgement withdrawn.")

    def perform(self, form):
        return services.reminder_acknowledgement_withdraw(
            user=self.request.user, evaluation=self.evaluation, key=form.cleaned_data["key"]
        )
