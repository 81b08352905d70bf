"""Reads for POC plans and scorecards, in a fixed number of queries.

plans.py reads the plan and the scenario profile it starts from, scorecards.py builds the blind
scorecard (and the reads that follow its blindness), comparison.py the results: scenario fit by
solution type, robustness and agreement. Every public name is also named here, as
`poc.selectors.<name>`.
"""

from .comparison import NotComparable, Results, TypeResults, results, results_by_type
from .plans import (
    BALANCED_PROFILE,
    ProfileChoice,
    plan_cases,
    plan_default_profile,
    plan_groups,
    profile_choice,
    profile_in_use,
    profiles_with_scenarios,
    scored_case_ids,
)
from .scorecards import (
    Cell,
    GroupBlock,
    Row,
    Scorecard,
    draft_count,
    evidence_for_download,
    hidden_cell_count,
    scorecard,
    scorecard_cell,
)

__all__ = [
    "NotComparable",
    "BALANCED_PROFILE",
    "Cell",
    "GroupBlock",
    "ProfileChoice",
    "Results",
    "Row",
    "Scorecard",
    "TypeResults",
    "draft_count",
    "evidence_for_download",
    "hidden_cell_count",
    "plan_cases",
    "scored_case_ids",
    "plan_default_profile",
    "plan_groups",
    "profile_choice",
    "profile_in_use",
    "profiles_with_scenarios",
    "results",
    "results_by_type",
    "scorecard",
    "scorecard_cell",
]
