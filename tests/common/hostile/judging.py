"""What a request changed (Fingerprint), the tally of verdicts, and sending a page form's
request and judging its answer."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.apps import apps
from django.contrib.messages import constants as message_levels
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection, transaction

from tests.common.hostile.api_ops import api_verdict
from tests.common.hostile.corpus import (
    CORPUS,
    FREE_TEXT,
    KNOWN_GAPS,
    MUST_BE_400,
    kind_of,
    may_accept,
)
from tests.pageforms import FIXED, PageForm, page_request
from tests.sampling import one_of_each

# --- what a request changed ------------------------------------------------------------------

APP_LABELS = {"auth", "catalog", "evaluations", "poc", "responsibility", "reports"}


class Fingerprint:
    """One query over every table of the apps, one scan per table: row count, highest id, and
    sums of numbers and of text lengths, so a row added, removed or changed in place shows."""

    TEXT = {"CharField", "TextField", "SlugField", "URLField", "JSONField", "EmailField"}
    NUMBER = {"IntegerField", "PositiveIntegerField", "DecimalField", "BigIntegerField"}
    DISTINCT = {"BooleanField", "DateField", "DateTimeField", "ForeignKey"}

    def __init__(self):
        quote = connection.ops.quote_name
        tables = []
        for model in apps.get_models(include_auto_created=True):
            meta = model._meta
            if meta.app_label not in APP_LABELS or meta.model_name in ("permission",):
                continue
            aggregates = ["COUNT(*)", f"MAX({quote(meta.pk.column)})"]
            history = meta.model_name.startswith("historical")  # rows only ever added
            for f in [] if history else meta.concrete_fields:
                column, internal = quote(f.column), f.get_internal_type()
                if internal in self.TEXT:
                    aggregates.append(f"SUM(LENGTH(CAST({column} AS TEXT)))")
                elif internal in self.NUMBER:
                    aggregates.append(f"SUM({column})")
                elif internal in self.DISTINCT:
                    aggregates.append(f"COUNT(DISTINCT {column})")
            joined = " || ',' || ".join(f"COALESCE(CAST({a} AS TEXT), '')" for a in aggregates)
            tables.append(f"(SELECT {joined} FROM {quote(meta.db_table)})")
        self.sql = "SELECT " + ", ".join(tables)
        self.tables = len(tables)

    def __call__(self) -> tuple:
        with connection.cursor() as cursor:
            cursor.execute(self.sql)
            return tuple(cursor.fetchone())

    @staticmethod
    def writes() -> int:
        """Rows this connection has inserted, updated or deleted so far, rolled back or not: a
        request that wrote nothing at all cannot have changed anything (cheap, so the full
        fingerprint is taken only after a refused request that wrote)."""
        if connection.vendor == "postgresql":
            sql = (
                "SELECT COALESCE(SUM(n_tup_ins + n_tup_upd + n_tup_del), 0) "
                "FROM pg_stat_xact_user_tables"
            )
        else:
            sql = "SELECT total_changes()"
        with connection.cursor() as cursor:
            cursor.execute(sql)
            return int(cursor.fetchone()[0])


# --- sending one request and judging its answer ----------------------------------------------


@dataclass
class Tally:
    targets: int = 0
    fields: int = 0
    requests: int = 0
    sent: set = field(default_factory=set)  # the labels of the values sent
    accepted: int = 0
    refused: int = 0
    failures: list = field(default_factory=list)
    gaps_met: dict = field(default_factory=dict)  # KNOWN_GAPS entry -> how often it was met

    def fail(self, *what):
        """Record a failure: (target, field, field kind, value label, what went wrong, ...);
        one that KNOWN_GAPS describes is counted there instead."""
        target, name, _kind, label = (*map(str, what), "", "", "")[:4]
        for i, (pattern, names, labels, _why) in enumerate(KNOWN_GAPS):
            if re.fullmatch(pattern, target) and name in names and label in labels:
                self.gaps_met[i] = self.gaps_met.get(i, 0) + 1
                return
        self.failures.append(" | ".join(str(w) for w in what))

    def gaps_gone(self, *, api: bool) -> list:
        """KNOWN_GAPS entries of these targets (API or pages) that no request meets any more."""
        return [
            gap[3]
            for i, gap in enumerate(KNOWN_GAPS)
            if ("/api/" in gap[0]) == api and i not in self.gaps_met
        ]

    def report(self, title: str) -> str:
        shown = "\n".join(self.failures[:200])
        more = len(self.failures) - 200
        gaps = "".join(
            f"\nknown gap, met {n}×: {KNOWN_GAPS[i][3]}" for i, n in self.gaps_met.items()
        )
        return (
            f"{title}: {self.targets} targets, {self.fields} fields, {self.requests} requests "
            f"({self.accepted} accepted, {self.refused} refused), "
            f"{len(self.failures)} failures{gaps}\n{shown}"
            + (f"\n… and {more} more" if more > 0 else "")
        )


def in_savepoint(send, fingerprint, before, refused):
    """Send one request; return (response or exception, whether a refused request changed the
    database). What it wrote is rolled back, so the next request meets the same saved state."""
    try:
        with transaction.atomic():
            writes = fingerprint.writes()
            response = send()
            changed = (
                refused(response) and fingerprint.writes() != writes and fingerprint() != before
            )
            transaction.set_rollback(True)
    except Exception as exc:  # a view that raised: the test client re-raises it
        return exc, False
    return response, changed


def error_messages(response) -> list[str]:
    return [
        m.message for m in get_messages(response.wsgi_request) if m.level >= message_levels.ERROR
    ]


ERROR_MARKERS = ('class="errors', "errorlist", 'role="alert"')


def page_verdict(response) -> tuple[str, str]:
    """('accepted' | 'refused' | 'bad', why) for a page's answer."""
    status = response.status_code
    if status >= 500:
        return "bad", f"{status}"
    if status in (301, 302, 303):
        location = response.get("Location", "")
        if "/accounts/login/" in location:
            return "bad", "signed out"
        errors = error_messages(response)
        return ("refused", errors[0][:80]) if errors else ("accepted", f"{status}")
    if status < 300:
        return "accepted", f"{status}"
    body = response.content.decode(errors="replace")
    if response.get("Content-Type", "").startswith("text/plain"):
        return ("refused", body[:80]) if body.strip() else ("bad", f"{status} with no message")
    if status in (400, 409, 428) and not any(m in body for m in ERROR_MARKERS):
        return "bad", f"{status} without a message in the page"
    return "refused", f"{status}"


def upload(name: str, content: bytes | None = None) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, content or b"measured 12 s\n", "text/plain")


def run_page_form(client, form: PageForm, tally: Tally, fingerprint, before, file=None):
    """`file`: (name, content) of the valid file the form takes (World.upload_for)."""
    file_fields = {f.name for f in form.fields if f.kind == "file"}
    base_name, content = file or ("run.txt", None)

    def send(data, file_name=None, file_field=None):
        def go():
            client.cookies.pop("messages", None)  # only this request's messages count
            if not file_fields:
                return page_request(client, form, data)
            files = {
                n: upload(file_name if n == file_field else base_name, content) for n in file_fields
            }
            return client.post(form.path, {**flat_data(data), **files}, **htmx_headers(form))

        return in_savepoint(go, fingerprint, before, lambda r: page_verdict(r)[0] != "accepted")

    base, _changed = send(form.data())
    if isinstance(base, Exception) or page_verdict(base)[0] != "accepted":
        tally.fail(form.label, "the page's own values are refused", describe_response(base))
        return
    tally.targets += 1
    for fld in form.fields:
        if fld.short in FIXED:
            continue
        tally.fields += 1
        sent = [value for value in CORPUS if value.page is not None]
        for value in one_of_each(sent, kind=kind_of, key=f"{form.label} {fld.short}"):
            if fld.kind == "file":
                response, changed = send(form.data(), value.page, fld.name)
            else:
                response, changed = send(form.data(fld.name, value.page))
            tally.requests += 1
            tally.sent.add(value.label)
            judge(tally, form.label, fld.short, fld.kind, value, response, changed, page=True)


def flat_data(data: dict) -> dict:
    return {k: (v if len(v) != 1 else v[0]) for k, v in data.items()}


def htmx_headers(form: PageForm) -> dict:
    return {"HTTP_HX_REQUEST": "true"} if form.htmx else {}


def describe_response(response) -> str:
    if isinstance(response, Exception):
        return f"raised {type(response).__name__}: {str(response)[:200]}"
    body = getattr(response, "content", b"").decode(errors="replace")
    errors = re.findall(r'class="(?:errors|errorlist)[^>]*>(.{0,200}?)</', body, re.S)
    shown = " / ".join(errors) if errors else body[:300]
    return f"{response.status_code} {' '.join(shown.split())}"


def judge(tally, target, name, kind, value, response, changed, *, page, nullable=False):
    where = (target, name, kind, value.label)
    if isinstance(response, Exception):
        tally.fail(*where, describe_response(response))
        return
    if page:
        verdict, why = page_verdict(response)
    else:
        verdict, why = api_verdict(response, name)
    if verdict == "bad":
        tally.fail(*where, why, describe_response(response)[:200])
        return
    if verdict == "accepted":
        tally.accepted += 1
        if not may_accept(value, kind, nullable):
            tally.fail(*where, f"accepted ({why}); it must be refused")
        return
    tally.refused += 1
    if changed:
        tally.fail(*where, f"refused ({why}) but the database changed")
    if value.kind in MUST_BE_400 and kind in FREE_TEXT:
        status = response.status_code
        if status != 400 and status not in (301, 302, 303):
            tally.fail(*where, f"refused with {status}; expected 400")
