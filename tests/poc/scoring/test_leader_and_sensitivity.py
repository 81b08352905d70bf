"""The pure scoring core: the leader and scenario fit, and how sensitive the ranking is to the
group weights (table tests)."""

from decimal import Decimal as D

import pytest

from poc import scoring
from poc.scoring import (
    Case,
    Plan,
    leader,
    overall,
    scenario_fit,
    weight_sensitivity,
)
from tests.poc.scoring.support import (
    cells,
    two_group_plan,
)

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
