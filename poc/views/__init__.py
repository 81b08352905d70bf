"""POC pages: the plan (plan.py), and the scorecard grid, consensus, results, evidence files and
the .xlsx export (pages.py). Members only (404 otherwise)."""

from .pages import (
    CellView,
    EvidenceDownloadView,
    EvidenceView,
    ExportView,
    ResultsView,
    ScorecardView,
    evidence_response,
    scorecard_url,
)
from .plan import PlanVerifyView, PlanView

__all__ = [
    "CellView",
    "EvidenceDownloadView",
    "EvidenceView",
    "ExportView",
    "PlanVerifyView",
    "PlanView",
    "ResultsView",
    "ScorecardView",
    "evidence_response",
    "scorecard_url",
]
