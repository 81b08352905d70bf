"""Test beds, the pure rules (table tests): what makes two beds the same, and what the POC's
outcomes say about a capability."""

from decimal import Decimal as D

import pytest

from poc.testbeds import Bed, bed_mismatch
from poc.verification import CONTRADICTED, VERIFIED, derive, outcome


@pytest.mark.parametrize(
    ("beds", "accelerators", "scale"),
    [
        ([], False, False),
        ([Bed("A", "NVIDIA A800", 32, 4)], False, False),
        ([Bed("A", "NVIDIA A800", 32, 4), Bed("B", "NVIDIA A800", 32, 4)], False, False),
        # Spelling and case do not make a difference.
        ([Bed("A", "NVIDIA A800", 32, 4), Bed("B", "nvidia  a800", 32, 4)], False, False),
        ([Bed("A", "NVIDIA A800", 32, 4), Bed("B", "Huawei Ascend 910B", 32, 4)], True, False),
        ([Bed("A", "Cambricon MLU370", 16, 2), Bed("B", "Cambricon MLU370", 32, 4)], False, True),
        ([Bed("A", "NVIDIA A800", 32, 4), Bed("B", "NVIDIA A800", 32, 8)], False, True),
        ([Bed("A", "Huawei Ascend 910B", 8, 1), Bed("B", "NVIDIA H800", 64, 8)], True, True),
        # A blank field is not compared: nothing to compare yet.
        ([Bed("A", "", None, None), Bed("B", "NVIDIA A800", 32, 4)], False, False),
        ([Bed("A", "NVIDIA A800", None, 4), Bed("B", "NVIDIA A800", 32, 4)], False, False),
    ],
)
def test_bed_mismatch(beds, accelerators, scale):
    mismatch = bed_mismatch(beds)
    assert bool(mismatch.accelerators) is accelerators
    assert bool(mismatch.scale) is scale
    assert bool(mismatch) is (accelerators or scale)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        (D("0"), CONTRADICTED),
        (D("2.5"), CONTRADICTED),
        (D("2.95"), CONTRADICTED),
        (D("3"), VERIFIED),
        (D("3.25"), VERIFIED),
        (D("5"), VERIFIED),
    ],
)
def test_outcome_reads_the_rubric(value, expected):
    assert outcome(value) == expected


CASES = [("c1", ("gang",)), ("c2", ("gang", "quotas")), ("c3", ())]


@pytest.mark.parametrize(
    ("cells", "expected"),
    [
        ({}, {}),
        ({("c1", "x"): None}, {}),  # unscored (or hidden from the viewer): nothing
        ({("c1", "x"): D("4")}, {"gang": (VERIFIED, ("c1",), ())}),
        ({("c1", "x"): D("2")}, {"gang": (CONTRADICTED, (), ("c1",))}),
        (
            {("c1", "x"): D("4"), ("c2", "x"): D("3")},
            {"gang": (VERIFIED, ("c1", "c2"), ()), "quotas": (VERIFIED, ("c2",), ())},
        ),
        # One failed case contradicts the capability, even when another verified it.
        (
            {("c1", "x"): D("4.5"), ("c2", "x"): D("1")},
            {"gang": (CONTRADICTED, ("c1",), ("c2",)), "quotas": (CONTRADICTED, (), ("c2",))},
        ),
        ({("c3", "x"): D("5")}, {}),  # a case verifying nothing
        ({("c1", "y"): D("5")}, {}),  # another candidate's cell
    ],
)
def test_derive(cells, expected):
    found = derive(CASES, cells, ["x"])["x"]
    assert {k: (f.status, f.passed, f.failed) for k, f in found.items()} == expected
