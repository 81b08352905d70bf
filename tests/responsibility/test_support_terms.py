"""Support terms: validation in the service, the comparison's best marks, the page's form, the
API (create, edit, stale 409, 428), who may read and write, the reminder for a chosen candidate
without terms, the xlsx sheet and the report part in both languages."""

from decimal import Decimal as D
from io import BytesIO

import pytest
from django.core.exceptions import ValidationError
from django.utils import translation
from openpyxl import load_workbook

from common.exceptions import Forbidden
from evaluations.models import MemberRole
from evaluations.reminders import reminders_for
from evaluations.selectors import evaluation_data
from reports.render import report_html
from reports.snapshot import build_snapshot, snapshot_sha256
from responsibility.support import services
from responsibility.support.models import SupportTerm
from responsibility.support.selectors import comparison
from tests.factories import add_candidates
from tests.responsibility.api_support import client_for, url

pytestmark = pytest.mark.django_db

SOURCE = "Draft contract, schedule B, clause 2"


def save(user, candidate, term, version=0, **values):
    values.setdefault("source", SOURCE)
    return services.support_term_save(
        user=user, candidate=candidate, term=term, expected_version=version, **values
    )


@pytest.fixture
def two(evaluation, owner):
    slurm, runai = add_candidates(evaluation, owner, "slurm", "runai")
    return slurm, runai


# --- the service ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "term,values,field,words",
    [
        ("p1_response", {"amount": D("0")}, "amount", "between 0.1 and 168 hours"),
        ("p1_response", {"amount": D("-2")}, "amount", "between 0.1 and 168 hours"),
        ("p1_response", {"amount": D("900")}, "amount", "between 0.1 and 168 hours"),
        ("p1_response", {}, "amount", "Enter the number of hours"),
        ("onsite_days", {"amount": D("366")}, "amount", "between 0 and 365 days"),
        ("custom_development", {"text": "  "}, "text", "Write what is committed"),
        ("p2_restore", {"amount": D("4"), "source": " "}, "source", "Say where this is written"),
        (
            "p2_restore",
            {"amount": D("4"), "source_kind": "link"},
            "source_url",
            "needs its link",
        ),
        (
            "p2_restore",
            {"amount": D("4"), "source_url": "https://vendor.example.com/sla"},
            "source_url",
            "placeholder",
        ),
    ],
)
def test_service_refuses_bad_terms_with_a_message_and_saves_nothing(
    evaluation, owner, two, term, values, field, words
):
    with pytest.raises(ValidationError) as caught:
        save(owner, two[0], term, **values)
    assert words in " ".join(caught.value.message_dict[field])
    assert not SupportTerm.objects.exists()


def test_service_refuses_an_unknown_term_and_a_stale_edit(evaluation, owner, two):
    with pytest.raises(ValidationError) as caught:
        save(owner, two[0], "free_beer", amount=D("1"))
    assert "Choose one of the listed support terms" in caught.value.message_dict["term"][0]
    row = save(owner, two[0], "p1_response", amount=D("2"))
    save(owner, two[0], "p1_response", version=row.version, amount=D("1"))
    from common.exceptions import StaleEdit

    with pytest.raises(StaleEdit):
        save(owner, two[0], "p1_response", version=row.version, amount=D("3"))
    assert SupportTerm.objects.get().amount == D("1")


def test_a_viewer_cannot_save_a_term(evaluation, owner, people, two):
    with pytest.raises(Forbidden):
        save(people[MemberRole.VIEWER], two[0], "p1_response", amount=D("2"))


# --- the comparison -------------------------------------------------------------------------


def test_comparison_marks_the_best_value_only_where_better_is_clear(evaluation, owner, two):
    slurm, runai = two
    save(owner, slurm, "p1_response", amount=D("4"))
    save(owner, runai, "p1_response", amount=D("1"))
    save(owner, slurm, "version_window", amount=D("12"))
    save(owner, runai, "version_window", amount=D("24"))
    save(owner, slurm, "upgrade_cadence", amount=D("3"))  # no better way: never marked
    save(owner, runai, "upgrade_cadence", amount=D("12"))
    save(owner, slurm, "p2_response", amount=D("8"))  # alone in its row: not marked
    save(owner, slurm, "training_days", amount=D("5"))  # equal: nobody is better
    save(owner, runai, "training_days", amount=D("5"))
    lines = {line.term.key: line for line in comparison(evaluation).lines}
    marks = {k: [c.best for c in line.cells] for k, line in lines.items()}
    assert marks["p1_response"] == [False, True]  # shorter response
    assert marks["version_window"] == [False, True]  # longer window
    assert marks["upgrade_cadence"] == [False, False]
    assert marks["p2_response"] == [False, False]
    assert marks["training_days"] == [False, False]


# --- the page -------------------------------------------------------------------------------


def page(evaluation):
    return f"/evaluations/{evaluation.pk}/support/"


def post_data(candidate, **extra):
    data = {
        "candidate": candidate.pk,
        "term": "p1_response",
        "amount": "2",
        "text": "",
        "source_kind": "contract",
        "source": SOURCE,
        "source_url": "",
        "version": "0",
    }
    data.update(extra)
    return data


def test_page_records_and_changes_a_term_and_shows_the_best(client, evaluation, owner, two):
    slurm, runai = two
    client.force_login(owner)
    response = client.post(page(evaluation), post_data(slurm), follow=True)
    assert response.status_code == 200
    assert "Support term saved." in response.content.decode()
    row = SupportTerm.objects.get(candidate=slurm)
    assert row.amount == D("2") and row.source == SOURCE
    client.post(page(evaluation), post_data(runai, amount="0.5"))
    html = client.get(page(evaluation)).content.decode()
    assert 'data-testid="support-comparison"' in html and "★" in html
    # The edit link fills the form with the saved term and its version.
    html = client.get(page(evaluation), {"candidate": slurm.pk, "term": "p1_response"}).content
    assert f'name="version" value="{row.version}"' in html.decode()
    response = client.post(page(evaluation), post_data(slurm, amount="3", version=row.version))
    assert response.status_code == 302
    assert SupportTerm.objects.get(candidate=slurm).amount == D("3")


def test_page_refuses_bad_input_with_the_message_and_a_stale_form_with_409(
    client, evaluation, owner, two
):
    slurm = two[0]
    client.force_login(owner)
    response = client.post(page(evaluation), post_data(slurm, amount="1000"))
    assert response.status_code == 400
    assert "must be between 0.1 and 168 hours" in response.content.decode()
    response = client.post(page(evaluation), post_data(slurm, amount="abc"))
    assert response.status_code == 400
    save(owner, slurm, "p1_response", amount=D("2"))
    response = client.post(page(evaluation), post_data(slurm, amount="5"))  # saw version 0
    assert response.status_code == 409
    assert "Someone else saved this" in response.content.decode()
    assert SupportTerm.objects.get().amount == D("2")
    response = client.post(page(evaluation), {**post_data(slurm), "version": ""})
    assert response.status_code == 428


def test_page_viewer_reads_but_cannot_write_and_outsider_gets_404(
    client, evaluation, owner, people, two
):
    client.force_login(people[MemberRole.VIEWER])
    response = client.get(page(evaluation))
    assert response.status_code == 200
    assert 'data-testid="support-form"' not in response.content.decode()
    assert client.post(page(evaluation), post_data(two[0])).status_code == 403
    assert not SupportTerm.objects.exists()
    client.force_login(people["outsider"])
    assert client.get(page(evaluation)).status_code == 404


def test_page_in_chinese(client, evaluation, owner, two):
    save(owner, two[0], "p1_response", amount=D("2"))
    client.force_login(owner)
    html = client.get(page(evaluation), HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "支持条款" in html and "P1（严重）响应" in html


# --- the API --------------------------------------------------------------------------------


def term_url(evaluation, candidate, term="p1_response"):
    return url(evaluation, f"support-terms/{candidate.pk}/{term}/")


def test_api_creates_edits_and_refuses_a_stale_edit(evaluation, owner, two):
    slurm, runai = two
    client = client_for(owner)
    body = {"amount": "2", "source": SOURCE, "source_kind": "contract"}
    response = client.put(term_url(evaluation, slurm), body)
    assert response.status_code == 201 and response["ETag"] == '"1"'
    assert response.json()["amount"] == "2.0"
    response = client.put(term_url(evaluation, slurm), {**body, "amount": "1", "version": 1})
    assert response.status_code == 200 and response.json()["version"] == 2
    response = client.put(term_url(evaluation, slurm), {**body, "amount": "9", "version": 1})
    assert response.status_code == 409
    assert response.json()["current"]["amount"] == "1.0"
    assert client.put(term_url(evaluation, slurm), body).status_code == 428
    response = client.put(term_url(evaluation, slurm), {**body, "amount": "0", "version": 2})
    assert response.status_code == 400 and "between 0.1 and 168" in str(response.json())
    assert client.put(term_url(evaluation, slurm, "nope"), body).status_code == 404
    client.put(term_url(evaluation, runai), {**body, "amount": "4"})
    listing = client.get(url(evaluation, "support-terms/")).json()
    assert [c["name"] for c in listing["candidates"]] == [slurm.name, runai.name]
    p1 = next(t for t in listing["terms"] if t["key"] == "p1_response")
    assert [v["best"] for v in p1["values"]] == [True, False]
    assert "p1_response" not in listing["candidates"][0]["missing"]
    response = client.delete(term_url(evaluation, runai), {"version": 1})
    assert response.status_code == 204
    assert not SupportTerm.objects.filter(candidate=runai).exists()


def test_api_viewer_cannot_edit_and_outsider_gets_404(evaluation, owner, people, two):
    slurm = two[0]
    save(owner, slurm, "p1_response", amount=D("2"))
    viewer = client_for(people[MemberRole.VIEWER])
    assert viewer.get(url(evaluation, "support-terms/")).status_code == 200
    body = {"amount": "1", "source": SOURCE, "version": 1}
    assert viewer.put(term_url(evaluation, slurm), body).status_code == 403
    outsider = client_for(people["outsider"])
    assert outsider.get(url(evaluation, "support-terms/")).status_code == 404
    assert outsider.put(term_url(evaluation, slurm), body).status_code == 404
    assert SupportTerm.objects.get().amount == D("2")


# --- the reminder ---------------------------------------------------------------------------


def choose(evaluation, owner, *candidates):
    """A decision record choosing `candidates` (the evaluation need not be decided yet)."""
    import datetime

    from evaluations import services as ev

    ev.evaluation_transition(user=owner, evaluation=evaluation, to_status="poc", reason="Go")
    ev.decision_save(
        user=owner,
        evaluation=evaluation,
        chosen=list(candidates),
        rationale="Fits.",
        decided_on=datetime.date(2027, 1, 15),
        decided_by="Board",
        expected_version=None,
    )


def found(evaluation):
    return {r.key: r for r in reminders_for(evaluation_data(evaluation))}


def test_reminder_when_a_chosen_candidate_has_no_support_terms(evaluation, owner, two):
    slurm, runai = two
    save(owner, runai, "p1_response", amount=D("2"))
    assert "chosen-without-support-terms" not in found(evaluation)  # nothing chosen yet
    choose(evaluation, owner, slurm, runai)
    reminder = found(evaluation)["chosen-without-support-terms"]
    assert reminder.severity == "medium"
    assert "Slurm" in reminder.why and "Run:ai" not in reminder.why
    assert reminder.fix_url == f"/evaluations/{evaluation.pk}/support/"


def test_no_reminder_when_every_chosen_candidate_has_terms(evaluation, owner, two):
    slurm, runai = two
    save(owner, slurm, "p1_response", amount=D("2"))
    choose(evaluation, owner, slurm)
    assert "chosen-without-support-terms" not in found(evaluation)


# --- the xlsx sheet and the report ------------------------------------------------------------


def test_xlsx_has_a_support_sheet_with_values_sources_and_marks(client, evaluation, owner, two):
    slurm, runai = two
    save(owner, slurm, "p1_response", amount=D("4"))
    save(owner, runai, "p1_response", amount=D("1"), source="=HYPERLINK(1)")
    save(owner, runai, "support_language", text="Chinese", source_kind="minutes")
    client.force_login(owner)
    response = client.get(f"/evaluations/{evaluation.pk}/poc/scorecard.xlsx")
    assert response.status_code == 200
    ws = load_workbook(BytesIO(response.content))["Support terms"]
    rows = [[c.value for c in row] for row in ws.iter_rows()]
    assert rows[0] == [
        "Term",
        slurm.name,
        f"Source: {slurm.name}",
        runai.name,
        f"Source: {runai.name}",
    ]
    p1 = next(r for r in rows if r[0] == "P1 (critical) response")
    assert p1[1] == "4.0 hours" and p1[2] == f"Contract clause: {SOURCE}"
    assert p1[3] == "1.0 hours ★" and p1[4] == "Contract clause: =HYPERLINK(1)"
    assert ws.cell(rows.index(p1) + 1, 5).data_type == "s"  # text, never a formula
    lang = next(r for r in rows if r[0] == "Support language")
    assert lang[1] == "—" and lang[3] == "Chinese" and lang[4].startswith("Meeting minutes")


@pytest.mark.parametrize(
    "language,label,kind,heading",
    [
        ("en", "P1 (critical) response", "Contract clause", "Support terms"),
        ("zh-hans", "P1（严重）响应", "合同条款", "支持条款"),
    ],
)
def test_report_part_in_both_languages(evaluation, owner, two, language, label, kind, heading):
    slurm, runai = two
    save(owner, slurm, "p1_response", amount=D("4"))
    save(owner, runai, "p1_response", amount=D("1"))
    snap = build_snapshot(evaluation, language=language, generated_at="2027-03-01T09:00:00+08:00")
    part = snap["support"]
    assert part["recorded"] is True
    assert [c["name"] for c in part["candidates"]] == [slurm.name, runai.name]
    p1 = part["terms"][0]
    assert p1["label"] == label
    assert [v["amount"] for v in p1["values"]] == ["4.0", "1.0"]
    assert [v["best"] for v in p1["values"]] == [False, True]
    assert p1["values"][0]["source_kind_label"] == kind
    with translation.override(language):
        html = report_html(snap, snapshot_sha256(snap), language, for_pdf=False)
    section = html.split('id="support-terms"', 1)[1].split("</section>", 1)[0]
    assert heading in html and label in section and "★" in section and SOURCE in section
