"""Every page of an evaluation renders for every member, in both languages, for an evaluation
holding every kind of object a user can create (tests.factories.make_everything), open and
sealed; and every report section previews. The routes come from the URLconf, not a list kept by
hand, so a new page is walked as soon as it exists."""

import pytest
from django.urls import reverse
from django.utils import translation

from evaluations.models import MemberRole
from reports.sections import ALL as ALL_SECTIONS
from tests.factories import make_everything
from tests.routes import OWNER_ONLY, walk

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

MEMBER_ROLES = [MemberRole.OWNER, MemberRole.EDITOR, MemberRole.REVIEWER, MemberRole.VIEWER]


@pytest.mark.parametrize("sealed", [False, True], ids=["open", "sealed"])
def test_every_page_renders_for_every_member(client, owner, people, sealed):
    evaluation = make_everything(owner, people, sealed=sealed)
    routes = list(walk(evaluation))
    names = {name for name, _path in routes}
    assert {"poc:plan", "poc:scorecard", "responsibility:matrix", "reports:report_preview"} <= (
        names
    )
    for role in MEMBER_ROLES:
        client.force_login(people[role])
        for language in ("en", "zh-hans"):
            with translation.override(language):
                for name, path in routes:
                    response = client.get(path, HTTP_ACCEPT_LANGUAGE=language)
                    assert response.status_code < 500, (role, language, name, path)
                    # POST-only routes answer 405; evidence blind scoring hides from a member who
                    # has not scored that cell answers 404, like a file that does not exist
                    assert response.status_code in (200, 403, 404, 405), (role, name, path)
                    if response.status_code == 403 and name in OWNER_ONLY:
                        assert role != MemberRole.OWNER, name
                    elif response.status_code in (403, 404):
                        assert role in (MemberRole.EDITOR, MemberRole.REVIEWER), (role, name)
                        assert name in ("poc:evidence_download", "reports:report_preview"), name


@pytest.mark.parametrize("sealed", [False, True], ids=["open", "sealed"])
def test_every_report_section_previews(client, owner, people, sealed):
    evaluation = make_everything(owner, people, sealed=sealed)
    client.force_login(owner)
    preview = reverse("reports:report_preview", kwargs={"pk": evaluation.pk})
    for language in ("en", "zh-hans"):
        for section in ALL_SECTIONS:
            response = client.get(preview, {"language": language, "sections": section})
            assert response.status_code == 200, (language, section)
        everything = client.get(preview, {"language": language})
        assert everything.status_code == 200
        assert "Own case with a metric" in everything.content.decode()
        assert "Integrator Ltd" in everything.content.decode()


def test_lists_use_the_separator_of_the_language(client, owner, people):
    evaluation = make_everything(owner, people)
    client.force_login(owner)
    preview = reverse("reports:report_preview", kwargs={"pk": evaluation.pk})
    two = ["summary", "types"]  # the cover lists the chosen sections
    zh = client.get(preview, {"language": "zh-hans", "sections": two}).content.decode()
    en = client.get(preview, {"language": "en", "sections": two}).content.decode()
    assert "、" in zh and "、" not in en and "Executive summary, " in en
