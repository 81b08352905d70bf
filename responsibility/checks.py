"""RACI checks on plain values (no Django): who is accountable and responsible for each area.

Every area needs exactly one A (accountable) and at least one R (responsible). A cell holds one
letter: R, A, C (consulted) or I (informed).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

LETTERS = ("R", "A", "C", "I")

OK = "ok"
GAP = "gap"  # nobody accountable
CONFLICT = "conflict"  # more than one accountable
NO_RESPONSIBLE = "no_responsible"  # one accountable, nobody marked to do the work
UNANSWERED = "unanswered"  # no letter at all


@dataclass(frozen=True)
class AreaCheck:
    area: str
    status: str
    accountable: tuple[str, ...]
    responsible: tuple[str, ...]


@dataclass
class MatrixCheck:
    areas: list[AreaCheck] = field(default_factory=list)

    def by_status(self, status: str) -> list[AreaCheck]:
        return [a for a in self.areas if a.status == status]

    @property
    def gaps(self) -> list[AreaCheck]:
        return self.by_status(GAP)

    @property
    def conflicts(self) -> list[AreaCheck]:
        return self.by_status(CONFLICT)

    @property
    def unanswered(self) -> list[AreaCheck]:
        return self.by_status(UNANSWERED)

    @property
    def no_responsible(self) -> list[AreaCheck]:
        return self.by_status(NO_RESPONSIBLE)

    @property
    def ok_count(self) -> int:
        return len(self.by_status(OK))

    @property
    def coverage(self) -> Decimal:
        """Share of areas that are fully assigned (one A, at least one R), 0–100, one decimal."""
        if not self.areas:
            return Decimal("0.0")
        share = Decimal(self.ok_count * 100) / Decimal(len(self.areas))
        return share.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)

    @property
    def complete(self) -> bool:
        return bool(self.areas) and self.ok_count == len(self.areas)


def check_area(area: str, letters: Mapping[str, str]) -> AreaCheck:
    """`letters` maps party key → letter for one area (parties without a letter are absent)."""
    accountable = tuple(sorted(p for p, letter in letters.items() if letter == "A"))
    responsible = tuple(sorted(p for p, letter in letters.items() if letter == "R"))
    if not any(letters.values()):
        status = UNANSWERED
    elif not accountable:
        status = GAP
    elif len(accountable) > 1:
        status = CONFLICT
    elif not responsible:
        status = NO_RESPONSIBLE
    else:
        status = OK
    return AreaCheck(area, status, accountable, responsible)


def check_matrix(areas: Iterable[str], cells: Mapping[str, Mapping[str, str]]) -> MatrixCheck:
    """Check every area in order; `cells` maps area → {party: letter}."""
    return MatrixCheck([check_area(a, cells.get(a, {})) for a in areas])
