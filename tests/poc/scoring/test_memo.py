"""Kept results (poc/scoring/memo.py) are keyed by content: equal inputs share a result, any
changed score, weight or case computes afresh, and a caller cannot spoil what is kept."""

from decimal import Decimal

from poc import scoring
from poc.scoring.memo import KEPT, content_key, remembered


def plan():
    return scoring.Plan(
        groups=["a", "b"],
        group_weights={"a": Decimal(2), "b": Decimal(1)},
        cases=[scoring.Case("1", "a", Decimal(1)), scoring.Case("2", "b", Decimal(1))],
    )


def cells(score="4"):
    return {
        ("1", "x"): Decimal(score),
        ("2", "x"): Decimal("3"),
        ("1", "y"): Decimal("3.5"),
        ("2", "y"): None,
    }


def test_equal_content_has_one_key_and_any_difference_another():
    assert content_key((plan(), cells())) == content_key((plan(), dict(reversed(cells().items()))))
    assert content_key(cells("4")) != content_key(cells("4.5"))
    assert content_key(cells("3")) != content_key(cells("3.0"))  # they print differently
    assert content_key({"k": [Decimal("1"), Decimal("2")]}) != content_key(
        {"k": [Decimal("2"), Decimal("1")]}
    )
    assert content_key({"k": "1"}) != content_key({"k": Decimal("1")})
    other = scoring.Plan(
        groups=["a", "b"],
        group_weights={"a": Decimal(2), "b": Decimal(2)},
        cases=[scoring.Case("1", "a", Decimal(1)), scoring.Case("2", "b", Decimal(1))],
    )
    assert content_key(plan()) != content_key(other)


def test_a_kept_result_is_reused_for_equal_inputs_only():
    calls = []

    @remembered
    def total(values):
        calls.append(values)
        return sum(v for v in values.values() if v is not None)

    assert total(cells()) == Decimal("10.5")
    assert total(cells()) == Decimal("10.5")
    assert len(calls) == 1
    assert total(cells("5")) == Decimal("11.5")
    assert len(calls) == 2
    for n in range(KEPT + 1):
        total({("1", "x"): Decimal(n)})
    total(cells())  # pushed out by the newer ones: computed again
    assert len(calls) == 2 + KEPT + 1 + 1


def test_trials_are_kept_and_their_shares_cannot_be_spoilt_by_a_caller():
    first = scoring.weight_trials(plan(), cells(), ["x", "y"], runs=200)
    again = scoring.weight_trials(plan(), cells(), ["x", "y"], runs=200)
    assert again is first
    shares = first.wins(["x", "y"])
    shares["x"] = Decimal("0.123")
    assert first.wins(["x", "y"]) != shares
    changed = scoring.weight_trials(plan(), cells("0"), ["x", "y"], runs=200)
    assert changed is not first
    assert changed.wins(["x", "y"]) != first.wins(["x", "y"])
