"""Internal effort reads as people write it (7.3 FTE), on every page that shows it, whatever the
database adds up in binary floating point (SQLite sums decimals as floats)."""

from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import translation

from responsibility import services
from responsibility.models import Area
from responsibility.selectors import evaluation_matrices
from tests.factories import add_candidates

pytestmark = pytest.mark.django_db

NOISE = ("7.30000000000000", "7.2999999", "6.2499999")


@pytest.fixture
def slurm(evaluation, owner):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    areas = Area.objects.filter(is_active=True, stack_only=False).order_by("pk")
    for area in areas:
        row = slurm.area_rows.filter(area=area).first()
        services.row_update(
            user=owner,
            candidate=slurm,
            area=area,
            expected_version=row.version if row else 0,
            internal_fte="0",
        )
    for area, fte in zip(areas, ("1.1", "2.1", "4.1"), strict=False):
        services.row_update(
            user=owner,
            candidate=slurm,
            area=area,
            expected_version=slurm.area_rows.get(area=area).version,
            internal_fte=fte,
        )
    return slurm


def test_the_effort_total_is_an_exact_decimal(evaluation, slurm):
    for lean in (False, True):
        (matrix,) = evaluation_matrices(evaluation, lean=lean)
        assert matrix.fte_total == Decimal("7.3")
        assert str(matrix.fte_total) in ("7.3", "7.30")


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_overview_and_costs_print_the_effort_without_float_noise(
    client, evaluation, owner, slurm, language
):
    client.force_login(owner)
    client.post(reverse("set_language"), {"language": language, "next": "/"})
    with translation.override("en"):  # the request's language must not outlive the test
        overview = client.get(reverse("responsibility:matrices", args=[evaluation.pk]))
        costs = client.get(reverse("responsibility:costs", args=[evaluation.pk]))
    for page in (overview, costs):
        body = page.content.decode()
        assert not [n for n in NOISE if n in body]
        assert "7.3" in body
    assert "<td>7.3</td>" in overview.content.decode()


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (Decimal("7.30000000000000"), "7.3"),
        (Decimal("6.24999999999999"), "6.25"),
        (Decimal("12.00"), "12"),
        (Decimal("0"), "0"),
        ("1200.50", "1200.5"),
        (None, ""),
        ("n/a", "n/a"),
    ],
)
def test_the_decimal_filter_prints_numbers_as_people_write_them(value, shown):
    from common.templatetags.decimals import decimal

    for language in ("en", "zh-hans"):
        with translation.override(language):
            assert decimal(value) == shown
