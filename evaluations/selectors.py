"""Reads for evaluations: always scoped to the user's memberships (non-members get 404)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import F, Prefetch, QuerySet, prefetch_related_objects
from django.http import Http404
from django.utils.translation import gettext as _

from catalog.models import Scenario, ShortlistRule, Solution, SolutionType
from common.templatetags.lists import listing

from . import extensions
from .models import (
    AnswerValue,
    Candidate,
    CandidateStatus,
    ContextAnswer,
    ContextQuestion,
    Evaluation,
    FiveQuestion,
    QuestionAnswer,
)
from .rules import remember_member_role


def evaluations_for_user(user) -> QuerySet[Evaluation]:
    if not user.is_authenticated:
        return Evaluation.objects.none()
    return Evaluation.objects.filter(memberships__user=user)


def evaluation_get_for_user(user, pk, *, for_update: bool = False) -> Evaluation:
    """The evaluation if the user is a member; otherwise 404, as if it did not exist."""
    try:
        pk = int(pk)
    except (TypeError, ValueError):
        raise Http404 from None
    # The viewer's role comes with the membership check (the same join): permissions and kept
    # pages (pagecache) read it without a query of their own.
    qs = evaluations_for_user(user).annotate(viewer_role=F("memberships__role"))
    if for_update:
        qs = qs.select_for_update(of=("self",))
    evaluation = qs.filter(pk=pk).first()
    if evaluation is None:
        raise Http404
    remember_member_role(user, evaluation, evaluation.viewer_role)
    return evaluation


def candidate_get(evaluation: Evaluation, pk) -> Candidate:
    try:
        return evaluation.candidates.select_related("solution__solution_type").get(pk=int(pk))
    except (Candidate.DoesNotExist, TypeError, ValueError):
        raise Http404 from None


def answers_prefetch() -> Prefetch:
    """A candidate's answers to the five questions, each with its question."""
    return Prefetch("answers", queryset=QuestionAnswer.objects.select_related("question"))


def evaluation_queryset_full(
    qs: QuerySet[Evaluation], *, light: bool = False
) -> QuerySet[Evaluation]:
    """Everything the overview, progress and reminders read, in a fixed number of queries.
    `light` leaves out what only reminders read (the other apps' lookups)."""
    more = extensions.lookups()  # what the contributed reminders read
    candidates = Candidate.objects.select_related("solution__solution_type")
    if light:
        candidates = candidates.prefetch_related(answers_prefetch())
    else:
        candidates = candidates.select_related(*more.candidate_selects).prefetch_related(
            answers_prefetch(), "rules", *more.candidate_prefetches
        )
    return qs.prefetch_related(
        "scenarios",
        Prefetch("candidates", queryset=candidates),
        Prefetch("context_answers", queryset=ContextAnswer.objects.select_related("question")),
        Prefetch(
            "decision__chosen",
            queryset=Candidate.objects.select_related("solution__solution_type"),
        ),
        *(() if light else more.evaluation_prefetches),
    ).select_related("created_by", "decision", *(() if light else more.evaluation_selects))


@dataclass
class CandidateProgress:
    candidate: Candidate
    answered: int
    total: int
    missing: list[tuple[FiveQuestion, list[str]]] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.answered == self.total


@dataclass
class EvaluationData:
    """One evaluation with its related rows loaded; reminders and pages read only this."""

    evaluation: Evaluation
    questions: list[FiveQuestion]
    # Reference data shared by every evaluation of one page (e.g. the area library), loaded
    # once by whichever reminder needs it first.
    shared: dict = field(default_factory=dict)
    # Who is reading: reminders built from data blind scoring hides (POC scores) count only
    # what this user may see. None reads everything (services, reports' own checks).
    viewer: object = None
    # The evaluations loaded together with this one (a list page), so that facts are read for
    # all of them at once; and the facts read so far, by loader.
    batch: list = field(default_factory=list, repr=False, compare=False)
    loaded: dict = field(default_factory=dict, repr=False, compare=False)

    def facts(self, loader):
        """What `loader` reads for this evaluation: aggregates about rows that grow with the
        evaluation (scores, matrix cells). The first call runs `loader(batch)` once for every
        evaluation loaded with this one, so a page costs a fixed number of queries whatever
        the number or size of its evaluations; `loader` returns {evaluation id: facts}."""
        if loader not in self.loaded:
            batch = self.batch or [self]
            found = loader(batch)
            for data in batch:
                data.loaded[loader] = found.get(data.evaluation.pk)
        return self.loaded[loader]

    @property
    def candidates(self) -> list[Candidate]:
        return list(self.evaluation.candidates.all())

    @property
    def shortlisted(self) -> list[Candidate]:
        return [c for c in self.candidates if c.status == CandidateStatus.SHORTLISTED]

    @property
    def eliminated(self) -> list[Candidate]:
        return [c for c in self.candidates if c.status == CandidateStatus.ELIMINATED]

    @property
    def context(self) -> dict[str, ContextAnswer]:
        return {a.question.key: a for a in self.evaluation.context_answers.all()}

    def fact(self, key: str) -> bool:
        answer = self.context.get(key)
        return bool(answer and answer.value == AnswerValue.YES)

    @property
    def decision(self):
        try:
            return self.evaluation.decision
        except Evaluation.decision.RelatedObjectDoesNotExist:
            return None

    def answer(self, candidate: Candidate, question_key: str) -> QuestionAnswer | None:
        for answer in candidate.answers.all():
            if answer.question.key == question_key:
                return answer
        return None

    def progress(self) -> list[CandidateProgress]:
        rows = []
        for candidate in self.shortlisted:
            by_question = {a.question_id: a for a in candidate.answers.all()}
            missing = []
            for question in self.questions:
                answer = by_question.get(question.pk)
                parts = answer.missing_parts() if answer else ["*"]
                if parts:
                    missing.append((question, parts))
            total = len(self.questions)
            rows.append(CandidateProgress(candidate, total - len(missing), total, missing))
        return rows

    def progress_totals(self) -> tuple[int, int]:
        rows = self.progress()
        return sum(r.answered for r in rows), sum(r.total for r in rows)

    def types(self) -> list[tuple[SolutionType, list[Candidate]]]:
        """The type/boundary table: each type present among shortlisted candidates."""
        by_type: dict[int, tuple[SolutionType, list[Candidate]]] = {}
        for c in self.shortlisted:
            t = c.solution.solution_type
            by_type.setdefault(t.pk, (t, []))[1].append(c)
        return sorted(by_type.values(), key=lambda item: (item[0].order, item[0].pk))


def active_five_questions() -> list[FiveQuestion]:
    return list(FiveQuestion.objects.filter(is_active=True))


def active_context_questions() -> list[ContextQuestion]:
    return list(ContextQuestion.objects.filter(is_active=True))


def evaluation_data(
    evaluation: Evaluation, questions=None, *, viewer=None, light: bool = False
) -> EvaluationData:
    """The evaluation's data (`light`: enough for progress, types and the decision, not for
    reminders)."""
    qs = Evaluation.objects.filter(pk=evaluation.pk)
    full = evaluation_queryset_full(qs, light=light).get()
    full.__dict__["_member_roles"] = evaluation.__dict__.get("_member_roles", {})
    questions = questions if questions is not None else active_five_questions()
    data = EvaluationData(full, questions, viewer=viewer)
    data.batch = [data]
    return data


def evaluation_data_many(evaluations, *, viewer=None) -> list[EvaluationData]:
    """EvaluationData for already-loaded evaluations (from evaluation_queryset_full) that share
    the question list and reference data, so a page of them costs a fixed number of queries."""
    questions = active_five_questions()
    shared: dict = {}
    batch: list[EvaluationData] = []
    batch.extend(EvaluationData(e, questions, shared, viewer, batch) for e in evaluations)
    return batch


class FitLevel:
    """How a solution stands against the evaluation's scenarios (SPEC §1.1: scenario first)."""

    FITS = "fits"  # the catalog lists it for every scenario of the evaluation
    PARTIAL = "partial"  # for some of them
    OFF = "off"  # for none: off-scenario

    ORDER = {FITS: 0, PARTIAL: 1, OFF: 2}


@dataclass(frozen=True)
class ScenarioFit:
    """A solution against the evaluation's scenarios, read from the catalog (`Solution.scenarios`).

    `fits` and `misses` split the evaluation's scenarios; `listed` is every scenario the catalog
    lists the solution for, the "why" an off-scenario solution is off."""

    solution: Solution  # or a stack candidate (its name; its layers' scenarios)
    fits: tuple[Scenario, ...]
    misses: tuple[Scenario, ...]
    listed: tuple[Scenario, ...]

    @property
    def level(self) -> str:
        if not self.fits:
            return FitLevel.OFF
        return FitLevel.PARTIAL if self.misses else FitLevel.FITS

    @property
    def on_scenario(self) -> bool:
        return bool(self.fits)

    @property
    def reason(self) -> str:
        """One sentence in the active language: what the catalog says, for this evaluation."""
        names = {"solution": self.solution.name}
        if self.level == FitLevel.FITS:
            return _("The catalog lists %(solution)s for %(fits)s.") % {
                **names,
                "fits": listing(self.fits),
            }
        if self.level == FitLevel.PARTIAL:
            return _("The catalog lists %(solution)s for %(fits)s, not for %(misses)s.") % {
                **names,
                "fits": listing(self.fits),
                "misses": listing(self.misses),
            }
        if self.listed:
            return _(
                "The catalog does not list %(solution)s for %(misses)s; it lists it for %(listed)s."
            ) % {**names, "misses": listing(self.misses), "listed": listing(self.listed)}
        return _("The catalog lists %(solution)s for no scenario.") % names


def scenario_fit(solution: Solution, scenarios, listed=None) -> ScenarioFit:
    """How `solution` fits the evaluation's `scenarios`. Reads `solution.scenarios.all()`
    unless `listed` is given: prefetch it (`solution__scenarios`) when fitting many solutions."""
    listed = solution.scenarios.all() if listed is None else listed
    listed = sorted(listed, key=lambda s: (s.order, s.pk))
    listed_pks = {s.pk for s in listed}
    wanted = sorted(scenarios, key=lambda s: (s.order, s.pk))
    return ScenarioFit(
        solution=solution,
        fits=tuple(s for s in wanted if s.pk in listed_pks),
        misses=tuple(s for s in wanted if s.pk not in listed_pks),
        listed=tuple(listed),
    )


def candidate_fits(data: EvaluationData) -> list[tuple[Candidate, ScenarioFit]]:
    """Every candidate of the evaluation with its scenario fit (one query for all of them)."""
    candidates = data.candidates
    prefetch_related_objects(candidates, "solution__scenarios")
    stacks = [c for c in candidates if c.is_stack]
    prefetch_related_objects(stacks, "layers__solution__scenarios")
    scenarios = list(data.evaluation.scenarios.all())
    return [(c, candidate_fit(c, scenarios)) for c in candidates]


def candidate_fit(candidate: Candidate, scenarios) -> ScenarioFit:
    """A single solution's fit; a stack fits the scenarios any of its layers is listed for."""
    layers = candidate.stack_layers
    if not layers:
        return scenario_fit(candidate.solution, scenarios)
    listed = {s.pk: s for layer in layers for s in layer.solution.scenarios.all()}
    return scenario_fit(candidate, scenarios, listed=listed.values())


@dataclass
class Suggestion:
    solution: Solution
    rules: list[ShortlistRule]
    already: Candidate | None = None
    fit: ScenarioFit | None = None
    # A type decision exists and this solution is of another type: still suggested and
    # addable, but only with a reason (services.candidates_accept_suggestions).
    outside_main_type: bool = False


def rule_solutions(rule, details: dict[str, str]) -> list:
    """The solutions `rule` suggests: all of them, or for a rule that picks by detail, those
    its facts' answer details name (the cloud a "which cloud?" answer names); when they name
    none, its solutions that have no aliases (the general entry)."""
    solutions = list(rule.solutions.all())
    if not rule.by_detail:
        return solutions
    text = " ".join(details.get(fact) or "" for fact in rule.facts)
    named = [s for s in solutions if s.alias_list() and s.named_in(text)]
    return named or [s for s in solutions if not s.alias_list()]


def shortlist_suggest(evaluation: Evaluation) -> list[Suggestion]:
    """Apply the catalog's shortlist rules to the context answers (SPEC §1.4).

    Each suggestion carries its fit with the evaluation's scenarios. Scenario comes first:
    solutions the catalog lists for every scenario of the evaluation come first, then those it
    lists for some, then off-scenario ones, which stay (a rule still suggests them) but are
    marked with the reason. Once a type is decided, suggestions of other types are marked
    `outside_main_type` (evaluations.types.suggestions_by_type groups them)."""
    details = dict(
        evaluation.context_answers.filter(value=AnswerValue.YES).values_list(
            "question__key", "detail"
        )
    )
    yes = set(details)
    existing = {c.solution_id: c for c in evaluation.candidates.filter(stack_name="")}
    scenarios = list(evaluation.scenarios.all())
    main_type = evaluation.main_type_id
    found: dict[int, Suggestion] = {}
    # The solutions of the rules that apply only (each rule's are its own instances).
    rules = [
        rule
        for rule in ShortlistRule.objects.filter(is_active=True)
        if rule.facts and set(rule.facts) <= yes
    ]
    prefetch_related_objects(
        rules,
        Prefetch(
            "solutions",
            queryset=Solution.objects.filter(is_active=True)
            .select_related("solution_type")
            .prefetch_related("scenarios"),
        ),
    )
    for rule in rules:
        for solution in rule_solutions(rule, details):
            suggestion = found.get(solution.pk)
            if suggestion is None:
                suggestion = found[solution.pk] = Suggestion(
                    solution,
                    [],
                    existing.get(solution.pk),
                    scenario_fit(solution, scenarios),
                    main_type is not None and solution.solution_type_id != main_type,
                )
            suggestion.rules.append(rule)
    return sorted(
        found.values(),
        key=lambda s: (
            FitLevel.ORDER[s.fit.level],
            s.solution.solution_type.order,
            s.solution.name,
        ),
    )
