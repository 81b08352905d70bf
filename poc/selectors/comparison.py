"""Comparing the candidates, from the scores a member may see in full: overall scores,
scenario fit under each profile, robustness of the leader and reviewer agreement, with the
candidates ranked only within their solution type (what the results page, the API and the
report show)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache

from django.db.models import Prefetch

from catalog.models import SolutionType
from evaluations.models import Candidate, Evaluation
from evaluations.types import group_by_type

from .. import scoring
from ..models import ScenarioProfile
from .scorecards import Scorecard, scorecard
from .uncertainty import leader_bootstrap


@dataclass
class TypeResults:
    """The candidates of one solution type, ranked among themselves only.

    `ranked` is best first under the plan's weights (rank None: no score yet); `by_profile` is
    `Results.by_profile` with the leaders within this type; `sensitivity` and `wins` are the
    robustness of the leader within this type, both None when `sufficiency` says the scores
    are too thin to name a leader. `outside`: a type decision exists and this is another
    type."""

    solution_type: SolutionType
    outside: bool
    ranked: list[tuple[Candidate, int | None]]
    leaders: tuple[str, ...]
    by_profile: list[tuple[ScenarioProfile, dict[int, scoring.Overall], tuple[str, ...]]]
    sensitivity: scoring.Sensitivity | None
    wins: dict[str, Decimal] | None
    sufficiency: scoring.Sufficiency | None = None
    # How often the leader stays leader over resampled reviewers and cells (uncertainty).
    bootstrap: scoring.Bootstrap | None = None

    @property
    def candidates(self) -> list[Candidate]:
        return [c for c, _rank in self.ranked]


@dataclass
class Results:
    card: Scorecard
    overall: dict[int, scoring.Overall]
    by_profile: list[tuple[ScenarioProfile, dict[int, scoring.Overall], tuple[str, ...]]]
    sensitivity: scoring.Sensitivity | None  # None: too thin (see `sufficiency`)
    wins: dict[str, Decimal] | None
    agreement_by_group: dict[str, float | None]
    agreement: float | None
    # Scenario fit within the type context: what pages, API and report show, so that
    # candidates of different types are never ranked against each other.
    by_type: list[TypeResults] = field(default_factory=list)
    sufficiency: scoring.Sufficiency | None = None

    @property
    def several_types(self) -> bool:
        return len(self.by_type) > 1


def results_by_type(
    card: Scorecard,
    overall: dict[int, scoring.Overall],
    by_profile: list,
    main_type_id: int | None,
    *,
    sensitivity: scoring.Sensitivity | None = None,
    wins: dict[str, Decimal] | None = None,
    trials: Callable[[], scoring.WeightTrials] | None = None,
) -> list[TypeResults]:
    """Group the candidates by solution type (evaluations.types.group_by_type: the chosen type
    first, the others marked outside it) and rank, lead and test robustness within each group.

    `sensitivity` and `wins` computed over every candidate are reused when there is only one
    type (they are then the same figures); `trials` gives the random re-weightings of every
    candidate, run once, from which each type's win shares are read."""
    if trials is None:
        keys = [str(c.pk) for c in card.candidates]
        trials = cache(lambda: scoring.weight_trials(card.plan, card.cell_values, keys))
    groups = group_by_type(card.candidates, lambda c: c.solution.solution_type, main_type_id)
    out = []
    for group in groups:
        keys = [str(c.pk) for c in group.items]
        by_key = {str(c.pk): c for c in group.items}
        in_type = {key: overall[int(key)] for key in keys}
        single = len(groups) == 1
        enough = scoring.sufficiency(card.plan, card.cell_values, keys)
        out.append(
            TypeResults(
                solution_type=group.solution_type,
                outside=group.outside,
                ranked=[(by_key[key], rank) for key, rank in scoring.ranks(in_type)],
                leaders=scoring.leader(in_type),
                by_profile=[
                    (profile, fit, scoring.leader({key: fit[int(key)] for key in keys}))
                    for profile, fit, _leaders in by_profile
                ],
                sensitivity=None
                if not enough.enough
                else sensitivity
                if single and sensitivity is not None
                else scoring.weight_sensitivity(card.plan, card.cell_values, keys),
                wins=None
                if not enough.enough
                else wins
                if single and wins is not None
                else trials().wins(keys),
                sufficiency=enough,
                bootstrap=leader_bootstrap(card, keys),
            )
        )
    return out


def results(
    evaluation: Evaluation, user, *, see_all: bool | None = None, rows: bool = True
) -> Results:
    """Scenario fit, robustness and agreement, from the scores the user may see in full.

    Totals count only submitted scores and consensus. Scoring stays blind here too: for a
    reviewer, cells scored by others but not yet by them count as missing (see `scorecard`).
    `rows=False` leaves the scorecard's rows out (`results.card` then has totals only)."""
    card = scorecard(evaluation, user, see_all=see_all, rows=rows)
    keys = [str(c.pk) for c in card.candidates]
    overall = {c.pk: card.overall(c) for c in card.candidates}
    profiles = list(ScenarioProfile.objects.prefetch_related(Prefetch("weights")).select_related())
    group_key_by_id = {g.plan_group.group_id: g.plan_group.group.key for g in card.groups}
    by_profile = []
    for profile in profiles:
        weights = {
            group_key_by_id[w.group_id]: w.weight
            for w in profile.weights.all()
            if w.group_id in group_key_by_id
        }
        fit = {c.pk: card.overall(c, weights) for c in card.candidates}
        by_profile.append((profile, fit, scoring.leader({str(k): v for k, v in fit.items()})))
    # Robustness and win shares name a leader only on enough data (scoring.sufficiency).
    enough = scoring.sufficiency(card.plan, card.cell_values, keys)
    # The re-weightings run once, for every candidate; each type reads its shares from them.
    trials = cache(lambda: scoring.weight_trials(card.plan, card.cell_values, keys))
    sensitivity = wins = None
    if enough.enough:
        sensitivity = scoring.weight_sensitivity(card.plan, card.cell_values, keys)
        wins = trials().wins(keys)
    return Results(
        card=card,
        overall=overall,
        by_profile=by_profile,
        sensitivity=sensitivity,
        wins=wins,
        agreement_by_group=scoring.agreement_by_group(card.plan, card.reviewer_scores),
        agreement=scoring.agreement_overall(card.plan, card.reviewer_scores),
        by_type=results_by_type(
            card,
            overall,
            by_profile,
            evaluation.main_type_id,
            sensitivity=sensitivity,
            wins=wins,
            trials=trials,
        ),
        sufficiency=enough,
    )
