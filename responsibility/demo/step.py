"""responsibility's demo step, as the owner: the cost settings, every candidate's starting
matrix and costs (the cloud one's too: it is priced, then ruled out), the five questions'
answers, which name the responsibility parties, and the matrix edits after the prefill."""

from __future__ import annotations

from common.demo import DemoState, exact
from evaluations import services as evaluation_services
from evaluations.demo import demo_key, demo_owner
from evaluations.models import Assessment, BudgetFocus, FiveQuestion
from responsibility import services as responsibility_services
from responsibility.models import Area, Party

from . import FILES


def load(state: DemoState) -> None:
    data, t = FILES.data, FILES.texts(state.language)
    lead = demo_owner(state)

    # Costs and the starting matrix for every candidate, the cloud one included: it was priced
    # before being ruled out.
    settings = data["cost_settings"]
    responsibility_services.cost_settings_save(
        user=lead,
        evaluation=state.evaluation,
        expected_version=0,
        **{**settings, "fte_cost_per_year": exact(settings["fte_cost_per_year"])},
    )
    for candidate in [*state.shortlisted, state.cloud]:
        responsibility_services.matrix_prefill(user=lead, candidate=candidate)
        responsibility_services.cost_input_save(
            user=lead,
            candidate=candidate,
            expected_version=0,
            **{k: exact(v) for k, v in data["costs"][demo_key(candidate)].items()},
        )
    state.cloud = evaluation_services.candidate_eliminate(
        user=lead,
        candidate=state.cloud,
        reason=t["cloud"]["elimination"],
        expected_version=state.cloud.version,
    )

    answer(state, lead, t)
    edit_matrices(state, lead, t)


def answer(state: DemoState, lead, t: dict) -> None:
    """Every shortlisted candidate's answer to every five question."""
    answers, fallback = FILES.data["answers"], FILES.data["answer_fallback"]
    explanations = t["answers"]
    for question in FiveQuestion.objects.filter(is_active=True):
        for candidate in state.shortlisted:
            k = demo_key(candidate)
            given = answers[k].get(question.key, fallback)
            who, value = given["who"], given["answer"]
            evaluation_services.answer_save(
                user=lead,
                candidate=candidate,
                question=question,
                parties=[who] if isinstance(who, str) else list(who),
                assessment=value if value in Assessment.values else Assessment.UNKNOWN,
                budget=value if value in BudgetFocus.values else BudgetFocus.UNKNOWN,
                explanation=explanations[k].get(question.key, t["answer_fallback"]),
                evidence_url=given.get("evidence", ""),
                expected_version=0,
            )


def edit_matrices(state: DemoState, lead, t: dict) -> None:
    """The rows and cells the demo changes after the prefill."""
    parties = {p.key: p for p in Party.objects.filter(evaluation=None)}
    areas = {a.key: a for a in Area.objects.filter(is_active=True)}
    notes = t["matrix_notes"]
    for edit in FILES.data["matrix_edits"]:
        slug, area_key = edit["candidate"], edit["area"]
        candidate, area = state.candidates.get(slug), areas.get(area_key)
        if candidate is None or area is None:
            continue
        if "cell" in edit:
            responsibility_services.cell_set(
                user=lead,
                candidate=candidate,
                area=area,
                party=parties[edit["cell"]["party"]],
                letter=edit["cell"]["letter"],
                expected_version=None,
            )
            continue
        row = edit["row"]
        letters = row.get("letters")
        responsibility_services.row_update(
            user=lead,
            candidate=candidate,
            area=area,
            expected_version=None,
            letters=({parties[k]: v for k, v in letters.items()} if letters is not None else None),
            note=notes.get(slug, {}).get(area_key),
            internal_fte=row.get("internal_fte"),
        )


def missing() -> list[str]:
    """The responsibility areas the matrices are made of, when they are not seeded."""
    return [] if Area.objects.exists() else ["responsibility areas"]
