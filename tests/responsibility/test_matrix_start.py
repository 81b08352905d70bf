"""A new candidate's matrix starts from the usual split for its type (docs/method.md,
"Responsibility matrices"), so its people cost counts from the first day instead of reading 0
until someone fills the grid by hand."""

import pytest
from django.urls import reverse
from django.utils import translation

from evaluations.models import ContextQuestion
from evaluations.services import candidates_accept_suggestions, context_answer_save
from responsibility.models import Area
from responsibility.selectors import evaluation_matrices
from tests.factories import add_candidates, compose_stack

pytestmark = [pytest.mark.django_db, pytest.mark.matrix_start]


def matrices(evaluation):
    return {m.candidate.pk: m for m in evaluation_matrices(evaluation)}


def test_a_candidate_added_by_hand_starts_from_its_types_split(evaluation, owner):
    slurm, runai = add_candidates(evaluation, owner, "slurm", "runai")
    single = Area.objects.filter(is_active=True, stack_only=False).count()
    for candidate in (slurm, runai):
        assert candidate.area_rows.count() == single
        m = matrices(evaluation)[candidate.pk]
        assert m.started and m.result.coverage > 0 and m.fte_total > 0
    accountable = {r.area.key: r.check.accountable for r in matrices(evaluation)[runai.pk].rows}
    assert accountable["upgrade_cadence"] == ("vendor",)


def test_a_stack_starts_with_the_areas_between_its_layers(evaluation, owner):
    stack = compose_stack(
        evaluation, owner, "Volcano + Run:ai", "governance", execution="volcano", governance="runai"
    )
    # Volcano and Run:ai both claim queues, quotas and RBAC natively (not tenancy: Volcano's is
    # partial; nor GPU monitoring: Volcano's needs an add-on), so two "which layer owns" areas.
    not_duplicated = {"layer_owner_tenancy", "layer_owner_monitoring"}
    areas = set(Area.objects.filter(is_active=True).values_list("key", flat=True))
    assert set(stack.area_rows.values_list("area__key", flat=True)) == areas - not_duplicated
    assert matrices(evaluation)[stack.pk].fte_total > 0


def test_suggested_candidates_start_filled_too(evaluation, owner):
    context_answer_save(
        user=owner,
        evaluation=evaluation,
        question=ContextQuestion.objects.get(key="hpc_batch_queues"),
        value="yes",
        expected_version=None,
    )
    added = candidates_accept_suggestions(user=owner, evaluation=evaluation)
    assert added and all(c.area_rows.exists() for c in added)


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_start_button_names_the_type_without_an_article(client, evaluation, owner, language):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    slurm.area_rows.all().delete()  # a matrix from before candidates started filled
    client.force_login(owner)
    client.post(reverse("set_language"), {"language": language, "next": "/"})
    with translation.override("en"):
        body = client.get(
            reverse("responsibility:matrix", args=[evaluation.pk, slurm.pk])
        ).content.decode()
    button = body.split('data-testid="prefill">', 1)[1].split("</button>")[0]
    assert " a Open" not in button and " a open" not in button
    name = slurm.solution.solution_type.name_zh_hans if language != "en" else None
    assert (name or slurm.solution.solution_type.name_en) in button
