"""The five questions are answered on their own scales: who (parties), the budget, yes/no."""

import html

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse
from rest_framework.test import APIClient

from common.exceptions import Forbidden, StaleEdit
from evaluations import services
from evaluations.answer_scales import clean_parties, missing_parts
from evaluations.models import AnswerScale, FiveQuestion, MemberRole, QuestionAnswer
from responsibility import services as responsibility_services
from tests.factories import add_candidates, make_evaluation

pytestmark = pytest.mark.django_db


# --- completeness per scale (pure) ----------------------------------------------------------

BLANK = {"parties": [], "assessment": "unknown", "budget": "unknown", "explanation": ""}


@pytest.mark.parametrize(
    "scale, given, missing",
    [
        ("parties", {}, ["who", "explanation"]),
        ("parties", {"parties": ["internal"]}, ["explanation"]),
        ("parties", {"parties": ["internal", "vendor"], "explanation": "x"}, []),
        # A who-question needs no yes or no, nor a budget answer.
        ("parties", {"parties": ["vendor"], "assessment": "unknown", "explanation": "x"}, []),
        ("parties", {"assessment": "yes", "explanation": "x"}, ["who"]),
        ("budget", {}, ["what the budget weighs more", "explanation"]),
        ("budget", {"budget": "software", "explanation": "x"}, []),
        ("budget", {"budget": "people", "explanation": "  "}, ["explanation"]),
        ("budget", {"budget": "both", "explanation": "x"}, []),
        (
            "budget",
            {"assessment": "yes", "parties": ["internal"], "explanation": "x"},
            ["what the budget weighs more"],
        ),
        ("assessment", {}, ["assessment", "explanation"]),
        ("assessment", {"assessment": "partly", "explanation": "x"}, []),
        ("assessment", {"assessment": "no", "explanation": "x"}, []),
        ("assessment", {"parties": ["internal"], "explanation": "x"}, ["assessment"]),
    ],
)
def test_what_an_answer_lacks_follows_its_scale(scale, given, missing):
    assert missing_parts(scale, **{**BLANK, **given}) == missing


ALLOWED = [("internal", "Internal"), ("vendor", "Vendor"), ("integrator", "Integrator")]


@pytest.mark.parametrize(
    "value, expected",
    [
        (None, []),
        ([], []),
        (["vendor"], ["vendor"]),
        (["vendor", "internal", "vendor"], ["vendor", "internal"]),
        (("integrator",), ["integrator"]),
    ],
)
def test_party_keys_are_kept_once_in_order(value, expected):
    assert clean_parties(value, ALLOWED) == expected


@pytest.mark.parametrize("value", ["vendor", ["ghost"], ["vendor", 3], [None], {"vendor": 1}])
def test_anything_but_a_list_of_the_evaluations_party_keys_is_refused(value):
    with pytest.raises(ValidationError) as error:
        clean_parties(value, ALLOWED)
    assert "parties" in error.value.message_dict


# --- the service -----------------------------------------------------------------------------


def question(key):
    return FiveQuestion.objects.get(key=key)


def save(user, candidate, key, version=None, **values):
    return services.answer_save(
        user=user,
        candidate=candidate,
        question=question(key),
        explanation=values.pop("explanation", "Explained"),
        expected_version=version,
        **values,
    )


def test_the_seeded_questions_have_their_scales():
    scales = dict(FiveQuestion.objects.values_list("key", "scale"))
    assert scales == {
        "long_term_team": AnswerScale.PARTIES,
        "incident_triage": AnswerScale.PARTIES,
        "new_hardware_validation": AnswerScale.PARTIES,
        "compliance_evidence": AnswerScale.ASSESSMENT,
        "budget_focus": AnswerScale.BUDGET,
    }


def test_a_who_answer_names_shared_and_own_parties(evaluation, owner):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    own = responsibility_services.party_add(
        user=owner, evaluation=evaluation, name="Integrator Ltd", kind="other"
    )
    answer = save(owner, slurm, "incident_triage", parties=["security", own.key, "security"])
    assert answer.parties == ["security", own.key] and answer.is_complete
    # What the scale does not ask is stored blank.
    assert answer.assessment == "unknown" and answer.budget == "unknown"


def test_a_party_of_another_evaluation_or_an_unknown_one_is_refused(evaluation, owner):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    other = make_evaluation(owner, title="Another")
    theirs = responsibility_services.party_add(
        user=owner, evaluation=other, name="Their integrator", kind="other"
    )
    for keys in ([theirs.key], ["ghost"], ["internal", "ghost"]):
        with pytest.raises(ValidationError) as error:
            save(owner, slurm, "incident_triage", parties=keys)
        assert "Not a party of this evaluation" in str(error.value.message_dict["parties"])
    assert not QuestionAnswer.objects.exists()


def test_the_budget_answer_is_one_of_its_values(evaluation, owner):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    with pytest.raises(ValidationError) as error:
        save(owner, slurm, "budget_focus", budget="cheap")
    assert "budget" in error.value.message_dict
    answer = save(owner, slurm, "budget_focus", budget="people", parties=["vendor"])
    assert answer.budget == "people" and answer.parties == [] and answer.is_complete


def test_only_editors_answer_and_stale_answers_are_refused(evaluation, owner, people):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    for role in (MemberRole.REVIEWER, MemberRole.VIEWER, "outsider"):
        with pytest.raises(Forbidden):
            save(people[role], slurm, "long_term_team", parties=["internal"])
    first = save(owner, slurm, "long_term_team", version=0, parties=["internal"])
    save(people[MemberRole.EDITOR], slurm, "long_term_team", version=1, parties=["vendor"])
    with pytest.raises(StaleEdit):
        save(owner, slurm, "long_term_team", version=first.version, parties=["business"])
    assert QuestionAnswer.objects.get().parties == ["vendor"]


# --- the API ---------------------------------------------------------------------------------


def api_for(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def answer_url(evaluation, candidate, key):
    return f"/api/evaluations/{evaluation.pk}/candidates/{candidate.pk}/answers/{key}/"


def test_the_api_answers_on_each_scale(evaluation, owner):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    client = api_for(owner)
    who = client.put(
        answer_url(evaluation, slurm, "incident_triage"),
        {"parties": ["vendor", "internal"], "explanation": "Shared on-call"},
        format="json",
    )
    assert who.status_code == 201, who.json()
    body = who.json()
    assert body["scale"] == "parties" and body["is_complete"]
    assert body["answer"]["parties"] == ["vendor", "internal"]
    budget = client.put(
        answer_url(evaluation, slurm, "budget_focus"),
        {"budget": "both", "explanation": "Both count"},
        format="json",
    )
    assert budget.status_code == 201 and budget.json()["answer"]["budget"] == "both"


@pytest.mark.parametrize(
    "key, body, field",
    [
        ("incident_triage", {"parties": ["ghost"]}, "parties"),
        ("incident_triage", {"parties": "internal"}, "parties"),
        ("budget_focus", {"budget": "cheap"}, "budget"),
        ("compliance_evidence", {"assessment": "maybe"}, "assessment"),
    ],
)
def test_the_api_refuses_bad_answers_naming_the_field(evaluation, owner, key, body, field):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    response = api_for(owner).put(
        answer_url(evaluation, slurm, key), {**body, "explanation": "x"}, format="json"
    )
    assert response.status_code == 400 and field in response.json()
    assert not QuestionAnswer.objects.exists()


def test_the_api_refuses_another_evaluations_party(evaluation, owner):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    other = make_evaluation(owner, title="Another")
    theirs = responsibility_services.party_add(
        user=owner, evaluation=other, name="Their integrator", kind="other"
    )
    response = api_for(owner).put(
        answer_url(evaluation, slurm, "incident_triage"),
        {"parties": [theirs.key], "explanation": "x"},
        format="json",
    )
    assert response.status_code == 400 and "parties" in response.json()


def test_the_api_answers_members_only(evaluation, owner, people):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    path = answer_url(evaluation, slurm, "incident_triage")
    outsider = api_for(people["outsider"])
    assert outsider.get(path).status_code == 404
    put = outsider.put(path, {"parties": ["internal"], "explanation": "x"}, format="json")
    assert put.status_code == 404
    viewer = api_for(people[MemberRole.VIEWER])
    assert viewer.get(path).status_code == 200
    put = viewer.put(path, {"parties": ["internal"], "explanation": "x"}, format="json")
    assert put.status_code == 403
    assert not QuestionAnswer.objects.exists()


# --- the page --------------------------------------------------------------------------------


def test_the_questions_page_renders_each_scale(client, evaluation, owner):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    own = responsibility_services.party_add(
        user=owner, evaluation=evaluation, name="Integrator Ltd", kind="other"
    )
    save(owner, slurm, "incident_triage", parties=["vendor", own.key])
    save(owner, slurm, "budget_focus", budget="software")
    client.force_login(owner)
    page = client.get(reverse("evaluations:evaluation_questions", kwargs={"pk": evaluation.pk}))
    html = page.content.decode()
    prefix = f"c{slurm.pk}"
    # Who: one box per party of this evaluation (the shared ones and its own), named ones ticked.
    for key in ("internal", "vendor", "cloud", "business", "security", own.key):
        assert f'name="{prefix}-incident_triage-parties" value="{key}"' in html
    assert 'value="vendor"' in html and "Integrator Ltd" in html
    assert f'name="{prefix}-budget_focus-budget"' in html
    assert '<option value="software" selected>' in html
    assert f'name="{prefix}-compliance_evidence-assessment"' in html
    assert f'name="{prefix}-incident_triage-assessment"' not in html
    assert f'name="{prefix}-budget_focus-parties"' not in html


def test_the_page_refuses_a_party_of_another_evaluation(client, evaluation, owner):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    other = make_evaluation(owner, title="Another")
    theirs = responsibility_services.party_add(
        user=owner, evaluation=other, name="Their integrator", kind="other"
    )
    client.force_login(owner)
    prefix = f"c{slurm.pk}-incident_triage"
    response = client.post(
        reverse(
            "evaluations:answer_save",
            kwargs={"pk": evaluation.pk, "cid": slurm.pk, "key": "incident_triage"},
        ),
        {f"{prefix}-parties": [theirs.key], f"{prefix}-explanation": "x", f"{prefix}-version": 0},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 400
    # Escaped as HTML (Django writes &#x27;, Jinja2 &#39;): read as a browser shows it.
    assert "is not one of this evaluation's parties" in html.unescape(response.content.decode())
    assert not QuestionAnswer.objects.exists()


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_history_names_the_parties_of_a_who_answer(client, evaluation, owner, language):
    """Not their keys ("internal → internal, vendor"): the names the answer form shows."""
    from django.utils import translation

    from evaluations.answer_scales import party_choices

    (slurm,) = add_candidates(evaluation, owner, "slurm")
    first = save(owner, slurm, "incident_triage", parties=["internal"])
    save(owner, slurm, "incident_triage", version=first.version, parties=["internal", "vendor"])
    client.force_login(owner)
    client.cookies["django_language"] = language
    page = client.get(reverse("evaluations:evaluation_history", args=[evaluation.pk]))
    html = page.content.decode()
    with translation.override(language):
        names = dict(party_choices(evaluation))
    assert (
        f"<del>{names['internal']}</del> → <ins>{names['internal']}, {names['vendor']}</ins>"
        in (html)
    )
    assert "<ins>internal, vendor</ins>" not in html
