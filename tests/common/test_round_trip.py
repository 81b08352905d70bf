"""Every form that edits a saved value, saved twice in each language, keeps every value.

A browser sends back what its controls hold, and a control holds only what it can read: a date
field takes an ISO date (2026-12-04) and shows anything else (2026/12/04) as empty, a number
field the same for anything that is not a plain number ("1,5"). So a page that renders a value
in its language's format loses it the next time someone saves the form for another reason.

For every versioned form of every page of an evaluation holding every kind of object (the
forms found by walking the URLconf and parsing the pages, tests/pageforms.py), in English and
Chinese: fill the empty fields, read the form as a browser would, save it, read it again from
the page, save it again as it stands, and read it a third time. No value the page renders may
be one the browser cannot hold, no value saved may come back empty, and the second save may
change nothing.
"""

from __future__ import annotations

import re

import pytest
from django.contrib.messages import constants as message_levels
from django.contrib.messages import get_messages
from django.core.cache import caches
from django.db import transaction

from tests.factories import make_everything
from tests.pageforms import FIXED, PageForm, discover_page_forms, fill, forms_on, page_request

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

# What a browser's control keeps of a value it is given (the HTML standard's value sanitisation:
# anything else becomes the empty string).
HOLDS = {
    "date": re.compile(r"\d{4}-\d{2}-\d{2}"),
    "number": re.compile(r"-?(\d+(\.\d+)?|\.\d+)([eE][-+]?\d+)?"),
}
# Forms that move a row to another state (the form that undoes it takes its place): not edits.
TRANSITIONS = {"eliminate", "restore", "allow", "revoke"}
# Forms that record something new and give way to another form once saved: acknowledging a
# reminder (withdrawing takes its place), recording a support term (the tab's form records the
# term picked from its menus; changing one opens it by address, a form this walk does not reach).
RECORDS = {"evaluations:reminder_acknowledge", "responsibility:support"}
# Values that make a form keep all of its fields (a relationship with the vendor keeps its
# description; without one the description is cleared, on purpose).
OVERRIDES = {"poc:conflicts[declare]": {"has_conflict": "yes"}}
# A value for an empty field of each kind, so that every field carries one.
FILLED = {"date": "2026-12-04", "number": "1"}


def as_browser_holds(form: PageForm) -> list[str]:
    """Replace each value a control cannot hold by the empty string, as the browser does; the
    fields where that lost a value the page rendered."""
    lost = []
    for f in form.fields:
        pattern = HOLDS.get(f.kind)
        if pattern is None:
            continue
        kept = [v if pattern.fullmatch(v) else "" for v in f.values]
        lost += [f"{f.short}={v!r}" for v, k in zip(f.values, kept, strict=True) if v and not k]
        f.values = kept
    return lost


def values(form: PageForm) -> dict[str, list]:
    return {f.name: sorted(f.values) for f in form.fields if f.short not in FIXED}


def saved(response) -> bool:
    if response.status_code in (301, 302, 303):
        return not any(m.level >= message_levels.ERROR for m in get_messages(response.wsgi_request))
    body = response.content.decode(errors="replace")
    return response.status_code == 200 and 'class="errors' not in body


def refusal(response) -> str:
    """What the page said when it refused a save."""
    said = [m.message for m in get_messages(response.wsgi_request)]
    body = response.content.decode(errors="replace")
    errors = re.findall(r'class="errors[^"]*"[^>]*>(.*?)</', body, re.S)
    return f"{response.status_code} {said} {[e.strip()[:120] for e in errors][:3]}"


def versioned(form: PageForm) -> bool:
    return any(f.short == "version" for f in form.fields)


def identity(form: PageForm) -> tuple:
    """What tells a form from the others of its page: where it posts, its action, and the rows
    it names in hidden fields (a candidate's id)."""
    rows = tuple(sorted((f.name, tuple(f.values)) for f in form.fields if f.kind == "id"))
    names = tuple(sorted(f.name for f in form.fields))
    return form.path, form.label, form.htmx, rows, names


def read_again(client, form: PageForm) -> PageForm | None:
    """The same form as its page shows it now."""
    html = client.get(form.found_on).content.decode()
    return next((f for f in forms_on(html, form.found_on) if identity(f) == identity(form)), None)


def round_trip(client, form: PageForm, where: str) -> list[str]:
    """Fill, save, read, save again, read again: what went wrong."""
    problems = []
    fill(form, OVERRIDES.get(form.label, {}))
    for f in form.fields:
        if f.kind in FILLED and not any(f.values):
            f.values = [FILLED[f.kind]]
    problems += [f"{where}: the browser cannot hold {lost}" for lost in as_browser_holds(form)]
    sent = values(form)
    response = page_request(client, form, form.data())
    if not saved(response):
        return [*problems, f"{where}: the first save was refused: {refusal(response)}"]
    first = read_again(client, form)
    if first is None:
        return [*problems, f"{where}: the form is gone after its save"]
    problems += [f"{where}: after a save, {lost}" for lost in as_browser_holds(first)]
    after_first = values(first)
    problems += [
        f"{where}: {name} was saved as {value} and shows {after_first.get(name)}"
        for name, value in sent.items()
        if any(value) and not any(after_first.get(name, []))
    ]
    response = page_request(client, first, first.data())
    if not saved(response):
        return [*problems, f"{where}: saving it again unchanged was refused: {refusal(response)}"]
    second = read_again(client, form)
    if second is None:
        return [*problems, f"{where}: the form is gone after its second save"]
    as_browser_holds(second)
    after_second = values(second)
    changed = {
        name: (value, after_second.get(name))
        for name, value in after_first.items()
        if after_second.get(name) != value
    }
    if changed:
        problems.append(f"{where}: saving it again changed {changed}")
    return problems


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_every_form_saved_twice_keeps_every_value(client, owner, people, language):
    evaluation = make_everything(owner, people)
    client.force_login(owner)
    client.cookies["django_language"] = language
    forms, _routes = discover_page_forms(client, evaluation)
    forms = [f for f in forms if versioned(f) and not f.multipart]
    assert len(forms) >= 15, [f.label for f in forms]

    problems = []
    for form in forms:
        if form.label.rsplit("[", 1)[-1].rstrip("]") in TRANSITIONS or form.route in RECORDS:
            continue
        # Each form meets the same saved state; kept tabs are filed under the evaluation's stamp,
        # which the rollback hands back to the next form, so none are kept across forms.
        caches["pages"].clear()
        with transaction.atomic():
            problems += round_trip(client, form, f"{form.label} ({form.path}, {language})")
            transaction.set_rollback(True)
    assert not problems, "\n".join(problems)
