"""A person sees their progress: a saved answer reads as answered after a reload, in both
languages, and a question nobody answered reads as not answered."""

import re

import pytest
from django.urls import reverse

from evaluations import services
from evaluations.models import ContextQuestion

pytestmark = pytest.mark.django_db


def row_of(html: str, key: str) -> str:
    start = html.index(f'id="ctx-{key}"')
    return html[start : html.index("</form>", start)]


@pytest.mark.parametrize(
    ("language", "answered", "not_answered"),
    [("en", "Answered", "Not answered"), ("zh-hans", "已回答", "未回答")],
)
def test_a_saved_context_answer_reads_as_answered(
    client, owner, evaluation, language, answered, not_answered
):
    first, second = ContextQuestion.objects.filter(is_active=True).order_by("order")[:2]
    services.context_answer_save(
        user=owner, evaluation=evaluation, question=first, value="yes", expected_version=0
    )
    client.force_login(owner)
    client.cookies["django_language"] = language
    html = client.get(reverse("evaluations:evaluation_context", args=[evaluation.pk])).content
    html = html.decode()
    saved, unsaved = row_of(html, first.key), row_of(html, second.key)
    assert 'data-testid="answered"' in saved and answered in saved
    assert not_answered not in saved
    assert re.search(rf'data-testid="not-answered">\s*{not_answered}', unsaved)
