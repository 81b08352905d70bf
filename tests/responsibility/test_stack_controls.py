"""A stack whose layers duplicate a control gets a matrix area "which layer owns …" for it, and
its reminder stays open until that row names an accountable party and records the decision in
its note; a stack of different types is hybrid for the areas across resource sources."""

import pytest
from django.urls import reverse

from responsibility import services
from responsibility.models import CONTROL_AREAS, Area, AreaRow, Party
from responsibility.selectors import evaluation_matrices
from tests.factories import add_candidates
from tests.stack_layers import NO_DUPLICATES, THREE_QUOTAS, compose, reminders

pytestmark = [pytest.mark.django_db, pytest.mark.matrix_start]


def area_keys(candidate):
    return set(AreaRow.objects.filter(candidate=candidate).values_list("area__key", flat=True))


def test_only_the_duplicated_controls_get_a_which_layer_owns_area(evaluation, owner):
    stack = compose(evaluation, owner, THREE_QUOTAS)
    plain = compose(evaluation, owner, NO_DUPLICATES, main="batch_queue", name="Operator + Kueue")
    (single,) = add_candidates(evaluation, owner, "runai")
    # The matrix starts when the candidate is added: the stack's has the areas it duplicates.
    assert area_keys(stack) & set(CONTROL_AREAS) == {
        "layer_owner_quota",
        "layer_owner_tenancy",
        "layer_owner_rbac",
    }
    assert not area_keys(plain) & set(CONTROL_AREAS)
    assert not area_keys(single) & set(CONTROL_AREAS)
    matrices = {m.candidate.pk: m for m in evaluation_matrices(evaluation)}
    shown = {r.area.key for r in matrices[stack.pk].rows}
    assert "layer_owner_quota" in shown and "layer_owner_monitoring" not in shown
    assert not {r.area.key for r in matrices[plain.pk].rows} & set(CONTROL_AREAS)
    # The starting point: the internal team decides which layer owns it, at no extra effort.
    row = AreaRow.objects.get(candidate=stack, area__key="layer_owner_quota")
    assert {c.party.key: c.letter for c in row.cells.all()} == {
        "internal": "AR",
        "vendor": "C",
        "business": "I",
    }
    assert row.internal_fte == 0


def test_an_area_for_a_control_the_stack_does_not_duplicate_is_refused(evaluation, owner, client):
    from rest_framework.test import APIClient

    stack = compose(evaluation, owner, THREE_QUOTAS)
    api = APIClient()
    api.force_authenticate(owner)
    base = f"/api/evaluations/{evaluation.pk}/matrices/{stack.pk}/rows/"
    assert api.get(base + "layer_owner_quota/").status_code == 200
    assert api.get(base + "layer_owner_monitoring/").status_code == 404
    with pytest.raises(Exception) as refused:
        services.row_update(
            user=owner,
            candidate=stack,
            area=Area.objects.get(key="layer_owner_monitoring"),
            expected_version=None,
            note="DCGM",
        )
    assert "duplicate this control" in str(refused.value)
    client.force_login(owner)
    page = client.get(reverse("responsibility:matrix", args=[evaluation.pk, stack.pk]))
    body = page.content.decode()
    assert page.status_code == 200 and "Which layer owns queueing and quota" in body
    assert "Which layer owns GPU monitoring" not in body


def test_the_reminder_stays_until_the_row_records_which_layer_owns_it(evaluation, owner):
    stack = compose(evaluation, owner, THREE_QUOTAS)
    key = f"duplicated-control:quota:{stack.pk}"
    found = reminders(evaluation)
    assert found[key].severity == "medium"
    assert f"duplicated-control:rbac:{stack.pk}" in found
    assert reverse("responsibility:matrix", args=[evaluation.pk, stack.pk]) in found[key].fix_url
    area = Area.objects.get(key="layer_owner_quota")
    row = AreaRow.objects.get(candidate=stack, area=area)
    # An accountable party alone is not a decision: the note must say which layer.
    assert key in reminders(evaluation)
    services.row_update(
        user=owner,
        candidate=stack,
        area=area,
        expected_version=row.version,
        note="Kueue owns quota; the platform's project quotas mirror it, Volcano queues are off.",
    )
    found = reminders(evaluation)
    assert key not in found and f"duplicated-control:rbac:{stack.pk}" in found
    # With the note but nobody accountable, it is open again.
    row.refresh_from_db()
    services.row_update(
        user=owner,
        candidate=stack,
        area=area,
        expected_version=row.version,
        letters={Party.objects.get(evaluation=None, key="vendor"): "R"},
    )
    assert key in reminders(evaluation)


def test_a_mixed_type_stack_is_hybrid_for_the_areas_across_sources(evaluation, owner):
    stack = compose(evaluation, owner, THREE_QUOTAS)
    (single,) = add_candidates(evaluation, owner, "runai")
    assert not evaluation.plans_hybrid
    key = f"hybrid-without-unified-owner:{stack.pk}"
    assert key not in reminders(evaluation)  # the prefill names an accountable owner
    for candidate in (stack, single):
        row = AreaRow.objects.get(candidate=candidate, area__key="unified_audit_record")
        services.row_update(
            user=owner,
            candidate=candidate,
            area=row.area,
            expected_version=row.version,
            letters={Party.objects.get(evaluation=None, key="security"): "R"},
        )
    found = reminders(evaluation)
    assert found[key].severity == "high" and "different solution types" in found[key].why
    # A single solution is not hybrid unless the evaluation says so.
    assert f"hybrid-without-unified-owner:{single.pk}" not in found


def test_a_stack_of_one_type_is_not_hybrid_for_the_areas(evaluation, owner):
    stack = compose(evaluation, owner, NO_DUPLICATES, main="batch_queue", name="Operator + Kueue")
    row = AreaRow.objects.get(candidate=stack, area__key="unified_audit_record")
    services.row_update(
        user=owner,
        candidate=stack,
        area=row.area,
        expected_version=row.version,
        letters={Party.objects.get(evaluation=None, key="security"): "R"},
    )
    assert f"hybrid-without-unified-owner:{stack.pk}" not in reminders(evaluation)
