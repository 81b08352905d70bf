"""The pure scoring core, cells to totals: a cell's value and disagreement, group totals, the
overall score and completeness (table tests)."""

from decimal import Decimal as D

import pytest

from poc.scoring import (
    Case,
    Plan,
    cell_value,
    disagreement,
    group_totals,
    overall,
)

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
