"""The bootstrap of one set of comparable candidates, from the scores the viewer may see in
full (the scorecard decides what is hidden; hidden cells are missing here as in the totals)."""

from __future__ import annotations

from collections.abc import Sequence

from .. import scoring
from .scorecards import Scorecard


def leader_bootstrap(card: Scorecard, candidates: Sequence[str]) -> scoring.Bootstrap:
    """How often the leader among `candidates` (candidate pks as strings) stays leader when
    reviewers and cells are resampled (scoring.leader_bootstrap, fixed seed, kept by content)."""
    keys = list(candidates)
    wanted = set(keys)
    cells = {key: value for key, value in card.cell_values.items() if key[1] in wanted}
    marks = {key: value for key, value in card.reviewer_marks.items() if key[1] in wanted}
    return scoring.leader_bootstrap(card.plan, cells, marks, keys)
