"""The "test beds differ" reminder: the shortlisted candidates were tested on different
accelerators or at different scale (the rule: services.bed_mismatch). Contributed to
evaluations with the lookups it reads (PocConfig.ready)."""

from __future__ import annotations

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from evaluations.extensions import Lookups
from evaluations.reminders import Reminder

from .services import accelerator_key, bed_mismatch, bed_of

# The reminder reads each candidate's test bed in the same query as the candidate.
LOOKUPS = Lookups(candidate_selects=("test_bed",))


def _names(names) -> str:
    return pgettext("list separator", ", ").join(names)


def _scale_text(count, nodes) -> str:
    parts = []
    if count is not None:
        parts.append(_("%(n)d accelerator(s)") % {"n": count})
    if nodes is not None:
        parts.append(_("%(n)d node(s)") % {"n": nodes})
    return " / ".join(parts)


def beds_differ(data):
    """The shortlisted candidates were tested on different accelerators or at different scale."""
    beds = [b for b in (bed_of(c) for c in data.shortlisted) if b is not None]
    mismatch = bed_mismatch(beds)
    if not mismatch:
        return
    lines = []
    if mismatch.accelerators:
        on: dict[str, list[str]] = {}  # the first spelling of each accelerator -> candidates
        spelling: dict[str, str] = {}
        for name, acc in mismatch.accelerators:
            on.setdefault(spelling.setdefault(accelerator_key(acc), acc), []).append(name)
        lines.append(
            _("Accelerators: %(list)s.")
            % {"list": "; ".join(f"{acc}: {_names(names)}" for acc, names in on.items())}
        )
    if mismatch.scale:
        lines.append(
            _("Scale: %(list)s.")
            % {"list": "; ".join(f"{n}: {_scale_text(c, s)}" for n, c, s in mismatch.scale)}
        )
    yield Reminder(
        key="poc-test-beds-differ",
        severity="high" if mismatch.accelerators else "medium",
        title=_("Candidates were tested on different test beds"),
        why=_(
            "The POC should run the same tasks under the same constraints for every candidate; "
            "otherwise the scores compare hardware and scale as much as platforms. %(details)s"
        )
        % {"details": " ".join(lines)},
        fix_url=reverse("poc:testbeds", kwargs={"pk": data.evaluation.pk}),
        fix_label=_("Review the test beds"),
    )


REMINDERS = (beds_differ,)
