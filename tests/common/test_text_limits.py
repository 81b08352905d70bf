"""Every free-text field has a maximum length, and forms, the API and the services enforce it:
one character over is refused with a message that names the limit, and nothing is saved."""

import pytest
from django.apps import apps
from django.core.validators import MaxLengthValidator
from django.db import models
from django.urls import reverse
from rest_framework.test import APIClient

from common.fields import LONG_TEXT, SHORT_TEXT, BoundedTextField
from evaluations.models import Candidate, Evaluation
from poc.models import Score
from tests.factories import make_everything

pytestmark = pytest.mark.django_db

APPS = {"catalog", "evaluations", "poc", "responsibility", "reports"}
# Text the application writes itself, never a person.
WRITTEN_BY_THE_APP = {("reports", "ReportRun", "error")}


def typed_text_fields():
    for model in apps.get_models():
        if model._meta.app_label not in APPS or model.__name__.startswith("Historical"):
            continue
        for field in model._meta.concrete_fields:
            key = (model._meta.app_label, model.__name__, field.name)
            if isinstance(field, models.TextField) and key not in WRITTEN_BY_THE_APP:
                yield key, field


def test_every_typed_text_field_has_a_limit_model_validation_checks():
    fields = list(typed_text_fields())
    assert len(fields) > 30  # the walk found the translated catalog fields too
    for key, field in fields:
        assert isinstance(field, BoundedTextField), key
        assert field.max_length in (SHORT_TEXT, LONG_TEXT), key
        assert any(isinstance(v, MaxLengthValidator) for v in field.validators), key


@pytest.fixture
def full(owner, people):
    return make_everything(owner, people)


def over(limit):
    return "x" * (limit + 1)


def test_pages_refuse_one_character_too_many(client, owner, full):
    client.force_login(owner)
    version = full.version
    edit = client.post(
        reverse("evaluations:evaluation_edit", args=[full.pk]),
        {
            "title": full.title,
            "organisation": full.organisation,
            "scenarios": list(full.scenarios.values_list("pk", flat=True)),
            "notes": over(LONG_TEXT),
            "version": full.version,
        },
    )
    assert edit.status_code == 400
    assert f"at most {LONG_TEXT} characters" in edit.content.decode()

    slurm = full.candidates.get(solution__slug="slurm")
    matrix = client.post(
        reverse("responsibility:matrix_save", args=[full.pk, slurm.pk]),
        {"area": "job_execution", "note": over(500), "version": 1},
    )
    assert matrix.status_code == 400 and "at most 500 characters" in matrix.content.decode()
    full.refresh_from_db()
    assert len(full.notes) <= LONG_TEXT and full.version == version


def test_the_api_refuses_one_character_too_many(owner, full):
    api = APIClient()
    api.force_authenticate(owner)
    base = f"/api/evaluations/{full.pk}/"
    notes = api.patch(base, {"notes": over(LONG_TEXT), "version": full.version}, format="json")
    assert notes.status_code == 400 and "notes" in notes.json()
    assert api.get(base).json()["notes"] == full.notes

    slurm = full.candidates.get(solution__slug="slurm")
    eliminate = api.post(
        f"{base}candidates/{slurm.pk}/eliminate/",
        {"reason": over(SHORT_TEXT), "version": slurm.version},
        format="json",
    )
    assert eliminate.status_code == 400 and "reason" in eliminate.json()
    assert Candidate.objects.get(pk=slurm.pk).status == "shortlisted"

    case = full.poc_cases.first()
    score = api.put(
        f"{base}poc/cells/{case.pk}/{slurm.pk}/score/",
        {"score": "3", "notes": over(SHORT_TEXT), "version": 0},
        format="json",
    )
    assert score.status_code == 400 and "notes" in score.json()
    assert not Score.objects.filter(case=case, candidate=slurm, reviewer=owner).exists()


def test_services_refuse_text_that_is_not_saved_through_full_clean(owner, full):
    """The status change's reason and the elimination reason are set without full_clean."""
    from django.core.exceptions import ValidationError

    from evaluations import services

    slurm = full.candidates.get(solution__slug="slurm")
    with pytest.raises(ValidationError) as refused:
        services.candidate_eliminate(
            user=owner, candidate=slurm, reason=over(SHORT_TEXT), expected_version=slurm.version
        )
    assert "reason" in refused.value.message_dict
    with pytest.raises(ValidationError):
        services.evaluation_transition(
            user=owner, evaluation=full, to_status="draft", reason=over(SHORT_TEXT)
        )
    assert Evaluation.objects.get(pk=full.pk).status == full.status
