"""The parts of a report's snapshot built from evaluations' own data, contributed to
reports.snapshot through evaluations.extensions (evaluations/apps.py registers PARTS):

- overview.py: the evaluation's facts and members (meta), the types, the five questions'
  answers, the risk reminders;
- catalog.py: the catalog comparison of the shortlist (candidates with their hard constraints,
  the capability matrix, the sources cited) and each candidate's caveats;
- history.py: the history appendix (counts by kind and the decisive changes);
- evaluations.acknowledgements: the open high reminders the owner acknowledged ("decided
  despite").
"""

from __future__ import annotations

from ..acknowledgements import acknowledged_part
from ..extensions import ReportPart
from .catalog import CatalogFacts, candidates_part, capabilities_part, catalog_facts, sources_part
from .history import history_part
from .overview import meta_part, questions_part, reminders_part, types_part

PARTS = (
    ReportPart("meta", meta_part),
    ReportPart("types", types_part),
    ReportPart("candidates", candidates_part),
    ReportPart("capabilities", capabilities_part),
    ReportPart("questions", questions_part),
    ReportPart("reminders", reminders_part),
    ReportPart("acknowledged", acknowledged_part),
    ReportPart("appendix.sources", sources_part),
    ReportPart("appendix.history", history_part),
)

__all__ = ["PARTS", "CatalogFacts", "catalog_facts"]
