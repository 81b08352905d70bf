"""POC scoring maths: table-driven, hand-checked, no database and no Django."""

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
    cell_value,
    disagreement,
    group_totals,
    krippendorff_alpha_interval,
    leader,
    monte_carlo_wins,
    overall,
    scenario_fit,
    weight_sensitivity,
)


def two_group_plan(w1: str = "1", w2: str = "1") -> Plan:
    """Groups g1, g2, one case each (c1 in g1, c2 in g2), case weight 1."""
    return Plan(
        groups=["g1", "g2"],
        group_weights={"g1": D(w1), "g2": D(w2)},
        cases=[Case("c1", "g1", D(1)), Case("c2", "g2", D(1))],
    )


def cells(table: dict[str, tuple[str | None, ...]], case_keys: tuple[str, ...]) -> dict:
    """{candidate: (score per case, ...)} → {(case, candidate): Decimal | None}."""
    return {
        (case, candidate): None if value is None else D(value)
        for candidate, values in table.items()
        for case, value in zip(case_keys, values, strict=True)
    }


# --- cell_value and disagreement -------------------------------------------------------------


@pytest.mark.parametrize(
    ("scores", "consensus", "expected"),
    [
        (["3", "5"], None, D("4")),
        (["3.34", "3.35"], None, D("3.345")),  # unrounded: rounding is for display only
        (["1", "5"], "2", D("2")),  # consensus wins over the mean (3)
        ([], "4", D("4")),
        (["2"], None, D("2")),
        ([], None, None),  # missing, not zero
    ],
)
def test_cell_value(scores, consensus, expected):
    result = cell_value([D(s) for s in scores], None if consensus is None else D(consensus))
    assert result == expected


@pytest.mark.parametrize(("scores", "consensus"), [(["5.5"], None), (["3"], "-1")])
def test_cell_value_rejects_scores_off_the_scale(scores, consensus):
    with pytest.raises(ValueError):
        cell_value([D(s) for s in scores], None if consensus is None else D(consensus))


@pytest.mark.parametrize(
    ("scores", "expected"),
    [
        (["2", "3.5"], True),  # spread exactly 1.5 = 0.3 × 5
        (["2", "3.49"], False),  # 1.49
        (["0", "5"], True),
        (["3", "3", "4.5"], True),  # max − min over all reviewers
        (["3", "3.2", "4.4"], False),  # 1.4
        (["5"], False),  # a single score cannot disagree
        ([], False),
    ],
)
def test_disagreement_threshold(scores, expected):
    assert disagreement([D(s) for s in scores]) is expected


def test_disagreement_custom_threshold():
    # 0.2 × 5 = 1.0
    assert disagreement([D("2"), D("3")], threshold=D("0.2")) is True
    assert disagreement([D("2"), D("2.99")], threshold=D("0.2")) is False


# --- group totals ------------------------------------------------------------------------------

GROUP_PLAN = Plan(
    groups=["g1", "g2"],
    group_weights={"g1": D(3), "g2": D(1)},
    cases=[
        Case("c1", "g1", D(2)),
        Case("c2", "g1", D(1)),
        Case("c3", "g1", D(1)),
        Case("z1", "g2", D(0)),  # zero case weight
        Case("c4", "g2", D(1)),
    ],
)


@pytest.mark.parametrize(
    ("scores", "group", "score", "scored", "completeness"),
    [
        # only c1 (w 2) scored: mean over scored cases = 4, not (2·4)/4 = 2 as zeros would give
        ({"c1": "4", "c2": None}, "g1", D("4.00"), D(2), D("0.500")),
        # (2·4 + 1·1) / 3 = 3; c3 missing
        ({"c1": "4", "c2": "1"}, "g1", D("3.00"), D(3), D("0.750")),
        # (2·5 + 1·0 + 1·1) / 4 = 11/4
        ({"c1": "5", "c2": "0", "c3": "1"}, "g1", D("2.75"), D(4), D("1.000")),
        # (2·5 + 1·0) / 3 = 10/3 = 3.333… → 3.33; c2 missing
        ({"c1": "5", "c3": "0"}, "g1", D("3.33"), D(3), D("0.750")),
        ({"c2": "3", "c3": "5"}, "g1", D("4.00"), D(2), D("0.500")),
        # the zero-weight case scored 0 does not drag the score down
        ({"z1": "0", "c4": "4"}, "g2", D("4.00"), D(1), D("1.000")),
        # only the zero-weight case scored: no weight behind it, so no score and nothing complete
        ({"z1": "5"}, "g2", None, D(0), D("0.000")),
        ({}, "g1", None, D(0), D("0.000")),
    ],
)
def test_group_totals_exclude_missing_scores(scores, group, score, scored, completeness):
    cell_scores = {(case, "A"): None if v is None else D(v) for case, v in scores.items()}
    total = group_totals(GROUP_PLAN, cell_scores, "A")[group]
    assert total.score == score
    assert total.scored_weight == scored
    assert total.total_weight == (D(4) if group == "g1" else D(1))
    assert total.completeness == completeness
    assert total.group_weight == (D(3) if group == "g1" else D(1))


def test_group_totals_keep_plan_order_and_other_candidates_apart():
    cell_scores = {("c1", "A"): D(5), ("c1", "B"): D(1)}
    totals = group_totals(GROUP_PLAN, cell_scores, "B", group_weights={"g2": D(2)})
    assert list(totals) == ["g1", "g2"]
    assert totals["g1"].score == D("1.00")
    assert totals["g1"].group_weight == D(0)  # replaced weights: missing group → 0
    assert totals["g2"].group_weight == D(2)


def test_group_score_rounds_half_up():
    # (3.34 + 3.35) / 2 = 3.345: half up gives 3.35, banker's rounding would give 3.34
    plan = Plan(["g"], {"g": D(1)}, [Case("a", "g", D(1)), Case("b", "g", D(1))])
    total = group_totals(plan, {("a", "A"): D("3.34"), ("b", "A"): D("3.35")}, "A")["g"]
    assert total.raw_score == D("3.345")
    assert total.score == D("3.35")


def test_scores_off_the_scale_are_rejected():
    with pytest.raises(ValueError):
        group_totals(GROUP_PLAN, {("c1", "A"): D(6)}, "A")


@pytest.mark.parametrize(
    ("groups", "weights", "cases"),
    [
        (["g"], {"g": D(-1)}, []),
        (["g"], {"g": D(1)}, [Case("a", "x", D(1))]),  # unknown group
        (["g"], {"x": D(1)}, []),  # weight for unknown group
        (["g", "g"], {}, []),
        (["g"], {}, [Case("a", "g", D(1)), Case("a", "g", D(1))]),
    ],
)
def test_plan_rejects_inconsistent_definitions(groups, weights, cases):
    with pytest.raises(ValueError):
        Plan(groups, weights, cases)


def test_case_rejects_negative_weight():
    with pytest.raises(ValueError):
        Case("a", "g", D("-0.5"))


# --- overall and completeness ------------------------------------------------------------------

OVERALL_PLAN = Plan(
    groups=["g1", "g2", "g3"],
    group_weights={"g1": D(3), "g2": D(1), "g3": D(2)},
    cases=[Case("c1", "g1", D(2)), Case("c2", "g1", D(2)), Case("c3", "g2", D(1))],
)  # g3 has no cases: it can neither score nor be incomplete


@pytest.mark.parametrize(
    ("scores", "weights", "score", "percent", "completeness"),
    [
        # g1 = 4 (completeness 1/2), g2 = 2 (1): score (3·4 + 1·2)/4 = 3.5 → 70.0 %;
        # completeness (3·0.5 + 1·1)/(3 + 1) = 0.625. Zeros for c2 would give 2.75.
        ({"c1": "4", "c3": "2"}, None, D("3.50"), D("70.0"), D("0.625")),
        # g2 unscored: it drops out of the score (= g1 = 4) but halves nothing else
        ({"c1": "4", "c2": "4"}, None, D("4.00"), D("80.0"), D("0.750")),
        # g2 weight 0: its 0 does not count, nor does its completeness
        ({"c1": "4", "c2": "4", "c3": "0"}, {"g1": D(3), "g2": D(0)}, D("4.00"), D("80.0"), D(1)),
        # (1·1 + 3·5)/4 = 4
        ({"c1": "1", "c2": "1", "c3": "5"}, {"g1": D(1), "g2": D(3)}, D("4.00"), D("80.0"), D(1)),
        # only a zero-weight group scored: no score, completeness 0 of the weighted groups
        ({"c3": "5"}, {"g1": D(1), "g2": D(0)}, None, None, D(0)),
        ({}, None, None, None, D(0)),
        # all group weights zero: nothing counts
        ({"c1": "4", "c3": "2"}, {}, None, None, D(0)),
    ],
)
def test_overall_weighted_mean_and_completeness(scores, weights, score, percent, completeness):
    cell_scores = {(case, "A"): D(v) for case, v in scores.items()}
    result = overall(OVERALL_PLAN, cell_scores, "A", weights)
    assert result.score == score
    assert result.percent == percent
    assert result.completeness == completeness


def test_overall_percent_rounds_half_up_from_the_unrounded_score():
    # 3.3325 / 5 × 100 = 66.65 → 66.7 (half up); the score shows as 3.33
    plan = Plan(["g"], {"g": D(1)}, [Case("a", "g", D(1))])
    result = overall(plan, {("a", "A"): D("3.3325")}, "A")
    assert result.raw_score == D("3.3325")
    assert result.score == D("3.33")
    assert result.percent == D("66.7")


# --- leader and scenario fit -------------------------------------------------------------------


def _overall(raw: str | None) -> scoring.Overall:
    value = None if raw is None else D(raw)
    return scoring.Overall(score=value, raw_score=value, percent=None, completeness=D(1))


@pytest.mark.parametrize(
    ("scores", "expected"),
    [
        ({"A": "3", "B": "4", "C": "2"}, ("B",)),
        ({"C": "4", "A": "4", "B": "3.99"}, ("A", "C")),  # tie: both, sorted
        ({"A": None, "B": "0"}, ("B",)),  # no score is not a zero, and 0 still leads
        ({"A": None}, ()),
        ({}, ()),
    ],
)
def test_leader(scores, expected):
    assert leader({key: _overall(value) for key, value in scores.items()}) == expected


def test_leader_treats_decimal_noise_as_a_tie():
    # (1/3)·3 is 0.9999999999999999999999999999 at 28 digits: the same score as 1, not a loss
    noisy = D(1) / 3 * 3
    assert noisy != 1
    assert leader({"A": _overall("1"), "B": _overall(str(noisy)), "C": _overall("0.99")}) == (
        "A",
        "B",
    )


def test_scenario_fit_changes_the_leader_between_profiles():
    # A: training 5, inference 2; B: training 2, inference 5
    plan = Plan(
        ["training", "inference"],
        {"training": D(1), "inference": D(1)},
        [Case("t", "training", D(1)), Case("i", "inference", D(1))],
    )
    cell_scores = cells({"A": ("5", "2"), "B": ("2", "5")}, ("t", "i"))
    fit = scenario_fit(
        plan,
        cell_scores,
        ["A", "B"],
        {
            "training-heavy": {"training": D(3), "inference": D(1)},
            "inference-heavy": {"training": D(1), "inference": D(3)},
            "training-only": {"training": D(1)},  # inference omitted → weight 0
        },
    )
    # training-heavy: A = (3·5 + 2)/4 = 4.25, B = (3·2 + 5)/4 = 2.75; inference-heavy mirrored
    assert fit["training-heavy"]["A"].score == D("4.25")
    assert fit["training-heavy"]["A"].percent == D("85.0")
    assert fit["training-heavy"]["B"].score == D("2.75")
    assert fit["inference-heavy"]["A"].score == D("2.75")
    assert leader(fit["training-heavy"]) == ("A",)
    assert leader(fit["inference-heavy"]) == ("B",)
    assert fit["training-only"]["B"].score == D("2.00")
    # under the plan's own equal weights they tie at 3.5
    assert leader({c: overall(plan, cell_scores, c) for c in "AB"}) == ("A", "B")


# --- weight sensitivity ------------------------------------------------------------------------


def test_weight_sensitivity_finds_the_exact_crossing():
    # Weights g1 = g2 = 1 (T = 2). A: g1 5, g2 1 → 3.  B: g1 2, g2 3 → 2.5.  A leads.
    #
    # Vary g1 to w (g2 = 1):  A(w) = (5w + 1)/(w + 1),  B(w) = (2w + 3)/(w + 1).
    #   Equal denominators, so A = B ⇔ 5w + 1 = 2w + 3 ⇔ w = 2/3.
    #   A − B = (3w − 2)/(w + 1) grows with w: raising g1 never helps B; lowering it below 2/3
    #   makes B lead. Change = (2/3 − 1)/T = −1/6 = −0.1666… → −0.17.
    # Vary g2 to w (g1 = 1):  A(w) = (5 + w)/(1 + w),  B(w) = (2 + 3w)/(1 + w).
    #   A = B ⇔ 5 + w = 2 + 3w ⇔ w = 1.5. Change = (1.5 − 1)/2 = +0.25; lowering g2 only
    #   widens A's lead.
    # Smallest: g1, −0.17, new leader B.
    cell_scores = cells({"A": ("5", "1"), "B": ("2", "3")}, ("c1", "c2"))
    result = weight_sensitivity(two_group_plan(), cell_scores, ["A", "B"])
    assert result.leader == ("A",)
    assert result.total_weight == D(2)
    g1, g2 = result.by_group["g1"], result.by_group["g2"]
    assert g1.change == D("-0.17")
    assert g1.raw_change == pytest.approx(D(-1) / 6, abs=D("1e-20"))
    assert g1.new_weight == D("0.67")
    assert g1.new_leader == ("B",)
    assert g2.change == D("0.25")
    assert g2.new_weight == D("1.50")
    assert g2.new_leader == ("B",)
    assert (result.min_change, result.group, result.new_leader) == (D("-0.17"), "g1", ("B",))


def test_weight_sensitivity_respects_max_change():
    # same example: the nearest crossing is 1/6 of T away, beyond a 0.1 reach
    cell_scores = cells({"A": ("5", "1"), "B": ("2", "3")}, ("c1", "c2"))
    result = weight_sensitivity(two_group_plan(), cell_scores, ["A", "B"], max_change=D("0.1"))
    assert result.by_group == {"g1": None, "g2": None}
    assert (result.min_change, result.group, result.new_leader) == (None, None, None)
    narrow = weight_sensitivity(two_group_plan(), cell_scores, ["A", "B"], max_change=D("0.2"))
    assert narrow.by_group["g1"].change == D("-0.17")
    assert narrow.by_group["g2"] is None


def test_weight_sensitivity_none_when_one_candidate_dominates():
    # A beats B and C in every group, so no weighting can change the leader
    cell_scores = cells({"A": ("4", "3.5"), "B": ("3.9", "1"), "C": ("0", "3.4")}, ("c1", "c2"))
    result = weight_sensitivity(two_group_plan("2", "5"), cell_scores, ["A", "B", "C"])
    assert result.leader == ("A",)
    assert result.by_group == {"g1": None, "g2": None}
    assert result.min_change is None and result.group is None and result.new_leader is None


def test_weight_sensitivity_tie_changes_with_any_move():
    # A and B tie at 3; more g1 weight favours A, more g2 weight favours B
    cell_scores = cells({"A": ("5", "1"), "B": ("1", "5")}, ("c1", "c2"))
    result = weight_sensitivity(two_group_plan(), cell_scores, ["A", "B"])
    assert result.leader == ("A", "B")
    assert result.by_group["g1"].change == D("0.00")
    assert result.by_group["g1"].new_leader == ("A",)
    assert result.by_group["g2"].new_leader == ("B",)
    assert (result.min_change, result.group, result.new_leader) == (D("0.00"), "g1", ("A",))


def test_weight_sensitivity_group_at_zero_weight():
    # g2 has weight 0, so X (scored only in g2) has no score and A leads; any weight on g2
    # makes X's 5 count
    cell_scores = {("c1", "A"): D(3), ("c2", "X"): D(5)}
    result = weight_sensitivity(two_group_plan("1", "0"), cell_scores, ["A", "X"])
    assert result.leader == ("A",)
    assert result.by_group["g2"].change == D("0.00")
    assert result.by_group["g2"].new_leader == ("X",)
    # lowering g1 to 0 leaves no candidate scored: nobody leads, which is no new leader
    assert result.by_group["g1"] is None


def _scan_first_flip(plan, cell_scores, candidates, group, step):
    """Brute force through overall(): the first weight change (fraction of T) that changes the
    leader, searching outward in both directions."""
    weights = dict(plan.group_weights)
    total = sum(weights.values())
    current = leader({c: overall(plan, cell_scores, c, weights) for c in candidates})
    best = None
    for sign in (1, -1):
        k = 1
        while k * step <= 1:
            w = weights[group] + sign * k * step * total
            if w < 0:
                break
            trial = {**weights, group: w}
            now = leader({c: overall(plan, cell_scores, c, trial) for c in candidates})
            if now != current:
                if best is None or k * step < abs(best):
                    best = sign * k * step
                break
            k += 1
    return best


def test_weight_sensitivity_agrees_with_a_fine_scan_when_scores_are_missing():
    # B has no g1 score, so varying g2 gives a quadratic crossing between A and B
    plan = Plan(
        ["g1", "g2", "g3"],
        {"g1": D(1), "g2": D(1), "g3": D(1)},
        [Case("c1", "g1", D(1)), Case("c2", "g2", D(1)), Case("c3", "g3", D(1))],
    )
    cell_scores = cells(
        {"A": ("5", "1", "3"), "B": (None, "4", "2.5"), "C": ("2", "3", "4")},
        ("c1", "c2", "c3"),
    )
    candidates = ["A", "B", "C"]
    result = weight_sensitivity(plan, cell_scores, candidates)
    assert result.leader == ("B",)  # A 3, B 3.25, C 3
    # g1 up: A(w) = (5w + 4)/(w + 2) = 3.25 ⇔ w = 10/7, change (10/7 − 1)/3 = 1/7 ≈ 0.14
    assert result.by_group["g1"].change == D("0.14")
    assert result.by_group["g1"].new_leader == ("A",)
    step = D("0.0005")
    for group in plan.groups:
        flip = result.by_group[group]
        scanned = _scan_first_flip(plan, cell_scores, candidates, group, step)
        assert flip is not None and scanned is not None
        # the scan lands on the first step at or beyond the exact crossing
        assert abs(flip.raw_change) <= abs(scanned) < abs(flip.raw_change) + step
        assert (flip.raw_change > 0) == (scanned > 0)


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
