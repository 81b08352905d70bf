"""Combined letters (AR: accountable and responsible) through the seeds, the services, the API
and the reminders: every route can settle every area the same way."""

from decimal import Decimal as D

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from rest_framework.test import APIClient

from catalog.models import Solution, SolutionType
from evaluations.reminders import reminders_for
from evaluations.selectors import evaluation_data
from responsibility import checks, services
from responsibility.models import Area, AreaRow, Cell, Party
from responsibility.selectors import evaluation_matrices
from tests.factories import add_candidates, compose_stack

pytestmark = pytest.mark.django_db

# What each seeded type's starting matrix reaches (share of areas with one A and at least one R).
# A seed edit that leaves an area without an owner or without anyone doing the work fails here.
EXPECTED_COVERAGE = {
    "open-source": D("100.0"),
    "cloud-managed": D("100.0"),
    "enterprise-platform": D("100.0"),
    "hybrid": D("100.0"),
}


def party(key):
    return Party.objects.get(evaluation=None, key=key)


def area(key):
    return Area.objects.get(key=key)


def starting_matrix(type_slug: str, *, stack: bool) -> checks.MatrixCheck:
    letters, _effort = services.prefill_for_type(type_slug)
    keys = [a.key for a in Area.objects.filter(is_active=True) if stack or not a.stack_only]
    return checks.check_matrix(keys, {k: letters.get(k, {}) for k in keys})


def test_every_seeded_type_has_an_expected_coverage():
    assert set(SolutionType.objects.values_list("slug", flat=True)) == set(EXPECTED_COVERAGE)


@pytest.mark.parametrize("type_slug", sorted(EXPECTED_COVERAGE))
@pytest.mark.parametrize("stack", [False, True], ids=["single", "stack"])
def test_each_types_starting_matrix_is_fully_assigned(type_slug, stack):
    result = starting_matrix(type_slug, stack=stack)
    problems = [(a.area, a.status) for a in result.areas if a.status != checks.OK]
    assert result.coverage == EXPECTED_COVERAGE[type_slug], problems


def test_starting_letters_are_all_valid_values():
    for type_slug in EXPECTED_COVERAGE:
        letters, _effort = services.prefill_for_type(type_slug)
        for area_key, cells in letters.items():
            for value in cells.values():
                assert value in checks.LETTERS, (type_slug, area_key, value)


def test_open_source_internal_team_owns_and_runs_operations():
    letters, _effort = services.prefill_for_type("open-source")
    for key in ("fault_handling", "upgrades_maintenance", "monitoring_alerting"):
        assert letters[key]["internal"] == "AR", key


def test_every_seeded_solution_and_a_stack_start_complete(evaluation, owner):
    slugs = list(Solution.objects.values_list("slug", flat=True))
    candidates = add_candidates(evaluation, owner, *slugs)
    stack = compose_stack(
        evaluation, owner, "Volcano + Run:ai", "governance", execution="volcano", governance="runai"
    )
    for c in [*candidates, stack]:
        services.matrix_prefill(user=owner, candidate=c)
    coverage = {m.candidate.name: m.result.coverage for m in evaluation_matrices(evaluation)}
    assert len(coverage) == len(slugs) + 1
    assert set(coverage.values()) == {D("100.0")}, coverage


# --- services ---------------------------------------------------------------------------------


def cells_of(candidate, area_key):
    row = candidate.area_rows.get(area__key=area_key)
    return {c.party.key: c.letter for c in row.cells.select_related("party")}


@pytest.mark.parametrize("typed", ["AR", "ar", "RA", "A+R", " r+a "])
def test_a_cell_takes_the_combined_value_in_any_usual_spelling(owner, slurm, typed):
    services.cell_set(
        user=owner,
        candidate=slurm,
        area=area("fault_handling"),
        party=party("internal"),
        letter=typed,
        expected_version=0,
    )
    assert cells_of(slurm, "fault_handling") == {"internal": "AR"}
    check = checks.check_area("fault_handling", cells_of(slurm, "fault_handling"))
    assert check.status == checks.OK


@pytest.mark.parametrize("typed", ["RC", "AA", "X", "ARC", "A R C", "AI"])
def test_other_combinations_are_refused_with_the_allowed_values(owner, slurm, typed):
    with pytest.raises(ValidationError) as exc:
        services.cell_set(
            user=owner,
            candidate=slurm,
            area=area("fault_handling"),
            party=party("internal"),
            letter=typed,
            expected_version=0,
        )
    message = exc.value.message_dict["letter"][0]
    assert "R, A, AR" in message and typed.strip() in message
    assert not AreaRow.objects.exists()


def test_two_accountable_when_one_is_ar_are_refused_in_a_row(owner, slurm):
    with pytest.raises(ValidationError, match="Only one party can be accountable"):
        services.row_update(
            user=owner,
            candidate=slurm,
            area=area("fault_handling"),
            expected_version=0,
            letters={party("internal"): "AR", party("vendor"): "A"},
        )
    assert not AreaRow.objects.exists() and not Cell.objects.exists()


def test_two_accountable_when_one_is_ar_show_as_a_conflict(evaluation, owner, slurm):
    a = area("fault_handling")
    services.cell_set(
        user=owner,
        candidate=slurm,
        area=a,
        party=party("internal"),
        letter="AR",
        expected_version=0,
    )
    services.cell_set(
        user=owner, candidate=slurm, area=a, party=party("vendor"), letter="A", expected_version=1
    )
    (m,) = evaluation_matrices(evaluation)
    assert [c.area for c in m.result.conflicts] == ["fault_handling"]
    assert m.result.conflicts[0].accountable == ("internal", "vendor")


def test_the_database_refuses_values_outside_the_five(owner, slurm):
    services.cell_set(
        user=owner,
        candidate=slurm,
        area=area("fault_handling"),
        party=party("internal"),
        letter="AR",
        expected_version=0,
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        Cell.objects.filter(row__candidate=slurm).update(letter="RC")


def test_ar_counts_as_internal_governance_owner(evaluation, owner):
    (runai,) = add_candidates(evaluation, owner, "runai")
    services.matrix_prefill(user=owner, candidate=runai)
    row = runai.area_rows.get(area__key="permissions_audit")
    services.row_update(
        user=owner,
        candidate=runai,
        area=row.area,
        expected_version=row.version,
        letters={party("internal"): "AR", party("vendor"): "C"},
    )
    (m,) = evaluation_matrices(evaluation)
    assert "permissions_audit" not in [a.key for a in m.governance_without_internal_owner]
    keys = {r.key.split(":")[0] for r in reminders_for(evaluation_data(evaluation))}
    assert "commercial-no-internal-owner" not in keys


# --- API --------------------------------------------------------------------------------------


def api(user):
    client = APIClient()
    client.default_format = "json"
    client.force_authenticate(user)
    return client


def cell_url(evaluation, candidate, area_key, party_key):
    return (
        f"/api/evaluations/{evaluation.pk}/matrices/{candidate.pk}/rows/{area_key}/"
        f"cells/{party_key}/"
    )


def test_api_accepts_ar_and_shows_it(evaluation, owner, slurm):
    client = api(owner)
    response = client.put(
        cell_url(evaluation, slurm, "fault_handling", "internal"), {"letter": "ra"}
    )
    assert response.status_code in (200, 201), response.json()
    body = response.json()
    assert body["letters"] == {"internal": "AR"}
    assert body["accountable"] == ["internal"] and body["responsible"] == ["internal"]
    assert body["status"] == "ok"
    row = client.put(
        f"/api/evaluations/{evaluation.pk}/matrices/{slurm.pk}/rows/queue_policy/",
        {"letters": {"internal": "AR", "business": "C"}},
    )
    assert row.status_code == 201 and row.json()["letters"] == {"internal": "AR", "business": "C"}


@pytest.mark.parametrize("typed", ["RC", "AA", "X"])
def test_api_refuses_other_combinations_with_a_clear_message(evaluation, owner, slurm, typed):
    client = api(owner)
    cell = client.put(cell_url(evaluation, slurm, "fault_handling", "internal"), {"letter": typed})
    assert cell.status_code == 400
    assert "R, A, AR" in str(cell.json()["letter"]) and f"'{typed}'" in str(cell.json()["letter"])
    row = client.put(
        f"/api/evaluations/{evaluation.pk}/matrices/{slurm.pk}/rows/fault_handling/",
        {"letters": {"internal": typed}},
    )
    assert row.status_code == 400 and "R, A, AR" in str(row.json()["letters"])
    assert not AreaRow.objects.exists()


def test_api_refuses_two_accountable_when_one_is_ar(evaluation, owner, slurm):
    response = api(owner).put(
        f"/api/evaluations/{evaluation.pk}/matrices/{slurm.pk}/rows/fault_handling/",
        {"letters": {"internal": "AR", "vendor": "A"}},
    )
    assert response.status_code == 400
    assert "Only one party can be accountable" in str(response.json()["letters"])


def test_api_schema_lists_the_five_values(client, owner):
    client.force_login(owner)
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json")
    assert schema.status_code == 200
    assert '"AR"' in schema.content.decode()


# --- reminders --------------------------------------------------------------------------------

ONE_PER_TYPE = ["slurm", "cloud-managed-gpu", "runai", "enterprise-container-platform"]


def test_price_reminder_is_neutral_across_types_with_seeded_matrices(evaluation, owner):
    candidates = add_candidates(evaluation, owner, *ONE_PER_TYPE)
    for c in candidates:
        services.cost_input_save(
            user=owner, candidate=c, expected_version=None, hardware_one_off=D("1000000")
        )
        services.matrix_prefill(user=owner, candidate=c)
    keys = {r.key for r in reminders_for(evaluation_data(evaluation))}
    assert "price-without-responsibilities" not in keys
    # The same edit (the doer of one area removed) makes it fire for each type alike.
    for c in candidates:
        row = c.area_rows.get(area__key="fault_handling")
        letters = {p: v for p, v in ((cell.party, cell.letter) for cell in row.cells.all())}
        accountable = next(p for p, v in letters.items() if checks.is_accountable(v))
        services.row_update(
            user=owner,
            candidate=c,
            area=row.area,
            expected_version=row.version,
            letters={accountable: "A"},
        )
    reminder = next(
        r
        for r in reminders_for(evaluation_data(evaluation))
        if r.key == "price-without-responsibilities"
    )
    for c in candidates:
        assert c.name in str(reminder.why)


# --- report -----------------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_report_prints_ar_and_full_coverage(evaluation, owner, language):
    from reports.render import report_html
    from reports.snapshot import build_snapshot, snapshot_sha256

    (slurm,) = add_candidates(evaluation, owner, "slurm")
    services.matrix_prefill(user=owner, candidate=slurm)
    snap = build_snapshot(evaluation, language=language, generated_at="2027-03-01T09:00:00+08:00")
    (matrix,) = snap["matrices"]["candidates"]
    assert matrix["coverage"] == "100.0"
    internal = [p.pk for p in Party.objects.filter(evaluation=None)].index(party("internal").pk)
    letters = {r["area"]: r["letters"][internal] for r in matrix["rows"]}
    assert "AR" in letters.values()
    html = report_html(snap, snapshot_sha256(snap), language, for_pdf=False)
    section = html.split('<section id="matrices"', 1)[1].split("</section>", 1)[0]
    assert '<td class="letter letter-AR">AR</td>' in section
    if language == "en":
        assert "AR: accountable and responsible" in section


# --- pages ------------------------------------------------------------------------------------


def test_pages_show_ar_and_explain_it(client, evaluation, owner, slurm):
    services.matrix_prefill(user=owner, candidate=slurm)
    client.force_login(owner)
    matrices = client.get(f"/evaluations/{evaluation.pk}/responsibility/").content.decode()
    assert "Internal platform team (A+R)" in matrices
    assert "A+R: the accountable party also does the work itself." in matrices
    grid = client.get(f"/evaluations/{evaluation.pk}/responsibility/{slurm.pk}/").content.decode()
    assert 'id="raci-help"' in grid and 'aria-describedby="raci-help"' in grid
    assert 'class="raci raci-AR"' in grid and 'value="AR"' in grid


def test_page_cell_save_accepts_ar_and_refuses_rc(client, evaluation, owner, slurm):
    client.force_login(owner)
    save = f"/evaluations/{evaluation.pk}/responsibility/{slurm.pk}/save/"
    internal = party("internal")
    data = {"area": "fault_handling", "party": internal.pk, "version": 0}
    ok = client.post(save, {**data, "letter": "A+R"}, HTTP_HX_REQUEST="true")
    assert ok.status_code == 200
    assert cells_of(slurm, "fault_handling") == {"internal": "AR"}
    bad = client.post(save, {**data, "letter": "RC", "version": 1}, HTTP_HX_REQUEST="true")
    assert bad.status_code == 400 and "R, A, AR" in bad.content.decode()
    assert cells_of(slurm, "fault_handling") == {"internal": "AR"}
