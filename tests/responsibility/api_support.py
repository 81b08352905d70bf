"""What the responsibility API tests share: an API client, the URLs, and small readers."""

from decimal import Decimal

from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from evaluations.models import MemberRole
from responsibility import services
from responsibility.models import Area, AreaRow, CostInput, CostSettings, Party
from tests.factories import add_candidates

READERS = [MemberRole.OWNER, MemberRole.EDITOR, MemberRole.REVIEWER, MemberRole.VIEWER]
EDITORS = [MemberRole.OWNER, MemberRole.EDITOR]
READ_ONLY = [MemberRole.REVIEWER, MemberRole.VIEWER]


def client_for(user=None) -> APIClient:
    client = APIClient()
    client.default_format = "json"
    if user is not None:
        client.force_authenticate(user)
    return client


def url(evaluation, rest=""):
    return f"/api/evaluations/{evaluation.pk}/{rest}"


def row_url(evaluation, candidate, area_key, rest=""):
    return url(evaluation, f"matrices/{candidate.pk}/rows/{area_key}/{rest}")


def area_count() -> int:
    """Areas a single solution's matrix has (not those between a stack's layers)."""
    return Area.objects.filter(is_active=True, stack_only=False).count()


def nothing_written(evaluation) -> bool:
    return not (
        AreaRow.objects.exists()
        or Party.objects.filter(evaluation=evaluation).exists()
        or CostSettings.objects.exists()
        or CostInput.objects.exists()
    )


def queries(client, path) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(path)
    assert response.status_code == 200
    return len(captured)


def prefilled(evaluation, owner, *slugs):
    candidates = add_candidates(evaluation, owner, *slugs)
    for candidate in candidates:
        services.matrix_prefill(user=owner, candidate=candidate)
        services.cost_input_save(
            user=owner, candidate=candidate, expected_version=None, one_off=Decimal("1000")
        )
    return candidates
