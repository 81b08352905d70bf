"""Responsibility and cost pages: members only, grid saves, conflicts, query budgets."""

import pytest
from django.urls import reverse
from django.utils import translation

from evaluations.models import MemberRole
from responsibility import services
from responsibility.models import Area, Party
from tests.factories import add_candidates

pytestmark = pytest.mark.django_db


def url(name, evaluation, **kw):
    return reverse(f"responsibility:{name}", kwargs={"pk": evaluation.pk, **kw})


def test_pages_are_for_members_only(client, evaluation, owner, people):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    pages = [
        url("matrices", evaluation),
        url("matrix", evaluation, cid=slurm.pk),
        url("costs", evaluation),
    ]
    for role in (MemberRole.OWNER, MemberRole.EDITOR, MemberRole.REVIEWER, MemberRole.VIEWER):
        client.force_login(people[role])
        for page in pages:
            assert client.get(page).status_code == 200, (role, page)
    client.force_login(people["outsider"])
    for page in pages:
        assert client.get(page).status_code == 404
    assert (
        client.post(
            url("matrix_save", evaluation, cid=slurm.pk), {"area": "job_execution"}
        ).status_code
        == 404
    )
    assert client.post(url("costs", evaluation), {"target": "settings"}).status_code == 404


def test_viewer_cannot_write(client, evaluation, owner, people):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    client.force_login(people[MemberRole.VIEWER])
    response = client.post(
        url("matrix_save", evaluation, cid=slurm.pk),
        {
            "area": "job_execution",
            "party": Party.objects.get(key="internal").pk,
            "letter": "A",
            "version": 0,
        },
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 403
    assert not slurm.area_rows.exists()


@pytest.mark.parametrize("n_areas", [3, 33])
def test_grid_query_budget_does_not_grow_with_areas(
    client, evaluation, owner, n_areas, django_assert_max_num_queries
):
    single = Area.objects.filter(stack_only=False).values_list("pk", flat=True)[:n_areas]
    Area.objects.exclude(pk__in=list(single)).update(is_active=False)
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    services.matrix_prefill(user=owner, candidate=slurm)
    client.force_login(owner)
    # Cold: the status strip's count is computed and stored (evaluations/digests.py).
    with django_assert_max_num_queries(46):
        response = client.get(url("matrix", evaluation, cid=slurm.pk))
    assert response.content.decode().count('class="mrow') == n_areas
    with django_assert_max_num_queries(30):  # warm: the strip reads its stored count
        assert client.get(url("matrix", evaluation, cid=slurm.pk)).status_code == 200
    with django_assert_max_num_queries(30):
        assert client.get(url("matrices", evaluation)).status_code == 200


def test_cell_save_updates_the_row_and_refuses_a_stale_one(client, evaluation, owner, people):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    internal = Party.objects.get(key="internal")
    vendor = Party.objects.get(key="vendor")
    save = url("matrix_save", evaluation, cid=slurm.pk)
    client.force_login(owner)
    ok = client.post(
        save,
        {"area": "job_execution", "party": internal.pk, "letter": "a", "version": 0},
        headers={"HX-Request": "true"},
    )
    assert ok.status_code == 200
    body = ok.content.decode()
    assert 'id="ver-job_execution"' in body and 'value="1"' in body and "matrix-summary" in body
    client.force_login(people[MemberRole.EDITOR])
    stale = client.post(
        save,
        {"area": "job_execution", "party": vendor.pk, "letter": "A", "version": 0},
        headers={"HX-Request": "true"},
    )
    assert stale.status_code == 409
    assert stale["HX-Retarget"] == "#row-job_execution"
    assert "Someone else saved this" in stale.content.decode()
    bad = client.post(
        save,
        {"area": "job_execution", "party": vendor.pk, "letter": "Z", "version": 1},
        headers={"HX-Request": "true"},
    )
    assert bad.status_code == 400 and "R, A, AR" in bad.content.decode()
    assert (
        client.post(
            save, {"area": "no_such_area", "party": vendor.pk, "letter": "R", "version": 1}
        ).status_code
        == 404
    )
    row = slurm.area_rows.get(area__key="job_execution")
    assert {c.party_id: c.letter for c in row.cells.all()} == {internal.pk: "A"}


def test_comparison_shows_who_is_accountable(client, evaluation, owner):
    slurm, runai = add_candidates(evaluation, owner, "slurm", "runai")
    for c in (slurm, runai):
        services.matrix_prefill(user=owner, candidate=c)
    client.force_login(owner)
    body = client.get(url("matrices", evaluation)).content.decode()
    assert 'data-testid="accountable-comparison"' in body
    assert "Vendor" in body and "Internal platform team" in body
    assert 'class="differs"' in body


def test_costs_page_saves_validates_and_answers_what_if(client, evaluation, owner):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    services.matrix_prefill(user=owner, candidate=slurm)
    client.force_login(owner)
    page = url("costs", evaluation)
    negative = client.post(
        page,
        {
            "target": "candidate",
            "candidate": slurm.pk,
            f"c{slurm.pk}-licence_per_year": "-1",
            f"c{slurm.pk}-gpu_count": "0",
            f"c{slurm.pk}-version": "0",
        },
    )
    assert negative.status_code == 400
    for count, licence in (("1_000", "0"), ("١٢٣", "0"), ("4", "1_000"), ("4", "١٢٣")):
        typed = client.post(
            page,
            {
                "target": "candidate",
                "candidate": slurm.pk,
                f"c{slurm.pk}-licence_per_year": licence,
                f"c{slurm.pk}-gpu_count": count,
                f"c{slurm.pk}-version": "0",
            },
        )
        assert typed.status_code == 400 and "0–9" in typed.content.decode(), (count, licence)
    fields = {
        f"c{slurm.pk}-{k}": "0"
        for k in (
            "licence_per_year",
            "vendor_services_per_year",
            "gpu_count",
            "gpu_hours_per_year",
            "gpu_price_per_hour",
            "hardware_one_off",
            "hardware_per_year",
        )
    }
    fields.update(
        {
            f"c{slurm.pk}-utilisation": "1",
            f"c{slurm.pk}-one_off": "100000",
            f"c{slurm.pk}-version": "0",
        }
    )
    assert (
        client.post(page, {"target": "candidate", "candidate": slurm.pk, **fields}).status_code
        == 302
    )
    body = client.get(page).content.decode()
    assert (
        "<svg" in body
        and "Cumulative cost of ownership" in body
        and "http://"
        not in body.split("<svg", 1)[1].split("</svg>")[0].replace("http://www.w3.org/2000/svg", "")
    )
    partial = client.get(page, {"fte_cost_per_year": "0"}, headers={"HX-Request": "true"})
    assert partial.status_code == 200 and "<html" not in partial.content.decode()
    assert 'data-testid="total-slurm"><strong>100,000.00' in partial.content.decode()


def test_candidate_without_cost_inputs_shows_missing_not_zero(client, evaluation, owner):
    slurm, volcano = add_candidates(evaluation, owner, "slurm", "volcano")
    for candidate in (slurm, volcano):
        services.matrix_prefill(user=owner, candidate=candidate)
    services.cost_input_save(user=owner, candidate=slurm, expected_version=0, one_off=100000)
    client.force_login(owner)
    page = url("costs", evaluation)

    for params in ({}, {"gpu_count": "4", "fte_cost_per_year": "300000"}):  # what-if too
        body = client.get(page, params).content.decode()
        results = body[body.index('data-testid="cost-results"') :]
        volcano_cell = results.split('data-testid="total-volcano"', 1)[1].split("</td>")[0]
        assert 'data-missing="true"' in volcano_cell and "missing cost inputs" in volcano_cell
        volcano_row = results.split(">Volcano</th>", 1)[1].split("</tr>")[0]
        assert "0.00" not in volcano_row and "%" not in volcano_row
        assert 'data-testid="total-slurm"><strong>' in results
        # One line in the chart (Slurm's), and a note under it naming who is left out.
        svg = results.split("<svg", 1)[1].split("</svg>")[0]
        assert svg.count("<polyline") == 1 and ">Slurm<" in svg and "Volcano" not in svg
        note = results.split('data-testid="cost-chart-left-out">', 1)[1].split("</p>")[0]
        assert note == "Not in the chart, because their cost inputs are missing: Volcano."

    # Once someone saves Volcano's inputs (zeros included), it is costed and drawn.
    services.cost_input_save(user=owner, candidate=volcano, expected_version=0)
    body = client.get(page).content.decode()
    assert "missing cost inputs" not in body and 'data-testid="cost-chart-left-out"' not in body
    assert body.split("<svg", 1)[1].split("</svg>")[0].count("<polyline") == 2


def test_missing_cost_inputs_in_chinese(client, evaluation, owner):
    add_candidates(evaluation, owner, "slurm")
    client.force_login(owner)
    client.post(reverse("set_language"), {"language": "zh-hans", "next": "/"})
    with translation.override("en"):  # the request's language must not outlive the test
        body = client.get(url("costs", evaluation)).content.decode()
    assert "尚未填写成本数据" in body
    assert "以下候选方案尚未填写成本数据，因此未画入图表：Slurm。" in body
    assert "<polyline" not in body
