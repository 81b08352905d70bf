"""Hostile input answers 400 with a message, never 500, and saves nothing: non-finite and
non-ASCII numbers, NUL characters in paths, queries and bodies, OPTIONS on every API route,
huge limits and offsets."""

import json
from decimal import Decimal

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from common.numbers import parse_decimal, parse_integer
from common.validators import no_hidden_characters
from responsibility.models import AreaRow
from tests.factories import make_everything

pytestmark = pytest.mark.django_db

NOT_NUMBERS = ["NaN", "sNaN", "-Infinity", "Infinity", "1e3", "١٢٣", "1_000", "", " ", "0x10"]


@pytest.mark.parametrize("text", NOT_NUMBERS)
def test_only_plain_decimals_are_numbers(text):
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError):
        parse_decimal(text)


@pytest.mark.parametrize(("text", "value"), [("12", 12), ("-0.5", "-0.5"), (".25", "0.25")])
def test_plain_decimals_are_read(text, value):
    assert parse_decimal(text) == Decimal(str(value))


@pytest.mark.parametrize("text", [*NOT_NUMBERS, "1.5", "2.0.0", True, 1.5, float("nan")])
def test_only_plain_whole_numbers_are_integers(text):
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError):
        parse_integer(text)


@pytest.mark.parametrize(("text", "value"), [("12", 12), (" -3 ", -3), (7, 7), (4.0, 4)])
def test_plain_whole_numbers_are_read(text, value):
    assert parse_integer(text) == value


@pytest.mark.parametrize(
    "url", ["https://\u202eexe.gpj", "https://a\u200bb.example", "http://a\tb"]
)
def test_addresses_with_hidden_characters_are_refused(url):
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError, match="invisible or direction"):
        no_hidden_characters(url)


@pytest.fixture
def full(owner, people):
    return make_everything(owner, people)


def test_non_numbers_in_page_saves_are_refused(client, owner, full):
    slurm = full.candidates.get(solution__slug="slurm")
    row = AreaRow.objects.get(candidate=slurm, area__key="job_execution")
    case = full.poc_cases.filter(source_case__isnull=False).first()
    client.force_login(owner)
    for bad in ("NaN", "sNaN", "Infinity", "١٢٣", "1_000"):
        fte = client.post(
            reverse("responsibility:matrix_save", args=[full.pk, slurm.pk]),
            {"area": "job_execution", "internal_fte": bad, "version": row.version},
        )
        weight = client.post(
            reverse("poc:plan", args=[full.pk]),
            {"action": "case_weight", "id": case.pk, "weight": bad, "version": case.version},
        )
        assert (fte.status_code, weight.status_code) == (400, 400), bad
    row.refresh_from_db()
    case.refresh_from_db()
    assert row.version == 1 and case.version == 1


def test_nul_characters_are_refused_everywhere(client, owner, full):
    client.force_login(owner)
    api = APIClient()
    api.force_authenticate(owner)
    pk = full.pk
    version = {"ray_workloads-version": 0}
    answers = [
        client.post(  # multipart: the form field refuses it
            reverse("evaluations:context_answer_save", args=[pk, "ray_workloads"]),
            {"ray_workloads-value": "yes", "ray_workloads-detail": "ab\x00cd", **version},
        ),
        client.post(  # urlencoded, as browsers send forms: refused before any view
            reverse("evaluations:context_answer_save", args=[pk, "ray_workloads"]),
            "ray_workloads-value=yes&ray_workloads-detail=ab%00cd&ray_workloads-version=0",
            content_type="application/x-www-form-urlencoded",
        ),
        api.get(f"/api/evaluations/{pk}/context/a%00b/"),
        api.get("/api/evaluations/?search=a%00b"),
        api.patch(
            f"/api/evaluations/{pk}/",
            json.dumps({"scenarios": ["a\u0000b"], "version": full.version}),
            content_type="application/json",
        ),
    ]
    for response in answers:
        assert response.status_code == 400, response.request["PATH_INFO"]
    full.refresh_from_db()
    assert not full.context_answers.filter(question__key="ray_workloads").exists()


def test_options_and_huge_pages_never_fail(owner, full):
    api = APIClient()
    api.force_authenticate(owner)
    slurm = full.candidates.get(solution__slug="slurm")
    for path in (
        f"/api/evaluations/{full.pk}/decision/",
        "/api/evaluations/0/decision/",
        f"/api/evaluations/{full.pk}/candidates/{slurm.pk}/matrix/rows/job_execution/",
        "/api/evaluations/0/candidates/0/matrix/rows/0/",
        "/api/evaluations/",
    ):
        assert api.options(path).status_code in (200, 404), path
    for query in ("limit=99999999999999999999", "limit=2e26", "offset=99999999999999999999"):
        response = api.get(f"/api/evaluations/?{query}")
        assert response.status_code in (200, 400), query
    capped = api.get("/api/evaluations/?limit=100000")
    assert capped.status_code == 200
