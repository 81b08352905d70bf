"""common.text.shorten: a text cut to a length never ends inside a word (English) and cuts
Chinese where the limit falls."""

import pytest

from common.text import shorten

CASES = [
    ("short", 10, "short"),
    (None, 5, ""),
    ("exactly ten", 11, "exactly ten"),
    # English: back to the last space, trailing punctuation dropped.
    (
        "what an enterprise platform is built to cover",
        41,
        "what an enterprise platform is built to…",
    ),
    ("leads with 4.10 (next: the stack with 3.81)", 42, "leads with 4.10 (next: the stack with…"),
    ("Kubernetes + Volcano + enterprise platform", 26, "Kubernetes + Volcano…"),
    ("spread of 1.5 points, or more", 21, "spread of 1.5…"),
    # One word longer than half the room: cut inside it after all.
    ("Supercalifragilisticexpialidocious", 10, "Supercali…"),
    # Chinese breaks between any two characters.
    ("企业级容器平台最适合本场景的治理需求", 8, "企业级容器平台…"),
    ("混合部署 Kubernetes 集群", 7, "混合部署…"),  # the English word is kept whole
]


@pytest.mark.parametrize(("text", "limit", "expected"), CASES)
def test_shorten(text, limit, expected):
    assert shorten(text, limit) == expected
    assert len(shorten(text, limit)) <= limit


@pytest.mark.parametrize(
    ("first", "last", "username", "shown"),
    [
        ("丽", "王", "wangli", "王丽"),  # a Chinese name runs family name first, no space
        ("Lin", "Chen", "lchen", "Lin Chen"),
        ("", "", "pat", "pat"),
        ("欧阳", "", "oy", "欧阳"),
    ],
)
def test_a_person_is_named_as_their_language_writes_it(first, last, username, shown):
    from django.contrib.auth import get_user_model

    from common.people import person_name

    user = get_user_model()(username=username, first_name=first, last_name=last)
    assert person_name(user) == shown
    assert person_name(None) == ""
