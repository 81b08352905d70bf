"""The parts of a report a member can choose. The cover (title, organisation, date, language and
snapshot SHA-256) is always printed; everything else is optional and keeps this order."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

SECTIONS = [
    ("summary", _("Executive summary")),
    ("types", _("Types and responsibility boundaries")),
    ("candidates", _("Candidate comparison")),
    ("questions", _("Five questions before procurement")),
    ("matrices", _("Responsibility matrices")),
    ("poc", _("POC scorecard")),
    ("costs", _("Cost of ownership")),
    ("reminders", _("Risk reminders")),
    ("robustness", _("Decision robustness")),
    ("appendix", _("Appendix")),
]
ALL = [key for key, _label in SECTIONS]

# Sections that print POC scores, figures computed from them (scenario fit, totals, robustness,
# the reminders that count disagreeing cells) or the evidence behind them (the appendix lists
# every file with its reviewer and cell): blind scoring keeps them from reviewers who have not
# submitted their own.
WITH_SCORES = frozenset({"summary", "poc", "reminders", "robustness", "appendix"})


def prints_everything(run) -> bool:
    """Whether a report run prints every section (what an approval may sign)."""
    return list(run.sections) == list(ALL)


def prints_scores(keys) -> bool:
    return bool(WITH_SCORES & set(keys))


def clean_sections(keys) -> list[str]:
    """The chosen sections in report order; None means all. Raises ValidationError otherwise."""
    if keys is None:
        return list(ALL)
    chosen = set(keys)
    unknown = sorted(chosen - set(ALL))
    if unknown:
        message = gettext("Unknown report section: %(keys)s.") % {"keys": ", ".join(unknown)}
        raise ValidationError({"sections": message})
    if not chosen:
        raise ValidationError({"sections": gettext("Choose at least one section.")})
    return [key for key in ALL if key in chosen]


def labels(keys) -> list[str]:
    names = dict(SECTIONS)
    return [str(names[key]) for key in keys if key in names]
