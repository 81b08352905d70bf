"""The parts of a report's snapshot built from the POC's data, contributed to reports.snapshot
through evaluations.extensions (poc/apps.py registers PARTS):

- scores.py: the POC part (scorecard, robustness, agreement, scenario fit) and the scenario
  fit the summary leads with;
- verification.py: the test beds and the capabilities the POC verified or contradicted;
- appendix.py: the test cases, the evidence files, the conflicts of interest.
"""

from __future__ import annotations

from evaluations.extensions import ReportPart

from .appendix import conflicts_part, evidence_part, test_cases_part
from .scores import poc_part, scenario_fit

PARTS = (
    ReportPart("poc", poc_part),
    ReportPart("appendix.test_cases", test_cases_part),
    ReportPart("appendix.evidence", evidence_part),
    ReportPart("appendix.conflicts", conflicts_part),
)

__all__ = ["PARTS", "scenario_fit"]
