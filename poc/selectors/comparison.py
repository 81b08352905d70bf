"""Comparing the candidates, from the scores a member may see in full: overall scores,
scenario fit under each profile, robustness of the leader and reviewer agreement, with the
candidates ranked only within their comparable group: the same solution type tested under the
same conditions (poc.testbeds.comparable). What the results page, the API, the workbook and
the report show; nothing ranks, leads or gives a win share across groups."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache

from django.db.models import Prefetch
from django.utils.translation import gettext as _

from catalog.models import SolutionType
from evaluations.models import Candidate, Evaluation
from evaluations.types import group_by_type

from .. import scoring
from ..models import ScenarioProfile
from ..testbeds.comparable import BedGroup, bed_groups, conditions_of
from .scorecards import Scorecard, scorecard
from .uncertainty import leader_bootstrap


@dataclass
class NotComparable:
    """Candidates of the same type tested under other conditions: shown beside, never ranked
    with. `note`: "not comparable: different test bed (A800 × 32 vs Ascend 910B × 16)"."""

    label: str
    candidates: list[Candidate]
    note: str = ""


@dataclass
class TypeResults:
    """One comparable group: candidates of one solution type tested under the same (or
    declared equivalent) conditions, ranked among themselves only. `test_bed` is the group's
    test-bed conditions; `others` the groups of the same type on other test beds.

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
    test_bed: BedGroup | None = None
    others: list[NotComparable] = field(default_factory=list)

    @property
    def candidates(self) -> list[Candidate]:
        return [c for c, _rank in self.ranked]

    @property
    def split(self) -> bool:
        """Its type's candidates were tested on more than one test bed."""
        return bool(self.others)

    @property
    def bed_label(self) -> str:
        return self.test_bed.label if self.test_bed is not None else ""


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
    # The owner's test-bed equivalences that joined candidates into one group.
    equivalences: list = field(default_factory=list)

    @property
    def several_types(self) -> bool:
        return len({t.solution_type.pk for t in self.by_type}) > 1

    @property
    def several_groups(self) -> bool:
        """More than one comparable group: nothing is ranked across all candidates."""
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
    beds: dict | None = None,
    equivalences=(),
) -> list[TypeResults]:
    """Group the candidates into comparable groups: by solution type
    (evaluations.types.group_by_type: the chosen type first, the others marked outside it),
    then by test bed (poc.testbeds.comparable.bed_groups over `beds` and the owner's
    `equivalences`), and rank, lead and test robustness within each group.

    `sensitivity` and `wins` computed over every candidate are reused when there is only one
    group (they are then the same figures); `trials` gives the random re-weightings of every
    candidate, run once, from which each group's win shares are read."""
    if trials is None:
        every = [str(c.pk) for c in card.candidates]
        trials = cache(lambda: scoring.weight_trials(card.plan, card.cell_values, every))
    by_pk = {c.pk: c for c in card.candidates}
    units = []
    for group in group_by_type(card.candidates, lambda c: c.solution.solution_type, main_type_id):
        split = bed_groups(group.items, beds or {}, equivalences)
        for bed in split:
            others = [
                NotComparable(
                    o.label,
                    [by_pk[pk] for pk in o.candidates],
                    _("not comparable: different test bed (%(this)s vs %(other)s)")
                    % {"this": bed.label, "other": o.label},
                )
                for o in split
                if o is not bed
            ]
            units.append((group, bed, others))
    single = len(units) == 1
    out = []
    for group, bed, others in units:
        keys = [str(pk) for pk in bed.candidates]
        in_group = {key: overall[int(key)] for key in keys}
        enough = scoring.sufficiency(card.plan, card.cell_values, keys)
        out.append(
            TypeResults(
                solution_type=group.solution_type,
                outside=group.outside,
                ranked=[(by_pk[int(key)], rank) for key, rank in scoring.ranks(in_group)],
                leaders=scoring.leader(in_group),
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
                test_bed=bed,
                others=others,
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
    beds, equivalences = conditions_of(evaluation)
    by_type = results_by_type(
        card,
        overall,
        by_profile,
        evaluation.main_type_id,
        trials=trials,
        beds=beds,
        equivalences=equivalences,
    )
    # A leader, robustness or win shares across every candidate only when they all form one
    # comparable group (then they are that group's figures); never across types or test beds.
    sensitivity = wins = None
    if len(by_type) == 1:
        sensitivity, wins = by_type[0].sensitivity, by_type[0].wins
    else:
        by_profile = [(profile, fit, ()) for profile, fit, _leaders in by_profile]
    return Results(
        card=card,
        overall=overall,
        by_profile=by_profile,
        sensitivity=sensitivity,
        wins=wins,
        agreement_by_group=scoring.agreement_by_group(card.plan, card.reviewer_scores),
        agreement=scoring.agreement_overall(card.plan, card.reviewer_scores),
        by_type=by_type,
        sufficiency=enough,
        equivalences=[e for t in by_type if t.test_bed for e in t.test_bed.equivalences],
    )
