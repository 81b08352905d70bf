"""The pure scoring core: Monte Carlo win shares under perturbed weights, and reviewers'
agreement by Krippendorff's alpha (table tests against worked examples)."""

import random
from decimal import ROUND_HALF_UP
from decimal import Decimal as D

import pytest

from poc import scoring
from poc.scoring import (
    Case,
    Plan,
    agreement_by_group,
    agreement_overall,
    krippendorff_alpha_interval,
    leader,
    monte_carlo_wins,
    overall,
)
from tests.poc.scoring.support import (
    cells,
    two_group_plan,
)

# --- Monte Carlo -------------------------------------------------------------------------------

MIRROR = cells({"A": ("4", "3"), "B": ("3", "4")}, ("c1", "c2"))  # A wins iff w1 > w2


def test_monte_carlo_is_reproducible_and_shares_sum_to_one():
    first = monte_carlo_wins(two_group_plan(), MIRROR, ["A", "B"], runs=500)
    again = monte_carlo_wins(two_group_plan(), MIRROR, ["A", "B"], runs=500)
    assert first == again
    assert abs(sum(first.values()) - 1) <= D("0.001")  # two shares, each rounded half up
    assert D("0.35") < first["A"] < D("0.65")


def test_monte_carlo_uses_independent_uniform_factors_per_group():
    # With equal weights, A leads exactly when g1's factor exceeds g2's. Replaying the documented
    # draws (uniform on [1 − spread, 1 + spread], one per group in plan order) must give the
    # same share.
    runs, seed = 300, 7
    rng = random.Random(seed)
    a_wins = sum(rng.uniform(0.7, 1.3) > rng.uniform(0.7, 1.3) for _ in range(runs))
    shares = monte_carlo_wins(
        two_group_plan(), MIRROR, ["A", "B"], runs=runs, spread=D("0.3"), seed=seed
    )
    expected = (D(a_wins) / runs).quantize(D("0.001"), rounding=ROUND_HALF_UP)
    assert shares["A"] == expected
    assert shares["B"] == (D(runs - a_wins) / runs).quantize(D("0.001"), rounding=ROUND_HALF_UP)


@pytest.mark.parametrize(
    ("table", "spread", "expected"),
    [
        # a candidate better in every group wins every run
        ({"A": ("5", "4"), "B": ("1", "3")}, D("0.5"), {"A": D("1.000"), "B": D("0.000")}),
        # no spread: the weights never move, a tie splits every win
        ({"A": ("5", "1"), "B": ("1", "5")}, D("0"), {"A": D("0.500"), "B": D("0.500")}),
        # a candidate without any score never wins
        ({"A": ("2", "2"), "B": (None, None)}, D("0.5"), {"A": D("1.000"), "B": D("0.000")}),
    ],
)
def test_monte_carlo_extremes(table, spread, expected):
    cell_scores = cells(table, ("c1", "c2"))
    result = monte_carlo_wins(two_group_plan(), cell_scores, ["A", "B"], runs=200, spread=spread)
    assert result == expected


@pytest.mark.parametrize(
    "subset",
    [["A", "B"], ["B", "C"], ["C"], ["A", "B", "C", "D"]],
)
def test_win_shares_of_a_subset_read_from_shared_trials_equal_its_own_run(subset):
    # A and B mirror each other (ties when the factors are equal: spread 0 below), C is
    # scored in one group only, D in none.
    table = {"A": ("4", "3"), "B": ("3", "4"), "C": ("5", None), "D": (None, None)}
    cell_scores = cells(table, ("c1", "c2"))
    plan = two_group_plan()
    for spread in (D("0.5"), D("0")):
        trials = scoring.weight_trials(plan, cell_scores, list(table), runs=300, spread=spread)
        alone = monte_carlo_wins(plan, cell_scores, subset, runs=300, spread=spread)
        assert trials.wins(subset) == alone


def _wins_in_decimals(plan, cell_scores, candidates, runs, spread, seed):
    """monte_carlo_wins by its definition: every run through overall() and leader()."""
    from fractions import Fraction

    rng = random.Random(seed)
    low, high = float(1 - spread), float(1 + spread)
    wins = dict.fromkeys(candidates, Fraction(0))
    for _ in range(runs):
        drawn = {
            g: plan.group_weights.get(g, D(0)) * D(rng.uniform(low, high)) for g in plan.groups
        }
        leaders = leader({c: overall(plan, cell_scores, c, drawn) for c in candidates})
        for c in leaders:
            wins[c] += Fraction(1, len(leaders))
    return {
        c: (D(w.numerator) / D(w.denominator * runs)).quantize(D("0.001"), rounding=ROUND_HALF_UP)
        for c, w in wins.items()
    }


@pytest.mark.parametrize("seed", range(12))
def test_win_shares_equal_the_decimal_definition_on_ties_and_near_ties(seed):
    # Floats only pick the clear leaders; exact ties and near ties (apart by more or by less
    # than the tie tolerance) must still come out as the exact arithmetic decides them.
    rng = random.Random(seed)
    groups = [f"g{i}" for i in range(rng.randint(1, 5))]
    cases = [Case(f"c{i}", rng.choice(groups), D(rng.randint(0, 4))) for i in range(8)]
    plan = Plan(groups, {g: D(rng.randint(0, 5)) for g in groups}, cases)
    steps = [None] + [D(n) / 2 for n in range(11)]
    table = {f"K{k}": [rng.choice(steps) for _ in cases] for k in range(4)}
    table["twin"] = list(table["K0"])  # an exact tie with K0 under every weighting

    def nudged(row, by):
        """The row with its first score below 5 raised by `by`."""
        row = list(row)
        i = next((i for i, v in enumerate(row) if v is not None and v < 5), None)
        if i is not None:
            row[i] += by
        return row

    table["near"] = nudged(table["K1"], D("1e-10"))  # ahead of K1, by more than the tolerance
    table["hair"] = nudged(table["K2"], D("1e-14"))  # level with K2 within the tolerance
    rows = table.items()
    cell_scores = {(c.key, k): v for k, row in rows for c, v in zip(cases, row, strict=True)}
    candidates = list(table)
    spread = rng.choice([D("0"), D("0.2"), D("0.5"), D("1")])
    expected = _wins_in_decimals(plan, cell_scores, candidates, 200, spread, seed)
    assert monte_carlo_wins(plan, cell_scores, candidates, runs=200, spread=spread, seed=seed) == (
        expected
    )


@pytest.mark.parametrize(("runs", "spread"), [(0, D("0.5")), (10, D("1.5")), (10, D("-0.1"))])
def test_monte_carlo_rejects_bad_parameters(runs, spread):
    with pytest.raises(ValueError):
        monte_carlo_wins(two_group_plan(), MIRROR, ["A", "B"], runs=runs, spread=spread)


# --- Krippendorff's alpha ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("units", "expected"),
    [
        # Hand-checked: units [1,2], [3,3], [4,5]; n = 6 pairable values.
        # D_o: each unit has m = 2, so each ordered pair adds 1/(m − 1) = 1 × δ²:
        #   [1,2] → 2 × 1 = 2, [3,3] → 0, [4,5] → 2; Σ = 4, D_o = 4/6 = 2/3.
        # D_e: values 1,2,3,3,4,5; Σv = 18, Σv² = 64; Σ over ordered pairs of (v − v')²
        #   = 2(n·Σv² − (Σv)²) = 2(384 − 324) = 120; D_e = 120/(6·5) = 4.
        # alpha = 1 − (2/3)/4 = 5/6.
        ([[1, 2], [3, 3], [4, 5]], 5 / 6),
        # same with Decimals, plus a single-value unit that must be ignored
        ([[D(1), D(2)], [D(3), D(3)], [D(4), D(5)], [D(2)]], 5 / 6),
        # Krippendorff (2011)'s worked example (4 observers, 12 units, missing values):
        # the paper reports alpha_interval = 0.849; exactly 0.8491071428…
        (
            [
                [1, 1, 1],
                [2, 2, 3, 2],
                [3, 3, 3, 3],
                [3, 3, 3, 3],
                [2, 2, 2, 2],
                [1, 2, 3, 4],
                [4, 4, 4, 4],
                [1, 1, 2, 1],
                [2, 2, 2, 2],
                [5, 5, 5],
                [1, 1],
                [3],
            ],
            0.8491071428571428,
        ),
        # perfect agreement within units, variation between them
        ([[1, 1], [3, 3, 3], [5, 5]], 1.0),
        # systematic disagreement: within-unit spread larger than chance → negative
        # D_o = (2·16 + 2·16)/4 = 16; values 1,5,5,1: D_e = 2(4·52 − 144)/(4·3) = 128/12
        # alpha = 1 − 16·12/128 = −0.5
        ([[1, 5], [5, 1]], -0.5),
    ],
)
def test_krippendorff_alpha_interval(units, expected):
    assert krippendorff_alpha_interval(units) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize(
    "units",
    [
        [[D("0.5"), D("4.5"), 2.25], [D("3.1"), D("3.3")], [D(5), D(0)]],
        [[1, 2, 2, 5], [D("2.5"), 3], [0.1, 0.2]],  # binary floats, not decimal tenths
    ],
)
def test_krippendorff_alpha_is_exact_on_decimals_and_floats(units):
    # The definition pair by pair, in fractions: D_o over pairs within each unit weighted by
    # 1/(m_u − 1), D_e over every ordered pair of pairable values regardless of unit.
    from fractions import Fraction as F

    pairable = [[F(v) for v in unit] for unit in units if len(unit) >= 2]
    every = [v for unit in pairable for v in unit]
    n = len(every)
    d_o = (
        sum(
            F((vi - vj) ** 2, len(unit) - 1)
            for unit in pairable
            for i, vi in enumerate(unit)
            for j, vj in enumerate(unit)
            if i != j
        )
        / n
    )
    d_e = sum((a - b) ** 2 for i, a in enumerate(every) for j, b in enumerate(every) if i != j)
    d_e /= n * (n - 1)
    assert krippendorff_alpha_interval(units) == float(1 - d_o / d_e)


@pytest.mark.parametrize(
    "units",
    [
        [[3], [4], [2]],  # a single reviewer per cell: nothing to pair
        [],
        [[3, 3], [3, 3]],  # every value the same: D_e = 0, agreement undefined
    ],
)
def test_krippendorff_alpha_undefined(units):
    assert krippendorff_alpha_interval(units) is None


def test_agreement_by_group_and_overall():
    plan = Plan(
        ["g1", "g2", "g3"],
        {"g1": D(1), "g2": D(1), "g3": D(1)},
        [
            Case("a", "g1", D(1)),
            Case("b", "g1", D(0)),  # zero weight still counts for agreement
            Case("c", "g2", D(1)),
            Case("d", "g3", D(1)),
        ],
    )
    reviewer_scores = {
        ("a", "A"): [D(1), D(2)],
        ("a", "B"): [D(3), D(3)],
        ("b", "A"): [D(4), D(5)],
        ("c", "A"): [D(2), D(2)],
        ("c", "B"): [D(5), D(5)],
        ("d", "A"): [D(4)],  # single reviewer
    }
    by_group = agreement_by_group(plan, reviewer_scores)
    assert by_group["g1"] == pytest.approx(5 / 6, abs=1e-9)  # the hand example above
    assert by_group["g2"] == pytest.approx(1.0, abs=1e-9)
    assert by_group["g3"] is None
    # All pairable units: [1,2],[3,3],[4,5],[2,2],[5,5]; n = 10.
    # D_o = (2 + 0 + 2 + 0 + 0)/10 = 0.4. Σv = 32, Σv² = 122: 2(10·122 − 32²) = 392,
    # D_e = 392/90. alpha = 1 − 0.4·90/392 = 1 − 9/98 = 89/98.
    assert agreement_overall(plan, reviewer_scores) == pytest.approx(89 / 98, abs=1e-9)


def test_agreement_rejects_unknown_cases():
    with pytest.raises(ValueError):
        agreement_overall(two_group_plan(), {("nope", "A"): [D(1), D(2)]})
