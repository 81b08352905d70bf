"""RACI checks on plain values (no Django): who is accountable and responsible for each area.

Every area needs exactly one A (accountable) and at least one R (responsible). A cell holds one
value: R, A, AR (accountable and responsible: the party owns the outcome and does the work),
C (consulted) or I (informed). AR counts as an A and as an R.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

LETTERS = ("R", "A", "AR", "C", "I")
# Other spellings of the combined value that people type; they are stored as "AR".
ALIASES = {"RA": "AR", "A+R": "AR", "R+A": "AR", "A/R": "AR", "R/A": "AR"}

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


def canonical(value: str | None) -> str | None:
    """The stored form of a typed cell value ("" clears the cell), or None if it is not one of
    R, A, AR, C or I (case and spaces do not matter; RA and A+R mean AR)."""
    value = "".join((value or "").split()).upper()
    value = ALIASES.get(value, value)
    return value if value == "" or value in LETTERS else None


def is_accountable(value: str | None) -> bool:
    return value in ("A", "AR")


def is_responsible(value: str | None) -> bool:
    return value in ("R", "AR")


def press(value: str | None, key: str) -> str:
    """What a grid cell holds after a key press (static/js/grid.js does the same): R on an A
    cell (or A on an R cell) makes AR; a letter the cell already has is removed (AR + R → A,
    R + R → empty); C or I replaces the value; Delete, Backspace or Space clears the cell.
    Any other key leaves the value as it was."""
    value = value or ""
    if key in ("Delete", "Backspace", " "):
        return ""
    key = key.upper()
    if key in ("C", "I"):
        return "" if value == key else key
    if key not in ("A", "R"):
        return value
    held = set(value) if value in ("A", "R", "AR") else set()
    held ^= {key}  # toggle the letter pressed
    return {frozenset(): "", frozenset("A"): "A", frozenset("R"): "R"}.get(frozenset(held), "AR")


def check_area(area: str, letters: Mapping[str, str]) -> AreaCheck:
    """`letters` maps party key → value for one area (parties without a value are absent)."""
    accountable = tuple(sorted(p for p, value in letters.items() if is_accountable(value)))
    responsible = tuple(sorted(p for p, value in letters.items() if is_responsible(value)))
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
