"""The writer of bench/poc_session.py: a member saving what a browser saves during a POC, through
the pages' own forms. It opens the scorecard (one test group) and the five-questions page once,
as a browser does, reads each form's fields, version and the CSRF token htmx sends, and then
saves, alternately, a score in a scorecard cell and an answer to one of the five questions:
an htmx POST of the form's fields with the value changed, after which it keeps what the answer
swaps in (the cell with its new version, or the answer's new version out of band), as the page
would. 409 (stale) and 428 (no version) are conflicts, counted apart from errors.

The pages are reached through a transport: HttpTransport (HTTP to the bench's gunicorn, as
production is reached behind a TLS proxy), or anything with the same `send` and `origin` (the
test uses Django's test client with CSRF checks on)."""

from __future__ import annotations

import http.client
import time
from dataclasses import dataclass
from urllib.parse import urlencode

from bench.poc_session_html import PageForm, form_in, htmx_csrf_token, out_of_band_values, parse
from bench.scale_server import csrf_secret

CONFLICTS = (409, 428)
SCORES = ("2.5", "3.5")  # a cell's draft moves between these, so each save changes it


@dataclass
class Reply:
    status: int | str  # the HTTP status, or the exception's name when there was no answer
    text: str
    seconds: float


class HttpTransport:
    """Requests as a signed-in browser behind the TLS proxy sends them, one connection each
    (gunicorn's sync workers close it after every answer)."""

    def __init__(self, port: int, session: str):
        self.port = port
        self.session = session
        self.origin = f"https://127.0.0.1:{port}"

    def send(self, method: str, path: str, headers: dict | None = None, body: str = "") -> Reply:
        sent = {
            "X-Forwarded-Proto": "https",
            "Accept-Language": "en",
            "Cookie": f"sessionid={self.session}; csrftoken={csrf_secret(self.session)}",
            **(headers or {}),
        }
        if method == "POST":
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=180)
        start = time.perf_counter()
        try:
            connection.request(method, path, body=body.encode() or None, headers=sent)
            response = connection.getresponse()
            text = response.read().decode("utf-8", "replace")
            return Reply(response.status, text, time.perf_counter() - start)
        except (OSError, http.client.HTTPException) as exc:
            return Reply(type(exc).__name__, "", time.perf_counter() - start)
        finally:
            connection.close()


@dataclass
class Save:
    kind: str  # "score" or "answer"
    status: int | str
    seconds: float

    @property
    def outcome(self) -> str:
        if self.status == 200:
            return "saved"
        return "conflict" if self.status in CONFLICTS else "error"


class WriterPageMissing(RuntimeError):
    """A page the writer opens answered something else than the form it needs."""


class Writer:
    """`cells`: (plan case id, candidate id) of one test group (`group`), which the writer may
    score (a member who declared no conflict and has not submitted there); `answers`:
    (candidate id, question key) of the five questions, which the writer may edit."""

    def __init__(self, transport, evaluation_pk: int, group: str, cells, answers):
        self.transport = transport
        self.pk = evaluation_pk
        self.scorecard_path = f"/evaluations/{evaluation_pk}/poc/?{urlencode({'group': group})}"
        self.questions_path = f"/evaluations/{evaluation_pk}/questions/"
        self.cell_ids = [f"cell-{case}-{candidate}" for case, candidate in cells]
        self.answer_ids = [f"answer-{candidate}-{key}" for candidate, key in answers]
        self.forms: dict[str, PageForm] = {}
        self.tokens: dict[str, str] = {}  # page path → the CSRF token htmx sends from it
        self.saves = 0

    def open(self) -> None:
        """Load the two pages once, as a browser does before the member starts typing."""
        for path, ids, css_class in (
            (self.scorecard_path, self.cell_ids, "scoreform"),
            (self.questions_path, self.answer_ids, ""),
        ):
            reply = self.transport.send("GET", path)
            if reply.status != 200:
                raise WriterPageMissing(f"{path} answered {reply.status}")
            page = parse(reply.text)
            self.tokens[path] = htmx_csrf_token(page) or ""
            for element_id in ids:
                form = form_in(page, element_id, css_class)
                if form is None:
                    raise WriterPageMissing(f"{path} has no form in #{element_id}")
                self.forms[element_id] = form

    def save(self) -> Save:
        """The next save: even ones a score, odd ones an answer, each target in turn."""
        k = self.saves
        self.saves += 1
        if k % 2 == 0:
            element_id = self.cell_ids[(k // 2) % len(self.cell_ids)]
            return self.save_score(element_id, k)
        element_id = self.answer_ids[(k // 2) % len(self.answer_ids)]
        return self.save_answer(element_id, k)

    def save_score(self, element_id: str, k: int) -> Save:
        form = self.forms[element_id]
        score = SCORES[1] if form.value("score") == SCORES[0] else SCORES[0]
        form = form.replaced("score", score).replaced(
            "outcome", "passed" if float(score) >= 3 else "failed"
        )
        form = form.replaced("notes", f"POC session bench, save {k + 1}")
        reply = self.post(form, self.scorecard_path, element_id)
        self.keep(element_id, reply, "scoreform")
        return Save("score", reply.status, reply.seconds)

    def save_answer(self, element_id: str, k: int) -> Save:
        form = self.forms[element_id]
        explanation = form.name_ending("-explanation")
        form = form.replaced(explanation, f"Checked during the POC (session bench, save {k + 1}).")
        reply = self.post(form, self.questions_path, element_id)
        if reply.status == 200:  # the row keeps what was typed; its version comes out of band
            version = form.name_ending("-version")
            swapped = out_of_band_values(parse(reply.text))
            self.forms[element_id] = form.replaced(version, swapped.get(version, ""))
        else:
            self.keep(element_id, reply, "")
        return Save("answer", reply.status, reply.seconds)

    def post(self, form: PageForm, page_path: str, element_id: str) -> Reply:
        """What htmx sends for a form on that page: its fields, the CSRF header, its headers."""
        origin = self.transport.origin
        headers = {
            "HX-Request": "true",
            "HX-Target": element_id,
            "HX-Current-URL": origin + page_path,
            "X-CSRFToken": self.tokens[page_path],
            "Origin": origin,
            "Referer": origin + page_path,
        }
        return self.transport.send("POST", form.post_to, headers, urlencode(form.fields))

    def keep(self, element_id: str, reply: Reply, css_class: str) -> None:
        """The form the answer swapped in (a refusal shows the saved version), if it has one."""
        if not reply.text:
            return
        form = form_in(parse(reply.text), element_id, css_class)
        if form is not None:
            self.forms[element_id] = form


def write_at(writer: Writer, rate: float, deadline: float) -> list[Save]:
    """Saves at `rate` a second until `deadline` (perf_counter): one every 1/rate s; a save that
    takes longer delays the next rather than bunching the ones it held up."""
    interval = 1 / rate
    saves: list[Save] = []
    due = time.perf_counter()
    while due < deadline:
        wait = due - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
        saves.append(writer.save())
        due = max(due + interval, time.perf_counter())
    return saves
