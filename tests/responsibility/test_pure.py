"""Matrix checks and the cost model, on plain values: hand-checked examples, no database."""

from decimal import Decimal as D

import pytest

from common.charts import cumulative_cost_chart
from responsibility import checks
from responsibility.costs import MISSING, CostInputs, total_cost_of_ownership


@pytest.mark.parametrize(
    "letters,status",
    [
        ({}, checks.UNANSWERED),
        ({"internal": "C", "vendor": "I"}, checks.GAP),
        ({"internal": "A", "vendor": "A", "cloud": "R"}, checks.CONFLICT),
        ({"internal": "A", "business": "C"}, checks.NO_RESPONSIBLE),
        ({"internal": "A", "vendor": "R"}, checks.OK),
        ({"internal": "A", "vendor": "R", "cloud": "R", "business": "I"}, checks.OK),
        # AR counts as an A and as an R.
        ({"internal": "AR"}, checks.OK),
        ({"internal": "AR", "business": "I"}, checks.OK),
        ({"internal": "AR", "vendor": "R"}, checks.OK),
        ({"internal": "AR", "vendor": "A"}, checks.CONFLICT),
        ({"internal": "AR", "vendor": "AR"}, checks.CONFLICT),
        ({"internal": "R", "vendor": "R"}, checks.GAP),
        ({"internal": "R"}, checks.GAP),
        ({"internal": "C", "vendor": "AR", "cloud": "C"}, checks.OK),
        ({"internal": "I", "security": "C"}, checks.GAP),
        ({"internal": "A", "vendor": "C", "cloud": "I"}, checks.NO_RESPONSIBLE),
    ],
)
def test_area_status(letters, status):
    assert checks.check_area("x", letters).status == status


@pytest.mark.parametrize(
    "letters,accountable,responsible",
    [
        ({"internal": "AR", "vendor": "R"}, ("internal",), ("internal", "vendor")),
        ({"internal": "A", "vendor": "R"}, ("internal",), ("vendor",)),
        ({"internal": "AR", "vendor": "A"}, ("internal", "vendor"), ("internal",)),
        ({"internal": "C", "vendor": "I"}, (), ()),
    ],
)
def test_area_names_who_is_accountable_and_responsible(letters, accountable, responsible):
    check = checks.check_area("x", letters)
    assert (check.accountable, check.responsible) == (accountable, responsible)


@pytest.mark.parametrize(
    "typed,stored",
    [
        ("", ""),
        ("  ", ""),
        (None, ""),
        ("R", "R"),
        ("a", "A"),
        ("AR", "AR"),
        ("ar", "AR"),
        ("RA", "AR"),
        ("A+R", "AR"),
        ("r + a", "AR"),
        ("C", "C"),
        ("i", "I"),
        ("RC", None),
        ("AA", None),
        ("RR", None),
        ("AC", None),
        ("ARC", None),
        ("X", None),
        ("A R", "AR"),
        ("-", None),
    ],
)
def test_canonical_value(typed, stored):
    assert checks.canonical(typed) == stored


@pytest.mark.parametrize(
    "value,key,after",
    [
        ("", "A", "A"),
        ("", "r", "R"),
        ("A", "R", "AR"),
        ("R", "A", "AR"),
        ("AR", "R", "A"),
        ("AR", "A", "R"),
        ("A", "A", ""),
        ("R", "R", ""),
        ("AR", "C", "C"),
        ("AR", "I", "I"),
        ("C", "R", "R"),
        ("I", "A", "A"),
        ("C", "C", ""),
        ("C", "I", "I"),
        ("AR", "Delete", ""),
        ("A", "Backspace", ""),
        ("R", " ", ""),
        ("AR", "x", "AR"),
        ("A", "Shift", "A"),
    ],
)
def test_key_press_on_a_grid_cell(value, key, after):
    assert checks.press(value, key) == after


@pytest.mark.parametrize(
    "value,accountable,responsible",
    [
        ("A", True, False),
        ("R", False, True),
        ("AR", True, True),
        ("C", False, False),
        ("I", False, False),
        ("", False, False),
        (None, False, False),
    ],
)
def test_accountable_and_responsible_values(value, accountable, responsible):
    assert checks.is_accountable(value) is accountable
    assert checks.is_responsible(value) is responsible


def test_matrix_lists_problems_and_coverage():
    result = checks.check_matrix(
        ["a", "b", "c", "d"],
        {
            "a": {"internal": "A", "vendor": "R"},
            "b": {"vendor": "A", "cloud": "A"},
            "c": {"cloud": "R"},
        },
    )
    assert [a.area for a in result.conflicts] == ["b"]
    assert [a.area for a in result.gaps] == ["c"]
    assert [a.area for a in result.unanswered] == ["d"]
    assert result.conflicts[0].accountable == ("cloud", "vendor")
    assert result.coverage == D("25.0")
    assert not result.complete
    assert checks.check_matrix([], {}).coverage == D("0.0")
    assert checks.check_matrix(["a"], {"a": {"internal": "A", "vendor": "R"}}).complete
    combined = checks.check_matrix(["a", "b"], {"a": {"internal": "AR"}, "b": {"internal": "A"}})
    assert combined.coverage == D("50.0")
    assert [a.area for a in combined.no_responsible] == ["b"]


def test_open_source_three_years_people_dominate():
    # 2 FTE at 600,000 a year; 100,000 one-off integration; no licences.
    r = total_cost_of_ownership(
        CostInputs(years=3, one_off=D("100000"), internal_fte=D("2"), fte_cost_per_year=D("600000"))
    )
    assert [y.total for y in r.years] == [D("1300000.00"), D("1200000.00"), D("1200000.00")]
    assert r.cumulative == [D("1300000.00"), D("2500000.00"), D("3700000.00")]
    assert r.total == D("3700000.00")
    assert r.people_total == D("3600000.00")
    assert r.people_share == D("97.3")  # 3.6 / 3.7


def test_cloud_gpu_spend_and_rounding():
    # 8 GPUs × 2,000 h × 12.345 per GPU-hour × 0.7 utilisation = 138,264.00 a year.
    r = total_cost_of_ownership(
        CostInputs(
            years=2,
            gpu_count=8,
            gpu_hours_per_year=D("2000"),
            gpu_price_per_hour=D("12.345"),
            utilisation=D("0.7"),
            internal_fte=D("0.333"),
            fte_cost_per_year=D("500000"),
        )
    )
    assert r.years[0].cloud == D("138264.00")
    assert r.years[0].people == D("166500.00")
    assert r.total == D("609528.00")


def test_commercial_with_hardware_and_services():
    r = total_cost_of_ownership(
        CostInputs(
            years=3,
            licence_per_year=D("300000"),
            vendor_services_per_year=D("80000.005"),
            hardware_one_off=D("1000000"),
            hardware_per_year=D("50000"),
            one_off=D("150000"),
            internal_fte=D("0.5"),
            fte_cost_per_year=D("600000"),
        )
    )
    first, second = r.years[0], r.years[1]
    assert first.services == D("80000.01")  # half up
    assert first.hardware == D("1050000.00") and second.hardware == D("50000.00")
    assert first.total == D("300000") + D("80000.01") + D("1050000") + D("150000") + D("300000")
    assert r.total == first.total + 2 * second.total


def test_zero_total_has_zero_people_share():
    r = total_cost_of_ownership(CostInputs(years=1))
    assert r.total == D("0.00") and r.people_share == D("0.0")
    assert not r.missing and r.cumulative == [D("0.00")]  # entered zeros are a real zero


def test_no_inputs_are_missing_not_zero():
    r = total_cost_of_ownership(None)
    assert r is MISSING and r.missing
    assert r.years == () and r.total is None and r.people_total is None
    assert r.people_share is None and r.cumulative is None


def test_chart_leaves_out_missing_series_and_names_them_in_a_note():
    three = [D("100"), D("200"), D("300")]
    svg = cumulative_cost_chart(
        [("Slurm", three), ("Volcano", None)],
        title="Cumulative",
        year_label="Year %(n)s",
        currency="CNY",
        note="Left out: Volcano",
    )
    assert svg.count("<polyline") == 1 and ">Slurm<" in svg
    assert ">Volcano<" not in svg  # no line, no legend entry
    assert 'data-note="left-out">Left out: Volcano</text>' in svg
    plain = cumulative_cost_chart([("Slurm", three)], title="C", year_label="%(n)s", currency="CNY")
    assert "data-note" not in plain
    # Nothing to draw at all: a frame, no line.
    empty = cumulative_cost_chart(
        [("Volcano", None)], title="C", year_label="%(n)s", currency="CNY"
    )
    assert "<polyline" not in empty and empty.endswith("</svg>")


def test_chart_note_is_clipped_to_the_chart_width():
    long = "、".join(["很长的候选方案名称"] * 20)
    svg = cumulative_cost_chart(
        [("A", [D("1")])], title="C", year_label="Y%(n)s", currency="CNY", note=long
    )
    shown = svg.split('data-note="left-out">')[1].split("</text>")[0]
    assert shown.endswith("…") and len(shown) < 60


@pytest.mark.parametrize(
    "kwargs",
    [
        {"years": 0},
        {"years": 11},
        {"years": 3, "utilisation": D("1.5")},
        {"years": 3, "gpu_count": -1},
        {"years": 3, "fte_cost_per_year": D("-1")},
    ],
)
def test_bad_inputs_are_refused(kwargs):
    with pytest.raises(ValueError):
        CostInputs(**kwargs)


def test_chart_axes_speak_the_reader_s_language():
    """Chinese names a year "第 1 年" and counts amounts in 万 and 亿, not "Year 1" and "M"."""
    from common.charts import CHINESE_UNITS

    values = [D("1200000"), D("2500000"), D("31000000")]
    zh = cumulative_cost_chart(
        [("Slurm", values)], title="C", year_label="第 %(n)s 年", currency="CNY",
        units=CHINESE_UNITS,
    )  # fmt: skip
    assert ">第 1 年<" in zh and ">第 3 年<" in zh
    assert "万<" in zh and "M<" not in zh
    en = cumulative_cost_chart(
        [("Slurm", values)], title="C", year_label="Year %(n)s", currency="CNY"
    )
    assert ">Year 2<" in en and "M<" in en and "万" not in en
