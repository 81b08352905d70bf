"""What bench/poc_session.py reads from a page as a browser would: the fields a form sends (its
inputs, checked boxes, chosen options and text areas, with the values the page holds), the CSRF
token htmx sends (the body's hx-headers), the values an htmx answer swaps in out of band (a
row's new version), and the links of a navigation bar."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    children: list[Element] = field(default_factory=list)
    text: str = ""

    def descendants(self):
        for child in self.children:
            yield child
            yield from child.descendants()

    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())


class _Builder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {})
        self.open = [self.root]

    def handle_starttag(self, tag, attrs):
        element = Element(tag, {k: v if v is not None else "" for k, v in attrs})
        self.open[-1].children.append(element)
        if tag not in VOID:
            self.open.append(element)

    def handle_endtag(self, tag):
        for depth in range(len(self.open) - 1, 0, -1):
            if self.open[depth].tag == tag:
                del self.open[depth:]
                return

    def handle_data(self, data):
        self.open[-1].text += data


def parse(html: str) -> Element:
    builder = _Builder()
    builder.feed(html)
    builder.close()
    return builder.root


def by_id(root: Element, element_id: str) -> Element | None:
    return next((e for e in root.descendants() if e.attrs.get("id") == element_id), None)


@dataclass
class PageForm:
    """A form as the page holds it: where htmx posts it, and the (name, value) pairs it sends."""

    post_to: str
    fields: list[tuple[str, str]]

    def values(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for name, value in self.fields:
            out.setdefault(name, []).append(value)
        return out

    def value(self, name: str) -> str | None:
        return next((v for n, v in self.fields if n == name), None)

    def name_ending(self, suffix: str) -> str | None:
        """The full name of the field whose name ends with `suffix` (forms carry a prefix)."""
        return next((n for n, _v in self.fields if n.endswith(suffix)), None)

    def replaced(self, name: str, *values: str) -> PageForm:
        kept = [(n, v) for n, v in self.fields if n != name]
        return PageForm(self.post_to, kept + [(name, v) for v in values])


def form_in(root: Element, element_id: str, css_class: str = "") -> PageForm | None:
    """The form that is (or is the first one inside) the element with this id, optionally the
    first with `css_class`; None when the page has no such form (e.g. the cell is read-only)."""
    element = by_id(root, element_id)
    if element is None:
        return None
    candidates = [element, *element.descendants()]
    form = next(
        (e for e in candidates if e.tag == "form" and (not css_class or css_class in e.classes())),
        None,
    )
    if form is None:
        return None
    return PageForm(form.attrs.get("hx-post") or form.attrs.get("action", ""), controls(form))


def controls(form: Element) -> list[tuple[str, str]]:
    """What the browser sends for the form: named controls that are not buttons or files,
    boxes only when checked, a select's chosen option (or its first)."""
    sent = []
    for e in form.descendants():
        name = e.attrs.get("name")
        if not name or "disabled" in e.attrs:
            continue
        if e.tag == "input":
            kind = e.attrs.get("type", "text").lower()
            if kind in ("submit", "button", "file", "image", "reset"):
                continue
            if kind in ("checkbox", "radio") and "checked" not in e.attrs:
                continue
            sent.append((name, e.attrs.get("value", "on" if kind == "checkbox" else "")))
        elif e.tag == "select":
            options = [o for o in e.descendants() if o.tag == "option"]
            chosen = [o for o in options if "selected" in o.attrs] or options[:1]
            sent.extend((name, o.attrs.get("value", o.text.strip())) for o in chosen)
        elif e.tag == "textarea":
            sent.append((name, e.text.removeprefix("\n")))
    return sent


def options_of(root: Element, name: str) -> list[str]:
    """The values a choice field offers: a select's options, or the boxes of that name."""
    values = []
    for e in root.descendants():
        if e.attrs.get("name") == name and e.tag == "input":
            values.append(e.attrs.get("value", ""))
        elif e.attrs.get("name") == name and e.tag == "select":
            values.extend(o.attrs.get("value", "") for o in e.descendants() if o.tag == "option")
    return values


def htmx_csrf_token(root: Element) -> str | None:
    """The X-CSRFToken header htmx adds to every request (base.html's body hx-headers)."""
    body = next((e for e in root.descendants() if e.tag == "body"), None)
    if body is None or "hx-headers" not in body.attrs:
        return None
    return json.loads(body.attrs["hx-headers"]).get("X-CSRFToken")


def out_of_band_values(root: Element) -> dict[str, str]:
    """name → value of the inputs an htmx answer swaps in out of band (hx-swap-oob)."""
    return {
        e.attrs["name"]: e.attrs.get("value", "")
        for e in root.descendants()
        if e.tag == "input" and "hx-swap-oob" in e.attrs and "name" in e.attrs
    }


def nav_links(root: Element, css_class: str) -> list[str]:
    """The hrefs of the links in every <nav> with this class, in page order."""
    links = []
    for nav in root.descendants():
        if nav.tag == "nav" and css_class in nav.classes():
            links += [
                a.attrs["href"] for a in nav.descendants() if a.tag == "a" and "href" in a.attrs
            ]
    return list(dict.fromkeys(links))
