"""The reminder about support terms (evaluations.extensions): a candidate the decision record
chose has no support terms recorded. High, as docs/method.md rates a gap that affects the
decision: what was chosen carries a promise of support nobody has written down."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from evaluations.extensions import Lookups
from evaluations.reminders import Reminder

# The terms are read with the decision's chosen candidates (a handful of rows).
LOOKUPS = Lookups(evaluation_prefetches=("decision__chosen__support_terms",))


def chosen_without_support_terms(data):
    decision = data.decision
    if decision is None:
        return
    bare = [c for c in decision.chosen.all() if not c.support_terms.all()]
    if not bare:
        return
    yield Reminder(
        key="chosen-without-support-terms",
        severity="medium",
        title=_("No support terms for the chosen candidate"),
        why=_(
            "The decision chooses %(names)s, but no support terms are recorded for it: "
            "response and restore times, upgrades, security patches, on-site and training "
            "days, domestic-accelerator adaptation and the limits of custom development are "
            "what the buyer lives with after delivery. Record them with their source before "
            "signing."
        )
        % {"names": pgettext("list separator", ", ").join(c.name for c in bare)},
        fix_url=reverse("responsibility:support", kwargs={"pk": data.evaluation.pk}),
        fix_label=_("Record the support terms"),
    )


REMINDERS = (chosen_without_support_terms,)
