"""The rubric in poc.scoring: allowed values, measured values on the 0–5 scale, and the guard
that keeps robustness from naming a leader on thin data. Table tests, no database."""

from decimal import Decimal as D

import pytest

from poc import scoring
from poc.scoring import Case, Plan, measured_bands, measured_to_score, rubric_problem


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (None, None),
        (D("0"), None),
        (D("0.5"), None),
        (D("3"), None),
        (D("3.5"), None),
        (D("5"), None),
        (D("5.0"), None),
        (D("2.25"), "step"),
        (D("0.1"), "step"),
        (D("4.99"), "step"),
        (D("-0.5"), "range"),
        (D("5.5"), "range"),
        (D("NaN"), "range"),
        (D("Infinity"), "range"),
    ],
)
def test_rubric_allows_whole_and_half_points_from_0_to_5(value, problem):
    assert rubric_problem(value) == problem


LOWER_95 = [  # lower is better, threshold 95 ms: m = 95; 4 at ≤ 85.5, 5 at ≤ 71.25
    ("50", "5"),
    ("71.25", "5"),
    ("71.26", "4"),
    ("85.5", "4"),
    ("85.51", "3"),
    ("95", "3"),
    ("95.01", "2"),
    ("104.5", "2"),
    ("104.51", "1"),
    ("118.75", "1"),
    ("118.76", "0"),
    ("1000", "0"),
]
HIGHER_200 = [  # higher is better, threshold 200 GB/s: 4 at ≥ 220, 5 at ≥ 250
    ("300", "5"),
    ("250", "5"),
    ("249.9", "4"),
    ("220", "4"),
    ("219.9", "3"),
    ("200", "3"),
    ("199.9", "2"),
    ("180", "2"),
    ("179.9", "1"),
    ("150", "1"),
    ("149.9", "0"),
    ("-5", "0"),
]


@pytest.mark.parametrize(("value", "score"), LOWER_95)
def test_lower_is_better_bands(value, score):
    assert measured_to_score("lower", D("95"), D(value)) == D(score)


@pytest.mark.parametrize(("value", "score"), HIGHER_200)
def test_higher_is_better_bands(value, score):
    assert measured_to_score("higher", D("200"), D(value)) == D(score)


@pytest.mark.parametrize(
    ("direction", "value", "score"),
    [
        # A zero threshold has no scale for percentages: meets (3) or misses (0).
        ("lower", "0", "3"),
        ("lower", "-1", "3"),
        ("lower", "0.001", "0"),
        ("higher", "0", "3"),
        ("higher", "7", "3"),
        ("higher", "-0.001", "0"),
    ],
)
def test_zero_threshold_only_meets_or_misses(direction, value, score):
    assert measured_to_score(direction, D("0"), D(value)) == D(score)


@pytest.mark.parametrize(
    ("direction", "value", "score"),
    [
        # Negative thresholds use |threshold| as the scale: −10 °C higher-is-better.
        ("higher", "-7.5", "5"),
        ("higher", "-9", "4"),
        ("higher", "-10", "3"),
        ("higher", "-11", "2"),
        ("higher", "-12.5", "1"),
        ("higher", "-13", "0"),
        ("lower", "-12.5", "5"),
        ("lower", "-11", "4"),
        ("lower", "-10", "3"),
        ("lower", "-9", "2"),
        ("lower", "-7.5", "1"),
        ("lower", "-7", "0"),
    ],
)
def test_negative_threshold(direction, value, score):
    assert measured_to_score(direction, D("-10"), D(value)) == D(score)


def test_explicit_bands_replace_the_default_margins():
    bands = measured_bands("lower", D("95"), good=D("80"), excellent=D("60"))
    assert not bands.default
    assert [(str(limit), str(score)) for limit, score in bands.steps] == [
        ("60", "5"),
        ("80", "4"),
        ("95", "3"),
        ("104.50", "2"),
        ("118.75", "1"),
    ]
    table = {"60": "5", "61": "4", "80": "4", "81": "3", "95": "3", "100": "2", "200": "0"}
    for value, score in table.items():
        assert bands.score(D(value)) == D(score), value
    assert measured_bands("lower", D("95")).default


@pytest.mark.parametrize(
    ("direction", "good", "excellent", "field"),
    [
        ("lower", "100", None, "good"),  # 4 must be better (lower) than the threshold
        ("lower", "95", None, "good"),  # …strictly
        ("higher", "90", None, "good"),
        ("lower", "80", "85", "excellent"),  # 5 must be better than 4
        ("higher", "120", "110", "excellent"),
        ("lower", None, "99", "excellent"),  # 5 alone must still beat the threshold
    ],
)
def test_explicit_bands_must_follow_the_direction(direction, good, excellent, field):
    with pytest.raises(ValueError, match=field):
        measured_bands(
            direction,
            D("95") if direction == "lower" else D("100"),
            None if good is None else D(good),
            None if excellent is None else D(excellent),
        )


@pytest.mark.parametrize("direction", ["", "Lower", "down", None])
def test_unknown_direction_is_an_error_not_higher(direction):
    with pytest.raises(ValueError, match="Direction"):
        measured_to_score(direction, D("1"), D("1"))


def plan() -> Plan:
    return Plan(
        groups=["g1", "g2"],
        group_weights={"g1": D("1"), "g2": D("1")},
        cases=[
            Case("a", "g1", D("1")),
            Case("b", "g1", D("1")),
            Case("c", "g2", D("1")),
            Case("d", "g2", D("1")),
        ],
    )


@pytest.mark.parametrize(
    ("scored", "enough", "thin"),
    [
        # candidate → cases scored (each cell 3); thin: (candidate, completeness, empty groups)
        ({"x": "abcd", "y": "abcd"}, True, ()),
        ({"x": "abc", "y": "abd"}, True, ()),  # 75 % each, no empty group
        ({"x": "ac", "y": "bd"}, False, (("x", "0.500", ()), ("y", "0.500", ()))),  # 50 %
        ({"x": "abcd", "y": "ab"}, False, (("y", "0.500", ("g2",)),)),  # whole group missing
        ({"x": "a", "y": ""}, False, (("x", "0.250", ("g2",)), ("y", "0.000", ("g1", "g2")))),
        ({}, False, ()),  # no candidates
    ],
)
def test_sufficiency(scored, enough, thin):
    cells = {(case, who): D(3) for who, cases in scored.items() for case in cases}
    result = scoring.sufficiency(plan(), cells, list(scored))
    assert result.enough is enough
    assert [(c, str(p), g) for c, p, g in result.thin] == list(thin)


def test_sufficiency_at_exactly_the_minimum_is_enough():
    five = Plan(
        groups=["g"],
        group_weights={"g": D("1")},
        cases=[Case(k, "g", D("1")) for k in "abcde"],
    )
    cells = {(k, "x"): D(3) for k in "abc"}  # 60 %
    assert scoring.sufficiency(five, cells, ["x"]).enough
    cells.pop(("c", "x"))  # 40 %
    assert not scoring.sufficiency(five, cells, ["x"]).enough


def test_a_group_without_weight_does_not_count_as_missing():
    cells = {("a", "x"): D(3), ("b", "x"): D(3)}
    weights = {"g1": D("1"), "g2": D("0")}
    assert scoring.sufficiency(plan(), cells, ["x"], weights).enough


def test_sensitivity_never_names_nobody_as_the_new_leader():
    # Each candidate is scored in g1 only: dropping g1's weight to 0 leaves nobody with a score,
    # which used to be reported as a flip to an empty leader ("the new leader would be .").
    cells = {("a", "x"): D(4), ("a", "y"): D(2)}
    result = scoring.weight_sensitivity(plan(), cells, ["x", "y"])
    assert result.leader == ("x",)
    assert all(flip is None or flip.new_leader for flip in result.by_group.values())
    assert result.new_leader is None or result.new_leader
