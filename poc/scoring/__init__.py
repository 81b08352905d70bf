"""POC scoring: pure functions on plain values.

Everything here works on ``Decimal`` weights and scores and imports nothing from Django, so the
maths can be read, tested and reused without a database. Services turn scorecards into the plain
values of ``base``; views and reports only display what these functions return.

Vocabulary
----------
* A **plan** is the one POC test set applied to every candidate: ordered groups, a weight per
  group and cases (each in one group, with its own weight).
* A **cell** is one (case, candidate) pair. Its score is on the 0–5 scale, or ``None`` when
  nobody has scored it yet. A missing score is *excluded* from every average, never counted as
  zero: a candidate must not lose points because a reviewer has not got round to a case. That is
  why every total comes with a **completeness** figure, and completeness must be shown next to
  the score it belongs to (a 4.5 over 20 % of the weight is not a 4.5 over 100 %).
* A **scenario profile** is a set of group weights that *replaces* the plan's group weights
  (a training-heavy profile weights batch training up, for example). Comparing candidates under
  each profile is "scenario fit", not a leaderboard.

Rounding
--------
Internally nothing is rounded (``raw_score`` fields keep full ``Decimal`` precision and
rankings use them). Figures meant for people are quantized explicitly with ``ROUND_HALF_UP``:
scores to 0.01, percentages to 0.1 (so shares in 0–1 to 0.001) and weight changes to 0.01.

Modules
-------
``base`` (constants, plain data, shared helpers), ``cells`` (a cell's value, disagreement),
``rubric`` (allowed scores, measured values), ``totals`` (group and overall totals, scenario
fit, leader, ranks), ``sensitivity`` and ``wins`` (decision robustness under other weights),
``bootstrap`` (under other reviewers and cells), ``completeness``
(enough data to name a leader?) and ``agreement`` (reviewer agreement). Every public name is
also named here, as ``poc.scoring.<name>``.
"""

from .agreement import (
    ALPHA_MIN,
    agreement_by_group,
    agreement_overall,
    krippendorff_alpha_from_sums,
    krippendorff_alpha_interval,
)
from .base import (
    CHANGE_QUANTUM,
    ONE,
    PERCENT_QUANTUM,
    SCALE_MAX,
    SCALE_MIN,
    SCORE_QUANTUM,
    SHARE_QUANTUM,
    TIE_TOLERANCE,
    ZERO,
    Case,
    CellKey,
    GroupTotal,
    Overall,
    Plan,
)
from .bootstrap import MIN_SHARE, RESAMPLES, Bootstrap, leader_bootstrap
from .cells import cell_value, disagreement
from .completeness import MIN_COMPLETENESS, Sufficiency, sufficiency
from .rubric import (
    DIRECTIONS,
    EXCELLENT_MARGIN,
    GOOD_MARGIN,
    HIGHER,
    LOWER,
    MEETS,
    RUBRIC_STEP,
    Bands,
    measured_bands,
    measured_to_score,
    rubric_problem,
)
from .sensitivity import Sensitivity, WeightFlip, weight_sensitivity
from .totals import group_totals, leader, overall, ranks, scenario_fit
from .wins import FLOAT_MARGIN, WeightTrials, monte_carlo_wins, weight_trials

__all__ = [
    "ALPHA_MIN",
    "Bands",
    "Bootstrap",
    "CHANGE_QUANTUM",
    "Case",
    "CellKey",
    "DIRECTIONS",
    "EXCELLENT_MARGIN",
    "FLOAT_MARGIN",
    "GOOD_MARGIN",
    "GroupTotal",
    "HIGHER",
    "LOWER",
    "MEETS",
    "MIN_COMPLETENESS",
    "MIN_SHARE",
    "ONE",
    "Overall",
    "PERCENT_QUANTUM",
    "RESAMPLES",
    "Plan",
    "RUBRIC_STEP",
    "SCALE_MAX",
    "SCALE_MIN",
    "SCORE_QUANTUM",
    "SHARE_QUANTUM",
    "Sensitivity",
    "Sufficiency",
    "TIE_TOLERANCE",
    "WeightFlip",
    "WeightTrials",
    "ZERO",
    "agreement_by_group",
    "agreement_overall",
    "cell_value",
    "disagreement",
    "group_totals",
    "krippendorff_alpha_from_sums",
    "krippendorff_alpha_interval",
    "leader",
    "leader_bootstrap",
    "measured_bands",
    "measured_to_score",
    "monte_carlo_wins",
    "overall",
    "ranks",
    "rubric_problem",
    "scenario_fit",
    "sufficiency",
    "weight_sensitivity",
    "weight_trials",
]
