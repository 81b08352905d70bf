"""The blind scorecard: the grid of plan cases × shortlisted candidates as one member may see
it, with its totals and counts, in a fixed number of queries; and the reads that follow the same
blindness (my drafts, the cells hidden from me, the evidence I may download).

Blind scoring: a reviewer or editor sees other people's scores for a cell only after
submitting their own for that cell; the owner (who arbitrates) and viewers see all submitted
scores, and so does every member once the evaluation is sealed (nobody can score then). Drafts
are never shown to anyone but their author.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import NamedTuple

from django.contrib.auth import get_user_model
from django.db.models import BooleanField, Exists, ExpressionWrapper, OuterRef, Q
from django.http import Http404

from evaluations.models import Candidate, CandidateStatus, Evaluation

from .. import conflicts, scoring
from ..models import Consensus, Evidence, PlanCase, PlanGroup, Score
from .plans import plan_groups


@dataclass
class Cell:
    case: PlanCase
    candidate: Candidate
    mine: Score | None
    visible: list[Score]  # other people's submitted scores the viewer may see
    hidden_count: int  # other people's submitted scores the viewer may not see yet
    submitted_count: int
    consensus: Consensus | None
    value: Decimal | None  # what counts: consensus, else mean of submitted scores
    disagreement: bool
    # Files behind my score, and behind the scores in `visible` (never behind a hidden one).
    my_evidence: list[Evidence] = field(default_factory=list)
    their_evidence: list[Evidence] = field(default_factory=list)

    @property
    def missing(self) -> bool:
        return self.value is None

    @property
    def can_see_others(self) -> bool:
        return self.hidden_count == 0

    @property
    def open_disagreement(self) -> bool:
        return self.disagreement and self.consensus is None and self.can_see_others


@dataclass
class Row:
    case: PlanCase
    cells: list[Cell]


@dataclass
class GroupBlock:
    """One group of the plan. `rows` are built only for the groups a scorecard shows (`shown`);
    the counts cover every cell of the group either way, as the viewer may see them."""

    plan_group: PlanGroup
    rows: list[Row] = field(default_factory=list)
    shown: bool = True
    cases: int = 0
    cells: int = 0
    missing: int = 0  # cells without a value the viewer may see
    open_disagreements: int = 0
    # The viewer's work left here: cells they may score and have not submitted, and (for the
    # owner) disagreements to settle. Counted only by scorecard(group=...): 0 otherwise.
    to_score: int = 0
    to_settle: int = 0

    @property
    def key(self) -> str:
        return self.plan_group.group.key

    @property
    def work(self) -> int:
        return self.to_score + self.to_settle


@dataclass
class Scorecard:
    evaluation: Evaluation
    candidates: list[Candidate]
    groups: list[GroupBlock]
    plan: scoring.Plan
    cell_values: dict[tuple[str, str], Decimal | None]  # what totals count, as the viewer may
    reviewer_scores: dict[tuple[str, str], list[Decimal]]
    hidden_cells: int = 0  # cells left out of the totals until the viewer submits their own
    # Candidates waiting for the viewer's conflict-of-interest declaration (scorecard(group=...)).
    waiting: list[Candidate] = field(default_factory=list)
    # Every case of the plan, in order, and the (case pk, candidate pk) of the hidden cells,
    # whichever rows were built.
    all_cases: list[PlanCase] = field(default_factory=list)
    hidden_keys: set[tuple[int, int]] = field(default_factory=set)
    # Per visible cell without a consensus: reviewer pk → submitted score (the bootstrap
    # resamples reviewers from these).
    reviewer_marks: dict[tuple[str, str], dict[str, Decimal]] = field(default_factory=dict)

    @property
    def cases(self) -> list[PlanCase]:
        """The cases of the rows built (every case unless the scorecard shows one group)."""
        return [r.case for g in self.groups for r in g.rows]

    def cells(self):
        """The cells of the rows built (every cell unless the scorecard shows one group)."""
        return [c for g in self.groups for r in g.rows for c in r.cells]

    @property
    def shown(self) -> GroupBlock | None:
        """The group shown when the scorecard shows one (the first with rows otherwise)."""
        return next((g for g in self.groups if g.shown), None)

    @property
    def open_disagreements(self) -> list[Cell]:
        return [c for c in self.cells() if c.open_disagreement]

    @property
    def missing_cells(self) -> list[Cell]:
        return [c for c in self.cells() if c.missing]

    @property
    def open_disagreement_count(self) -> int:
        """Over every cell, whichever rows were built."""
        return sum(g.open_disagreements for g in self.groups)

    @property
    def missing_count(self) -> int:
        """Over every cell, whichever rows were built."""
        return sum(g.missing for g in self.groups)

    def overall(self, candidate: Candidate, group_weights=None) -> scoring.Overall:
        return scoring.overall(self.plan, self.cell_values, str(candidate.pk), group_weights)

    def group_totals(self, candidate: Candidate) -> dict[str, scoring.GroupTotal]:
        return scoring.group_totals(self.plan, self.cell_values, str(candidate.pk))


class _Mark(NamedTuple):
    """What the totals and counts read of a score: the scorecard builds Score rows only for
    the cells it shows, and these for the rest."""

    case_id: int
    candidate_id: int
    reviewer_id: int
    score: Decimal | None
    submitted: bool


def _cell(case, candidate, scores, agreed, me, see_all) -> tuple[Cell, list[Decimal], bool]:
    """The cell as the user whose pk is `me` may see it, the submitted scores it counts and
    whether it is hidden.

    What the viewer may see of a cell is decided here, once, for the shown cells and the counts
    alike: for a hidden cell nothing derived from the others' scores (value, disagreement,
    consensus) leaves."""
    mine, submitted, others = None, [], []
    for s in scores:  # one pass: this runs for every cell of the plan
        if s.reviewer_id == me:
            mine = s
        if s.submitted and s.score is not None:
            submitted.append(s)
            if s.reviewer_id != me:
                others.append(s)
    may_see = see_all or (mine is not None and mine.submitted)
    values = [s.score for s in submitted]
    value = scoring.cell_value(values, agreed.score if agreed else None)
    hidden = not may_see and bool(others)
    cell = Cell(
        case=case,
        candidate=candidate,
        mine=mine,
        visible=others if may_see else [],
        hidden_count=0 if may_see else len(others),
        submitted_count=len(submitted),
        consensus=None if hidden else agreed,
        value=None if hidden else value,
        disagreement=not hidden and scoring.disagreement(values),
    )
    return cell, values, hidden


def scorecard(
    evaluation: Evaluation,
    user,
    *,
    see_all: bool | None = None,
    group: str | None = None,
    rows: bool = True,
) -> Scorecard:
    """The grid of cases × shortlisted candidates as `user` may see it.

    Totals, agreement, blindness and the counts of every `GroupBlock` always cover every cell.
    Rows (cells with their scores, reviewers and evidence) are built for every group by
    default; `group` builds those of one group only, the way the scorecard page shows them: a
    test group's key, or "" (or a key the plan does not have) for the first group with work
    left for `user` (`GroupBlock.work`), else the first group. With `group` the candidates also
    carry the user's conflict-of-interest marks (`conflicts.mark_candidates`; those waiting for
    a declaration are `Scorecard.waiting`), which keep a blocked candidate's cells out of the
    work left. `rows=False` builds no rows: what the results need."""
    me = user.pk  # read once: `user` is often a request's lazy object, read per cell below
    if see_all is None:
        see_all = user.has_perm("poc.see_all_scores", evaluation)
    one_group = group is not None and rows
    groups = plan_groups(evaluation)
    cases = list(
        evaluation.poc_cases.select_related("group", "source_case").order_by(
            "group__order", "order", "pk"
        )
    )
    candidates = list(
        Candidate.objects.filter(
            evaluation=evaluation, status=CandidateStatus.SHORTLISTED
        ).select_related("solution__solution_type")
    )
    candidate_ids = [c.pk for c in candidates]
    scores = Score.objects.filter(case__evaluation=evaluation, candidate__in=candidate_ids)
    scores = scores.order_by("submitted_at", "pk")
    by_cell: dict[tuple[int, int], list] = {}
    if rows and not one_group:
        scores = scores.select_related("reviewer").prefetch_related("evidence")
    else:
        submitted = ExpressionWrapper(Q(submitted_at__isnull=False), BooleanField())
        scores = map(_Mark._make, scores.values_list(*_Mark._fields[:-1], submitted))
    for s in scores:
        by_cell.setdefault((s.case_id, s.candidate_id), []).append(s)
    consensus = {
        (c.case_id, c.candidate_id): c
        for c in Consensus.objects.filter(case__evaluation=evaluation).select_related("decided_by")
    }
    waiting: list[Candidate] = []
    may_score = may_settle = False
    if one_group:
        waiting = conflicts.mark_candidates(candidates, evaluation, user)
        may_score = user.has_perm("poc.score", evaluation)
        may_settle = user.has_perm("poc.record_consensus", evaluation)
    blocks = {g.group_id: GroupBlock(g, shown=rows and not one_group) for g in groups}
    cell_values: dict[tuple[str, str], Decimal | None] = {}
    reviewer_scores: dict[tuple[str, str], list[Decimal]] = {}
    reviewer_marks: dict[tuple[str, str], dict[str, Decimal]] = {}
    hidden_keys: set[tuple[int, int]] = set()
    for case in cases:
        block = blocks.get(case.group_id)
        if block is None:
            continue
        row = Row(case, [])
        for candidate in candidates:
            agreed = consensus.get((case.pk, candidate.pk))
            marks = by_cell.get((case.pk, candidate.pk), [])
            cell, values, hidden = _cell(case, candidate, marks, agreed, me, see_all)
            key = (str(case.pk), str(candidate.pk))
            if values and not hidden and agreed is None:
                reviewer_marks[key] = {
                    str(m.reviewer_id): m.score
                    for m in marks
                    if m.submitted and m.score is not None
                }
            # Blind totals too: a cell whose scores I may not see yet counts as missing in the
            # totals, agreement and robustness I am shown, or they would give the scores away.
            cell_values[key] = cell.value
            reviewer_scores[key] = [] if hidden else values
            if hidden:
                hidden_keys.add((case.pk, candidate.pk))
            block.cells += 1
            block.missing += cell.missing
            block.open_disagreements += cell.open_disagreement
            block.to_settle += may_settle and cell.open_disagreement
            block.to_score += (
                may_score
                and not getattr(candidate, "scoring_block", "")
                and not (cell.mine is not None and cell.mine.submitted)
            )
            if block.shown:
                cell.my_evidence = list(cell.mine.evidence.all()) if cell.mine else []
                cell.their_evidence = [e for s in cell.visible for e in s.evidence.all()]
                row.cells.append(cell)
        block.cases += 1
        if block.shown:
            block.rows.append(row)
    if one_group:
        shown = next((b for b in blocks.values() if b.key == group), None)
        if shown is None:
            shown = next((b for b in blocks.values() if b.work), None)
        if shown is None:
            shown = next(iter(blocks.values()), None)
        if shown is not None:
            _build_rows(shown, cases, candidates, consensus, evaluation, user, see_all)
    plan = scoring.Plan(
        groups=[g.group.key for g in groups],
        group_weights={g.group.key: g.weight for g in groups},
        cases=[
            scoring.Case(str(c.pk), c.group.key, c.weight) for c in cases if c.group_id in blocks
        ],
    )
    return Scorecard(
        evaluation,
        candidates,
        list(blocks.values()),
        plan,
        cell_values,
        reviewer_scores,
        len(hidden_keys),
        waiting,
        [c for c in cases if c.group_id in blocks],
        hidden_keys,
        reviewer_marks,
    )


def _build_rows(block, cases, candidates, consensus, evaluation, user, see_all) -> None:
    """The rows of one group, from its Score rows (with their reviewers) and, in one query,
    the evidence behind them."""
    group_id, me = block.plan_group.group_id, user.pk
    scores = _with_reviewers(
        Score.objects.filter(
            case__evaluation=evaluation, case__group_id=group_id, candidate__in=candidates
        )
    )
    files = _evidence_by_score(
        Evidence.objects.filter(score__case__evaluation=evaluation, score__case__group_id=group_id)
    )
    by_cell: dict[tuple[int, int], list[Score]] = {}
    for s in scores:
        by_cell.setdefault((s.case_id, s.candidate_id), []).append(s)
    block.shown = True
    for case in cases:
        if case.group_id != group_id:
            continue
        row = Row(case, [])
        for candidate in candidates:
            cell, _values, _hidden = _cell(
                case,
                candidate,
                by_cell.get((case.pk, candidate.pk), []),
                consensus.get((case.pk, candidate.pk)),
                me,
                see_all,
            )
            cell.my_evidence = files.get(cell.mine.pk, []) if cell.mine else []
            cell.their_evidence = [e for s in cell.visible for e in files.get(s.pk, [])]
            row.cells.append(cell)
        block.rows.append(row)


def scorecard_cell(evaluation: Evaluation, user, case: PlanCase, candidate: Candidate) -> Cell:
    """One cell as `user` sees it on the scorecard (the same blind rule and conflict marks),
    read from that cell's rows alone: what the answer to a save shows, without the grid."""
    conflicts.mark_candidates([candidate], evaluation, user)
    scores = _with_reviewers(Score.objects.filter(case=case, candidate=candidate))
    agreed = Consensus.objects.filter(case=case, candidate=candidate)
    agreed = agreed.select_related("decided_by").first()
    see_all = user.has_perm("poc.see_all_scores", evaluation)
    cell, _values, _hidden = _cell(case, candidate, scores, agreed, user.pk, see_all)
    files = _evidence_by_score(Evidence.objects.filter(score__in=[s.pk for s in scores]))
    cell.my_evidence = files.get(cell.mine.pk, []) if cell.mine else []
    cell.their_evidence = [e for s in cell.visible for e in files.get(s.pk, [])]
    return cell


def _with_reviewers(scores) -> list[Score]:
    """The scores in the order cells read them, each with its reviewer: the few reviewers are
    read once each, not joined to every score, and only what a cell shows of them (a name)."""
    scores = list(scores.order_by("submitted_at", "pk"))
    reviewers = get_user_model().objects.filter(pk__in={s.reviewer_id for s in scores})
    reviewers = reviewers.only("pk", "username", "first_name", "last_name").in_bulk()
    for s in scores:
        s.reviewer = reviewers[s.reviewer_id]
    return scores


def _evidence_by_score(evidence) -> dict[int, list[Evidence]]:
    files: dict[int, list[Evidence]] = {}
    for item in evidence:
        files.setdefault(item.score_id, []).append(item)
    return files


def draft_count(evaluation: Evaluation, user, candidate: Candidate | None = None) -> int:
    """How many of my draft scores (with a value) submitting would make final: what
    services.scores_submit submits."""
    drafts = Score.objects.filter(
        case__evaluation=evaluation, reviewer=user, submitted_at=None, score__isnull=False
    )
    return drafts.filter(candidate=candidate).count() if candidate else drafts.count()


def hidden_cell_count(evaluation: Evaluation, user) -> int:
    """Cells of the scorecard hidden from `user` (others submitted, they have not), in one
    query: what `scorecard(evaluation, user).hidden_cells` counts, without building it."""
    if user.has_perm("poc.see_all_scores", evaluation):
        return 0
    mine = Score.objects.filter(
        case=OuterRef("case"),
        candidate=OuterRef("candidate"),
        reviewer=user,
        submitted_at__isnull=False,
    )
    return (
        Score.objects.filter(
            case__evaluation=evaluation,
            candidate__status=CandidateStatus.SHORTLISTED,
            submitted_at__isnull=False,
            score__isnull=False,
        )
        .exclude(reviewer=user)
        .exclude(Exists(mine))
        .values("case", "candidate")
        .distinct()
        .count()
    )


def evidence_for_download(evaluation: Evaluation, user, evidence_id) -> Evidence:
    """An evidence file `user` may download, for pages and API alike.

    Blind scoring covers evidence too: my own files, or files behind a score the scorecard shows
    me. Everything else is 404 alike, a submitted score hidden from me as much as someone's
    draft, so the answer never tells whether a file (or a score) exists."""
    evidence = (
        Evidence.objects.select_related("score__case__group")
        .filter(pk=evidence_id, score__case__evaluation=evaluation)
        .first()
    )
    if evidence is None:
        raise Http404
    score = evidence.score
    if score.reviewer_id == user.pk:
        return evidence
    cell = next(
        (
            c
            for c in scorecard(evaluation, user, group=score.case.group.key).cells()
            if c.case.pk == score.case_id and c.candidate.pk == score.candidate_id
        ),
        None,
    )
    if cell is None or score.pk not in {other.pk for other in cell.visible}:
        raise Http404  # a draft, a score hidden by blind scoring, or a cell no longer shown
    return evidence
