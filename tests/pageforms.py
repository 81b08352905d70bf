"""Page forms as the HTML has them: every way a page posts (a <form>, an element with hx-post,
an upload), with the values the page holds, found by walking the URLconf and parsing each page.
Used by the walks that post every form (the hostile corpus, the round trip)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urlencode, urlsplit

from django.urls import Resolver404, resolve, reverse

from tests.routes import walk

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}


@dataclass
class Node:
    tag: str
    attrs: dict
    parent: Node | None
    children: list = field(default_factory=list)
    text: str = ""

    def walk(self):
        for child in self.children:
            yield child
            yield from child.walk()

    def ancestors(self):
        node = self.parent
        while node is not None:
            yield node
            node = node.parent


class TreeBuilder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {}, None)
        self.open = [self.root]

    def handle_starttag(self, tag, attrs):
        node = Node(tag, {k: (v if v is not None else "") for k, v in attrs}, self.open[-1])
        self.open[-1].children.append(node)
        if tag not in VOID:
            self.open.append(node)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.open.pop()

    def handle_endtag(self, tag):
        for i in range(len(self.open) - 1, 0, -1):
            if self.open[i].tag == tag:
                del self.open[i:]
                return

    def handle_data(self, data):
        self.open[-1].text += data


def parse_html(html: str) -> Node:
    builder = TreeBuilder()
    builder.feed(html)
    return builder.root


@dataclass
class PageField:
    name: str
    kind: str
    values: list  # what the page would send: one value, or several for multiple choices
    options: list = field(default_factory=list)  # the values a choice offers

    @property
    def short(self) -> str:
        """The name without its form prefix (c12-explanation: explanation)."""
        return self.name.rsplit("-", 1)[-1]


@dataclass
class PageForm:
    route: str
    path: str
    found_on: str
    fields: list
    extra: dict  # fixed values: hx-vals, the action router key
    multipart: bool
    htmx: bool

    @property
    def label(self) -> str:
        action = self.extra.get("action") or next(
            (f.values[0] for f in self.fields if f.short in ("action", "target") and f.values),
            "",
        )
        return f"{self.route}{'[' + action + ']' if action else ''}"

    def data(self, replace: str | None = None, value=None) -> dict:
        data = {f.name: list(f.values) for f in self.fields}
        data.update({k: [v] for k, v in self.extra.items()})
        if replace is not None:
            data[replace] = [value]
        return data


CONTROL_TAGS = {"input", "select", "textarea"}


def control_kind(node: Node) -> str:
    """The kind of field (as MAY_ACCEPT names them) a control holds."""
    name, kind = node.attrs.get("name", ""), node.attrs.get("type", "text").lower()
    if node.tag == "select" or kind == "radio":
        return "choice"
    if node.tag == "textarea":
        return "text"
    if kind == "checkbox":
        return "bool" if node.attrs.get("value", "on") == "on" else "choice"
    if name.startswith("initial-"):
        # Django's show_hidden_initial: the value a box showed, only compared with what is sent
        # to tell a change; like the box itself, any value reads as ticked or not.
        return "bool"
    if name.rsplit("-", 1)[-1] == "version":
        return "version"
    if kind == "hidden" or node.tag == "button":
        return "id" if node.attrs.get("value", "").isdigit() else "choice"
    return {
        "number": "number",
        "file": "file",
        "date": "date",
        "url": "url",
        "email": "text",
        "search": "text",
    }.get(kind, "text")


def control_options(node: Node) -> list:
    if node.tag == "select":
        return [o.attrs.get("value", o.text.strip()) for o in node.walk() if o.tag == "option"]
    return [node.attrs.get("value", "on")]


def control_values(node: Node) -> list:
    kind = node.attrs.get("type", "text").lower()
    if node.tag == "button":
        return [node.attrs.get("value", "")]
    if node.tag == "textarea":
        return [node.text.removeprefix("\n")]
    if node.tag == "select":
        options = [o for o in node.walk() if o.tag == "option"]
        chosen = [o for o in options if "selected" in o.attrs] or [
            o for o in options if o.attrs.get("value", o.text.strip())
        ][:1]
        return [o.attrs.get("value", o.text.strip()) for o in chosen]
    if kind in ("checkbox", "radio"):
        return [node.attrs.get("value", "on")] if "checked" in node.attrs else []
    if kind == "file":
        return []
    return [node.attrs.get("value", "")]


def controls(nodes) -> list[Node]:
    """The controls that send a value; of the named submit buttons, the first (as if pressed)."""
    nodes = list(nodes)
    found = [
        n
        for n in nodes
        if n.tag in CONTROL_TAGS
        and n.attrs.get("name")
        and "disabled" not in n.attrs
        and n.attrs.get("type", "").lower() not in ("submit", "button", "reset", "image")
    ]
    buttons = [
        n
        for n in nodes
        if n.tag == "button"
        and n.attrs.get("name")
        and n.attrs.get("type", "submit") == "submit"
        and "hx-post" not in n.attrs
    ]
    return found + buttons


def fields_of(nodes: list[Node]) -> list[PageField]:
    """The fields a list of controls sends (radio and checkbox groups merged by name)."""
    out: dict[str, PageField] = {}
    for node in nodes:
        name = node.attrs["name"]
        if name == "csrfmiddlewaretoken":
            continue
        if name in out:
            if node.tag != "button":
                out[name].values += control_values(node)
            out[name].options += control_options(node)
        else:
            out[name] = PageField(
                name, control_kind(node), control_values(node), control_options(node)
            )
    return list(out.values())


def by_selector(root: Node, selector: str) -> list[Node]:
    """The controls an hx-include selector names: `#id` or `#id [name=x]`."""
    match = re.fullmatch(r"#([\w-]+)(?:\s+\[name=([\w-]+)\])?", selector.strip())
    assert match, f"an hx-include this test does not read: {selector!r}"
    element_id, name = match.groups()
    found = next((n for n in root.walk() if n.attrs.get("id") == element_id), None)
    if found is None:
        return []
    inside = [found, *found.walk()]
    return [n for n in controls(inside) if name is None or n.attrs["name"] == name]


def forms_on(html: str, page: str) -> list[PageForm]:
    """Every way the page posts: <form method=post>, elements with hx-post (an input that
    saves on change, a button with hx-vals), and file inputs with data-upload (each sends
    itself, as `file`, through the form the page holds for them: static/js/app.js), with the
    values the page holds."""
    root = parse_html(html)
    found = []
    for node in root.walk():
        is_form = node.tag == "form" and node.attrs.get("method", "get").lower() == "post"
        upload = node.attrs.get("data-upload")
        if not (is_form or "hx-post" in node.attrs or upload):
            continue
        target = upload or node.attrs.get("hx-post") or node.attrs.get("action") or page
        if upload:
            form = next(n for n in root.walk() if n.attrs.get("id") == "evidence-upload")
            node.attrs["name"] = "file"  # as the script names it when it moves it there
        else:
            form = (
                node
                if node.tag == "form"
                else next((a for a in node.ancestors() if a.tag == "form"), None)
            )
        nodes = controls(form.walk()) if form is not None else []
        if node.tag != "form" and node not in nodes and node.attrs.get("name"):
            nodes.append(node)  # an input with hx-post sends itself
        for selector in filter(None, node.attrs.get("hx-include", "").split(",")):
            nodes += [n for n in by_selector(root, selector) if n not in nodes]
        extra = json.loads(node.attrs.get("hx-vals") or "{}")
        htmx = "hx-post" in node.attrs
        multipart = (form or node).attrs.get("enctype", "") == "multipart/form-data"
        path = urlsplit(target).path
        try:
            match = resolve(path)
        except Resolver404:
            continue
        found.append(
            PageForm(
                route=match.view_name,
                path=path,
                found_on=page,
                fields=[f for f in fields_of(nodes) if f.name not in extra],
                extra={k: str(v) for k, v in extra.items()},
                multipart=multipart,
                htmx=htmx,
            )
        )
    return found


def discover_page_forms(client, evaluation) -> tuple[list[PageForm], set[str]]:
    """The forms of every page of the evaluation (and the new-evaluation page), one of each
    kind; and the routes that take a POST."""
    routes = [("evaluations:evaluation_create", reverse("evaluations:evaluation_create"))]
    routes += list(walk(evaluation))
    views = {name: getattr(resolve(path).func, "view_class", None) for name, path in routes}
    post_routes = {name for name, view in views.items() if hasattr(view, "post")}
    pages = {}  # one page per route: a second candidate's matrix shows the same forms
    for name, path in routes:
        if hasattr(views[name], "get"):
            pages.setdefault(name, path)
    # The decided gate's list, with an acknowledgement form per open high reminder.
    gate = reverse("evaluations:evaluation_detail", args=[evaluation.pk]) + "?gate=1"
    forms: dict[tuple, PageForm] = {}  # one per route and action: the one with most fields
    for page in [*pages.values(), gate]:
        response = client.get(page)
        if response.status_code != 200 or "html" not in response.get("Content-Type", ""):
            continue
        for form in forms_on(response.content.decode(), page):
            key = (form.route, form.label, form.htmx)
            if form.route not in post_routes:
                continue
            if key not in forms or len(form.fields) > len(forms[key].fields):
                forms[key] = form
    return list(forms.values()), post_routes


def page_request(client, form: PageForm, data: dict):
    headers = {"HTTP_HX_REQUEST": "true"} if form.htmx else {}
    if form.multipart:
        body = {k: (v if len(v) != 1 else v[0]) for k, v in data.items()}
        return client.post(form.path, body, **headers)
    return client.post(
        form.path,
        urlencode(data, doseq=True),
        content_type="application/x-www-form-urlencoded",
        **headers,
    )


# Fields a form carries to route or guard the write, not input: sent as the page has them.
FIXED = {"action", "target", "version", "choose_sections", "csrfmiddlewaretoken"}


def fill(form: PageForm, overrides: dict) -> None:
    """Give the fields a person would fill in before saving a value: the first offered choice,
    a line of text; then what World.page_overrides says this form needs."""
    for f in form.fields:
        if any(v != "" for v in f.values) or f.kind == "file":
            continue
        if f.kind in ("choice", "id") and f.options:
            f.values = [next((o for o in f.options if o), f.options[0])]
        elif f.kind == "text":
            f.values = [f"Hostile corpus {f.short}"]
    for f in form.fields:
        if f.short in overrides:
            f.values = [overrides[f.short]]
