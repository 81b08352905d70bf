"""Reads of support terms: the comparison every page, API answer, sheet and report part uses
(candidates side by side, term by term, the best value of a row marked where better is
unambiguous), at two queries whatever the number of candidates."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from evaluations.models import Candidate, CandidateStatus

from .models import SupportTerm
from .terms import TERMS, Term, best


@dataclass
class Cell:
    candidate: Candidate
    row: SupportTerm | None
    best: bool = False

    @property
    def amount(self) -> Decimal | None:
        return self.row.amount if self.row else None


@dataclass
class Line:
    term: Term
    cells: list[Cell]

    @property
    def marked(self) -> bool:
        return any(c.best for c in self.cells)


@dataclass
class Comparison:
    candidates: list[Candidate]
    lines: list[Line]
    # candidate pk -> its terms by key
    by_candidate: dict[int, dict[str, SupportTerm]] = field(default_factory=dict)

    def missing(self, candidate: Candidate) -> list[Term]:
        saved = self.by_candidate.get(candidate.pk, {})
        return [t for t in TERMS if t.key not in saved]


def comparison(evaluation) -> Comparison:
    """The shortlisted candidates' terms side by side."""
    candidates = list(
        evaluation.candidates.filter(status=CandidateStatus.SHORTLISTED).select_related(
            "solution__solution_type"
        )
    )
    rows = SupportTerm.objects.filter(candidate__in=[c.pk for c in candidates])
    by_candidate: dict[int, dict[str, SupportTerm]] = {}
    for row in rows:
        by_candidate.setdefault(row.candidate_id, {})[row.term] = row
    lines = []
    for term in TERMS:
        cells = [Cell(c, by_candidate.get(c.pk, {}).get(term.key)) for c in candidates]
        top = best(term, [c.amount for c in cells]) if term.is_number else None
        if top is not None:
            for c in cells:
                c.best = c.amount == top
        lines.append(Line(term, cells))
    return Comparison(candidates, lines, by_candidate)


def term_get(candidate: Candidate, key: str) -> SupportTerm | None:
    return SupportTerm.objects.filter(candidate=candidate, term=key).first()
