"""Finding the person to add as a member: by username, name or e-mail, as an owner types.

Only active accounts are offered, never the evaluation's members, and never more than a few at a
time: the list answers a search, it is not a directory of the company."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db.models import Q, Value
from django.db.models.functions import Concat, Trim
from django.utils.translation import gettext as _

from common.people import person_name

OFFERED = 10


def _people():
    """Every account, with its name written both ways ("Li Wang" and "WangLi", as 王丽)."""
    return get_user_model().objects.annotate(
        first_last=Trim(Concat("first_name", Value(" "), "last_name")),
        last_first=Concat("last_name", "first_name"),
    )


def people_matching(text: str, *, evaluation, limit: int = OFFERED) -> list:
    """Up to `limit` active people whose username, e-mail or name holds every word typed, who
    are not members of the evaluation yet; an exact username first."""
    words = text.split()
    if not words:
        return []
    found = _people().filter(is_active=True).exclude(evaluation_memberships__evaluation=evaluation)
    for word in words:
        found = found.filter(
            Q(username__icontains=word)
            | Q(email__icontains=word)
            | Q(first_last__icontains=word)
            | Q(last_first__icontains=word)
        )
    exact = list(found.filter(username__iexact=text.strip())[:1])
    rest = found.exclude(pk__in=[p.pk for p in exact]).order_by("username")
    return exact + list(rest[: limit - len(exact)])


def person_named(text: str):
    """The one person `text` names: a username, else an e-mail address or a full name only one
    account has. Raises ValueError with a message the owner can act on."""
    text = text.strip()
    people = _people()
    person = people.filter(username=text).first() or people.filter(username__iexact=text).first()
    if person is not None:
        return person
    same = Q(email__iexact=text) | Q(first_last__iexact=text) | Q(last_first__iexact=text)
    found = list(people.filter(same).order_by("username")[:OFFERED]) if text else []
    if len(found) == 1:
        return found[0]
    if not found:
        raise ValueError(
            _(
                "Nobody is called '%(name)s'. Type part of a name, a username or an e-mail "
                "address, and pick the person from the list."
            )
            % {"name": text}
        )
    names = ", ".join(f"{person_name(p)} ({p.username})" for p in found)
    raise ValueError(
        _("Several people match '%(name)s': %(people)s. Type the username of the one you mean.")
        % {"name": text, "people": names}
    )
