"""What the scoring tests share: a two-group plan and cells from a small table."""

from decimal import Decimal as D

from poc.scoring import (
    Case,
    Plan,
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
