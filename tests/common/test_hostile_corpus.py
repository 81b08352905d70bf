"""A corpus of hostile values against every page form and every API write, found by walking the
URLconf, the pages' HTML and the OpenAPI schema instead of a list kept by hand.

For each target, each field and each value of CORPUS, one request replaces that field's value in
an otherwise valid submission (the page's own values; a body built from the schema and the
resource's GET). Every answer must be one of:

- a refusal a user can act on: pages answer 400 (or another 4xx) with the message in the page
  or in the htmx fragment, or redirect back with an error message (the forms posted without
  htmx); the API answers 4xx JSON, a 400 naming the field it refused;
- an acceptance (2xx, or a page's redirect without an error message), only where MAY_ACCEPT
  says the value is a legitimate value of that kind of field;

never a 5xx, and a refused request changes nothing (`Fingerprint`). Each request runs in a
savepoint that is rolled back after it is judged, so every request meets the same saved state
and the version it sends is always the current one.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field

import pytest
from django.apps import apps
from django.contrib.messages import constants as message_levels
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection, transaction
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from common import roles
from evaluations.models import MemberRole
from poc import services as poc_services
from tests.conftest import make_user
from tests.factories import CapabilityFactory, make_everything
from tests.pageforms import FIXED, PageForm, discover_page_forms, fill, page_request
from tests.sampling import EXHAUSTIVE, one_of_each

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

# --- the corpus ------------------------------------------------------------------------------

ONE_MB = "x" * (1 << 20)
LONG_NUMBER = "9" * 400  # parses as an int (Python stops at 4,300 digits); no column holds it
HUGE_INT = 2**63  # one past the largest bigint
RAW = "\x01raw:"  # an API value written into the JSON text as it is (1e309 is a JSON number)


@dataclass(frozen=True)
class Value:
    label: str
    kind: str
    page: str | None  # what a form sends (None: not sent to pages)
    api: object  # what a JSON body carries


CORPUS = [
    Value("NaN", "numeral", "NaN", "NaN"),
    Value("sNaN", "numeral", "sNaN", "sNaN"),
    Value("Infinity", "numeral", "Infinity", "Infinity"),
    Value("-Infinity", "numeral", "-Infinity", "-Infinity"),
    Value("1e309", "numeral", "1e309", RAW + "1e309"),
    Value("arabic-indic digits", "numeral", "١٢٣", "١٢٣"),
    Value("1_000", "numeral", "1_000", "1_000"),
    Value("NUL inside text", "nul", "ab\x00cd", "ab\x00cd"),
    Value("bidi override", "bidi", "\u202eevil.exe", "\u202eevil.exe"),
    Value("1 MB string", "huge_text", ONE_MB, ONE_MB),
    Value("400-digit number", "long_number", LONG_NUMBER, LONG_NUMBER),
    Value("-1", "negative", "-1", -1),
    Value("2**63", "huge_int", str(HUGE_INT), HUGE_INT),
    Value("object", "structure", None, {"x": 1}),
    Value("array", "structure", None, [[1]]),  # the wrong shape for a scalar and a list
    Value("null", "null", None, None),
]

# The one rule: where a kind of value is a legitimate value of a kind of field, and so may be
# accepted. Anywhere else it must be refused. A value that may be accepted may be refused too
# (a name field is free to refuse "1e309"), and `null` may be accepted only by nullable fields.
#   field kinds: text (free text, names, notes), file (the value is the upload's name),
#   bool (a checkbox: any value sent means ticked), number, integer, version, id, choice,
#   date, url, list, object.
MAY_ACCEPT = {
    "numeral": {"text", "file", "bool"},  # words in a note; a ticked box
    "bidi": {"text", "bool"},  # right-to-left text in a note is text (not in a file name)
    "long_number": {"text", "file", "bool"},
    "negative": {"text", "file", "bool", "number", "integer"},  # a measured value may be < 0
    "huge_int": {"text", "file", "bool"},
    "nul": {"bool"},  # NUL is never text: PostgreSQL cannot store it
    "huge_text": {"bool"},  # every free-text field has a length limit
    "structure": {"object"},
    "null": set(),
}
# Open findings the corpus still meets, each with what to fix and where (files another change
# owns). A failure they describe is reported, not failed; an entry no request meets any more
# fails the test, so the table only shrinks. (target pattern, field names, value labels, why)
KNOWN_GAPS: list[tuple[str, set[str], set[str], str]] = []

# The default run sends each field one value of each kind (tests/sampling.py), about half of
# the corpus; SHORTLIST_EXHAUSTIVE=1 sends all of it.
REQUESTS_AT_LEAST = 1 if EXHAUSTIVE else 0.5

# In a free-text field these must be refused with 400 (an id field may answer 404).
MUST_BE_400 = {"nul", "huge_text"}
FREE_TEXT = {"text", "file"}


def kind_of(value: Value) -> str:
    return value.kind


def may_accept(value: Value, kind: str, nullable: bool = False) -> bool:
    if value.kind == "null":
        return nullable
    return kind in MAY_ACCEPT[value.kind]


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
            return client.post(form.path, {**_flat(data), **files}, **_htmx(form))

        return in_savepoint(go, fingerprint, before, lambda r: page_verdict(r)[0] != "accepted")

    base, _changed = send(form.data())
    if isinstance(base, Exception) or page_verdict(base)[0] != "accepted":
        tally.fail(form.label, "the page's own values are refused", _describe(base))
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


def _flat(data: dict) -> dict:
    return {k: (v if len(v) != 1 else v[0]) for k, v in data.items()}


def _htmx(form: PageForm) -> dict:
    return {"HTTP_HX_REQUEST": "true"} if form.htmx else {}


def _describe(response) -> str:
    if isinstance(response, Exception):
        return f"raised {type(response).__name__}: {str(response)[:200]}"
    body = getattr(response, "content", b"").decode(errors="replace")
    errors = re.findall(r'class="(?:errors|errorlist)[^>]*>(.{0,200}?)</', body, re.S)
    shown = " / ".join(errors) if errors else body[:300]
    return f"{response.status_code} {' '.join(shown.split())}"


def judge(tally, target, name, kind, value, response, changed, *, page, nullable=False):
    where = (target, name, kind, value.label)
    if isinstance(response, Exception):
        tally.fail(*where, _describe(response))
        return
    if page:
        verdict, why = page_verdict(response)
    else:
        verdict, why = api_verdict(response, name)
    if verdict == "bad":
        tally.fail(*where, why, _describe(response)[:200])
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


# --- API: writes as the OpenAPI schema has them ----------------------------------------------


def api_verdict(response, name: str) -> tuple[str, str]:
    status = response.status_code
    if status >= 500:
        return "bad", f"{status}"
    if status < 300:
        return "accepted", f"{status}"
    try:
        body = json.loads(response.content or b"null")
    except ValueError:
        return "bad", f"{status} is not JSON"
    if not isinstance(body, dict):
        return "bad", f"{status} body is not an object"
    if status == 400:
        if name not in body:
            return "bad", f"400 does not name the field: {str(body)[:120]}"
        return "refused", "400"
    if not body.get("detail"):
        return "bad", f"{status} without a detail"
    return "refused", f"{status}"


def json_body(data: dict) -> str:
    """JSON text; a value starting with RAW goes in as written (1e309 as a number)."""
    raws = {}

    def swap(value):
        if isinstance(value, str) and value.startswith(RAW):
            token = f"__raw{len(raws)}__"
            raws[token] = value[len(RAW) :]
            return token
        if isinstance(value, list):
            return [swap(v) for v in value]
        return value

    text = json.dumps({k: swap(v) for k, v in data.items()})
    for token, raw in raws.items():
        text = text.replace(json.dumps(token), raw)
    return text


@dataclass
class ApiOp:
    method: str
    template: str
    path: str
    properties: dict  # name -> schema
    required: set
    multipart: bool
    as_admin: bool
    fuzzed: set = field(default_factory=set)  # the fields this operation gets the corpus on

    @property
    def label(self) -> str:
        return f"{self.method.upper()} {self.template}"


def resolve_ref(schema: dict, node: dict) -> dict:
    while "$ref" in node:
        node = schema["components"]["schemas"][node["$ref"].rsplit("/", 1)[-1]]
    for combiner in ("allOf", "oneOf", "anyOf"):
        if combiner in node:
            merged = {k: v for k, v in node.items() if k != combiner}
            for part in node[combiner]:
                part = resolve_ref(schema, part)
                if "enum" in part and "enum" in merged:
                    merged["enum"] = [*merged["enum"], *part["enum"]]
                elif part.get("type") != "null" or "enum" not in part:
                    merged = {**part, **merged}
            return merged
    return node


def api_kind(name: str, prop: dict) -> str:
    if name == "version":
        return "version"
    if "enum" in prop:
        return "choice"
    kind, fmt = prop.get("type"), prop.get("format")
    if kind == "array":
        return "list"
    if kind == "string":
        return {"decimal": "number", "date": "date", "date-time": "date", "uri": "url"}.get(
            fmt, "file" if fmt == "binary" else "text"
        )
    return {"integer": "integer", "number": "number", "boolean": "bool"}.get(kind, "object")


def share_fields(ops: list[ApiOp]) -> None:
    """Operations of one resource that take the same fields (a catalog type's POST, PUT and
    PATCH: one serializer) take turns: each field gets the corpus through one of them, in
    turn, so every field meets every value once and every operation meets some of them (each
    still sends its valid body)."""
    groups: dict[tuple, list[ApiOp]] = {}
    for op in ops:
        resource = re.sub(r"\{\w+\}/$", "", op.template)
        groups.setdefault((resource, frozenset(op.properties)), []).append(op)
    for group in groups.values():
        names = [
            n
            for n in group[0].properties
            if n not in FIXED and not same_field_as_english(n, group[0].properties)
        ]
        for i, name in enumerate(names):
            group[i % len(group)].fuzzed.add(name)


def discover_api_ops(paths_for) -> list[ApiOp]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    ops = []
    for template, operations in schema["paths"].items():
        for method, operation in operations.items():
            if method not in ("post", "put", "patch") or "requestBody" not in operation:
                continue
            content = operation["requestBody"]["content"]
            media = "application/json" if "application/json" in content else next(iter(content))
            body = resolve_ref(schema, content[media]["schema"])
            properties = {}
            for name, prop in body.get("properties", {}).items():
                prop = resolve_ref(schema, prop)
                if "items" in prop:
                    prop = {**prop, "items": resolve_ref(schema, prop["items"])}
                if not prop.get("readOnly"):
                    properties[name] = prop
            ops.append(
                ApiOp(
                    method=method,
                    template=template,
                    path=paths_for(template),
                    properties=properties,
                    required=set(body.get("required", ())),
                    multipart=media == "multipart/form-data",
                    as_admin=template.startswith("/api/catalog/"),
                )
            )
    return ops


class World:
    """The evaluation of make_everything plus what a few writes need, and how to name its rows
    in a path or a body."""

    def __init__(self, owner, people):
        from catalog.models import CapabilityClaim, ShortlistRule, Solution, Source
        from evaluations.models import ContextQuestion, FiveQuestion

        self.owner, self.people = owner, people
        self.evaluation = e = make_everything(owner, people)
        self.admin = make_user(roles.ADMIN, username="hostile-admin")
        self.outsider = people["outsider"]
        self.slurm = e.candidates.get(solution__slug="slurm")
        self.volcano = e.candidates.get(solution__slug="volcano")
        self.eliminated = e.candidates.get(status="eliminated")
        self.measured = e.poc_cases.get(title="Own case with a metric")
        # The owner scores too: a submitted score far from the reviewer's (a disagreement, so
        # the consensus form shows) and a draft on another cell (so its evidence form shows).
        poc_services.score_save(
            user=owner, case=self.measured, candidate=self.slurm, score="0", expected_version=None
        )
        poc_services.scores_submit(user=owner, evaluation=e)
        poc_services.score_save(
            user=owner, case=self.measured, candidate=self.volcano, score="3",
            expected_version=None,
        )  # fmt: skip
        self.unused_solution = Solution.objects.exclude(
            pk__in=e.candidates.values("solution")
        ).order_by("slug")[0]
        self.new_capability = CapabilityFactory()  # a capability no claim names yet
        self.context_key = ContextQuestion.objects.filter(is_active=True).order_by("order")[0].key
        self.five_key = FiveQuestion.objects.filter(is_active=True).order_by("order")[0].key
        self.claim = CapabilityClaim.objects.order_by("pk")[0]
        self.rule = ShortlistRule.objects.order_by("pk")[0]
        self.source = Source.objects.order_by("pk")[0]
        self.editor_membership = e.memberships.get(user=people[MemberRole.EDITOR])
        # Volcano leaves one hard constraint unverified and violates another, so the shortlist
        # shows its "verify in the POC" and "waive" forms too.
        CapabilityClaim.objects.filter(
            solution__slug="volcano", capability__slug="private-deployment"
        ).update(level="unknown")
        CapabilityClaim.objects.filter(
            solution__slug="volcano", capability__slug="localised-accelerators"
        ).update(level="none")
        type(e).objects.filter(pk=e.pk).update(localisation_required=True)
        e.refresh_from_db()
        # Declared conflicts of interest: the editor's with Volcano blocks (make_everything); the
        # reviewer's with Volcano is allowed, so the owner's "revoke" shows too.
        from poc import conflicts
        from poc.models import ConflictDeclaration

        self.blocked = ConflictDeclaration.objects.get(
            candidate=self.volcano, member=people[MemberRole.EDITOR]
        )
        self.volcano.evaluation = e
        allowed = conflicts.declaration_save(
            user=people[MemberRole.REVIEWER],
            candidate=self.volcano,
            has_conflict=True,
            description="Holds shares in the vendor.",
            expected_version=None,
        )
        self.allowed = conflicts.allowance_grant(
            user=owner, declaration=allowed, reason="A small holding.", expected_version=None
        )
        # A decided evaluation with a finished report and approvals in every state: the only
        # kind whose approvals page shows its forms (the owner's own request is pending).
        from signoff.models import Approval

        self.sealed = make_everything(owner, people, sealed=True)
        self.sealed_run = self.sealed.report_runs.get()
        self.own_approval = Approval.objects.get(
            evaluation=self.sealed, approver=owner, voided_at=None
        )
        self.free_approver = people[MemberRole.REVIEWER]  # their request was withdrawn
        # One library case out of the plan, so the "add from the library" form has a choice.
        poc_services.plan_case_remove(
            user=owner, case=e.poc_cases.filter(source_case__isnull=False).order_by("-pk")[0]
        )

    def path_value(self, template: str, name: str) -> str:
        """The value of one path parameter of a schema path."""
        from catalog import models as catalog

        before = template.split("{" + name + "}")[0].rstrip("/").rsplit("/", 1)[-1]
        e = self.evaluation
        if name == "candidate_pk" or (name == "id" and before == "candidates"):
            if template.endswith("/restore/"):
                return self.eliminated.pk
            if any(part in template for part in ("/score/", "/evidence/", "/waivers/")):
                return self.volcano.pk
            return self.slurm.pk
        simple = {
            ("evaluation_pk", None): e.pk,
            ("id", "evaluations"): e.pk,
            ("id", "members"): self.editor_membership.pk,
            ("id", "claims"): self.claim.pk,
            ("id", "accelerator-support"): catalog.AcceleratorSupport.objects.order_by("pk")[0].pk,
            ("question_key", "context"): self.context_key,
            ("question_key", "answers"): self.five_key,
            ("area_key", None): "job_execution",
            ("case_pk", None): self.measured.pk,
            ("group_key", None): self.measured.group.key,
            ("key", "sources"): self.source.key,
            ("key", "shortlist-rules"): self.rule.key,
        }
        if "/approvals/" in template and name == "evaluation_pk":
            return self.sealed.pk
        if name == "approval_pk":
            return self.own_approval.pk
        if name == "declaration_pk":
            return (self.allowed if template.endswith("/revoke/") else self.blocked).pk
        if (name, before) in simple:
            return simple[(name, before)]
        if (name, None) in simple:
            return simple[(name, None)]
        if name == "party_key":
            return "internal_platform" if self._has_party("internal_platform") else self._party()
        if name == "slug":
            model = {
                "solution-types": catalog.SolutionType,
                "scenarios": catalog.Scenario,
                "capability-groups": catalog.CapabilityGroup,
                "capabilities": catalog.Capability,
                "solutions": catalog.Solution,
                "accelerator-families": catalog.AcceleratorFamily,
            }[before]
            return model.objects.order_by("pk")[0].slug
        raise AssertionError(f"no value for {{{name}}} in {template}: teach World.path_value")

    def _has_party(self, key) -> bool:
        from responsibility.models import Party

        return Party.objects.filter(key=key).exists()

    def _party(self) -> str:
        from responsibility.selectors import parties_for

        return parties_for(self.evaluation)[0].key

    def path(self, template: str) -> str:
        return re.sub(r"\{(\w+)\}", lambda m: str(self.path_value(template, m.group(1))), template)

    def page_overrides(self, form: PageForm) -> dict:
        """Values a page form needs that the page cannot show (a user to add)."""
        if form.label == "evaluations:evaluation_members[add]":
            return {"username": self.outsider.username, "role": "viewer"}
        if form.label == "poc:plan[custom]":
            return {"metric_direction": ""}  # a direction needs a threshold: neither
        if form.label == "evaluations:evaluation_shortlist[stack]":
            # The layer menus start empty; a user picks two different solutions.
            return {
                "layer_execution": "",
                "layer_batch_queue": "volcano",
                "layer_governance": "enterprise-container-platform",
                "layer_burst": "",
                "layer_other": "",
                "main": "governance",
            }
        return {}

    def upload_for(self, where: str) -> tuple[str, bytes] | None:
        """The valid file a form or an API write takes, when "run.txt" is not one: a measurement
        import (a page route or a schema path) takes a CSV of the reviewer's draft cell."""
        if where == "poc:imports" or where.endswith("/poc/imports/"):
            rows = f"candidate,case,value\n{self.volcano.pk},{self.measured.pk},12\n"
            return "measurements.csv", rows.encode()
        return None

    def overrides(self, op: ApiOp) -> dict:
        """Values a valid body needs that neither the schema nor the GET can give."""
        t, m = op.template, op.method
        if t == "/api/evaluations/" and m == "post":
            return {"scenarios": ["training"]}
        if t.endswith("/candidates/stacks/"):
            return {
                "main": "governance",
                "layers": [
                    {"role": "batch_queue", "solution": "volcano"},
                    {"role": "governance", "solution": "enterprise-container-platform"},
                ],
            }
        if t.endswith("/candidates/") and m == "post":
            return {"solution": self.unused_solution.slug, "reason": "Worth a look."}
        if t.endswith("/waivers/"):
            return {"constraint": "localisation", "reason": "Accepted for now."}
        if t.endswith("/plan/verify/"):
            return {"capability": "private-deployment"}
        if t.endswith("/members/") and m == "post":
            return {"username": self.outsider.username, "role": "viewer"}
        if t.endswith("/members/{id}/"):
            return {"role": "viewer"}
        if t.endswith("/transition/"):
            return {"status": "draft", "reason": "Back to the drawing board."}
        if t.endswith("/plan/cases/") and m == "post":
            return {
                "group": self.measured.group.key,
                "title": "Hostile case",
                "acceptance": "Works.",
            }
        if t.endswith("/plan/profile/"):
            from poc.models import ScenarioProfile

            return {"profile": ScenarioProfile.objects.order_by("pk")[0].key}
        if t.endswith("/reports/") and m == "post":
            return {"language": "en", "sections": ["types"]}
        if t == "/api/catalog/claims/" and m == "post":
            return {
                "solution": "slurm",
                "capability": self.new_capability.slug,
                "level": "unknown",
            }
        if t == "/api/catalog/accelerator-support/" and m == "post":
            return {"solution": "slurm", "family": "ascend", "level": "unknown", "sources": []}
        if t.endswith("/answers/{question_key}/"):
            return {"parties": ["internal"]}  # the first question asks who
        if "/conflicts/candidates/" in t:
            return {"has_conflict": True, "description": "Former reseller agreement."}
        if t.endswith("/approvals/") and m == "post":
            return {"approver": self.free_approver.username, "role": "Quality"}
        if t.endswith("/decide/"):
            return {"decision": "approved", "run": self.sealed_run.pk, "comment": "Read it."}
        if t.endswith("/allow/"):
            return {"reason": "Public facts only."}
        if t.endswith("/consensus/"):
            return {"score": "2", "reason": "Agreed."}
        if t.endswith("/score/"):
            return {"score": "3"}
        if "/cells/{party_key}/" in t:
            return {"letter": "R"}
        if t.endswith("/parties/"):
            return {"name": "Hostile Ltd", "kind": "other"}
        return {}


def default_value(name: str, prop: dict, fresh: str):
    """A valid-looking value for a property the GET did not give."""
    if "enum" in prop:
        return next(v for v in prop["enum"] if v not in ("", None))
    kind, fmt = prop.get("type"), prop.get("format")
    if kind == "array":
        return []
    if kind == "boolean":
        return False
    if kind == "integer":
        return prop.get("minimum", 1)
    if kind == "object":
        return {}
    if fmt == "decimal":
        return "1"
    if fmt == "date":
        return "2027-01-15"
    if fmt == "uri":
        return "https://example.test/hostile"
    if name in ("slug", "key"):
        return fresh
    return f"Hostile corpus {name}"


def base_body(api, world: World, op: ApiOp) -> tuple[dict, dict]:
    """A valid body (the resource's current values where a GET has them, then the schema's
    defaults, then World.overrides) and the If-Match-free version it edits."""
    body = {}
    if op.method in ("put", "patch") or "version" in op.properties:
        # The resource's GET, or its parent's (a cell's row, an eliminate's candidate).
        path, got = op.path, api.get(op.path)
        while got.status_code != 200 and path.rstrip("/").count("/") > 2:
            path = path.rstrip("/").rsplit("/", 1)[0] + "/"
            got = api.get(path)
        if got.status_code == 200 and got.get("Content-Type", "").startswith("application/json"):
            current = got.json()
            if isinstance(current.get("answer"), dict):  # an answer wrapped with its question
                current = {**current["answer"], **current}
            body = {k: current[k] for k in op.properties if k in current}
            if "version" in op.properties and got.get("ETag"):
                body["version"] = int(got["ETag"].strip('"'))
    if op.method == "post" and op.as_admin:
        template_item = api.get(op.path)
        rows = template_item.json() if template_item.status_code == 200 else []
        rows = rows.get("results", rows) if isinstance(rows, dict) else rows
        if rows:
            body = {k: rows[0][k] for k in op.properties if k in rows[0]}
    for name in ("slug", "key"):
        if op.method == "post" and name in op.properties:
            body[name] = "hostile-corpus"
    for name in op.required:
        if name not in body and name in op.properties:
            body[name] = default_value(name, op.properties[name], "hostile-corpus")
    body.update(world.overrides(op))
    files = {}
    for name, prop in op.properties.items():
        if prop.get("format") == "binary" or (op.multipart and prop.get("format") == "uri"):
            body.pop(name, None)
            files[name] = "run.txt"
    body = {k: v for k, v in body.items() if v is not None or op.properties[k].get("nullable")}
    return body, files


def api_request(api, op: ApiOp, body: dict, files: dict, content: bytes | None = None):
    if op.multipart:
        data = {k: v for k, v in body.items()}
        data.update({k: upload(name, content) for k, name in files.items()})
        return getattr(api, op.method)(op.path, data, format="multipart")
    return getattr(api, op.method)(op.path, json_body(body), content_type="application/json")


def corpus_for(op: ApiOp, name: str, prop: dict):
    """(value sent, Value, field kind) for one property: an array's items get the scalar values
    one at a time; the array itself gets the structures and null."""
    kind = api_kind(name, prop)
    if op.multipart and prop.get("format") in ("binary", "uri"):
        kind = "file"
    sendable = []
    for value in CORPUS:
        if kind == "file":
            if isinstance(value.api, str) and not value.api.startswith(RAW):
                sendable.append((value.api, value, kind))
            continue
        if kind == "list" and value.kind not in ("structure", "null"):
            sendable.append(([value.api], value, api_kind("", prop.get("items", {}))))
            continue
        if op.multipart and not isinstance(value.api, str):
            continue
        sendable.append((value.api, value, kind))
    return one_of_each(sendable, kind=lambda sent: sent[1].kind, key=f"{op.label} {name}")


def same_field_as_english(name: str, properties: dict) -> bool:
    """`name_zh_hans` is `name_en` again: modeltranslation makes both from one model field, and
    the serializer treats them alike, so the corpus runs through the English one."""
    return name.endswith("_zh_hans") and name.removesuffix("_zh_hans") + "_en" in properties


def run_api_op(client_for, world: World, op: ApiOp, tally: Tally, fingerprint, before):
    api = client_for(op)
    body, files = base_body(api, world, op)
    name, content = world.upload_for(op.template) or ("run.txt", None)
    files = {k: name for k in files}

    def refused(response):
        return api_verdict(response, "")[0] != "accepted"

    base, _changed = in_savepoint(
        lambda: api_request(api, op, body, files, content), fingerprint, before, refused
    )
    if isinstance(base, Exception) or base.status_code >= 300:
        tally.fail(op.label, "the valid body is refused", body, _describe(base))
        return
    tally.targets += 1
    for name, prop in op.properties.items():
        if name not in op.fuzzed:
            continue
        tally.fields += 1
        for sent, value, kind in corpus_for(op, name, prop):
            if kind == "file":
                this_files = {**files, name: sent}
                this_body = body
            else:
                this_files, this_body = files, {**body, name: sent}

            response, changed = in_savepoint(
                lambda b=this_body, f=this_files: api_request(api, op, b, f, content),
                fingerprint,
                before,
                refused,
            )
            tally.requests += 1
            tally.sent.add(value.label)
            nullable = bool(prop.get("nullable"))
            judge(
                tally, op.label, name, kind, value, response, changed,
                page=False, nullable=nullable,
            )  # fmt: skip


# --- the tests -------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _quiet_request_log():
    """Thousands of refusals (and any 500, which the tally reports) need no log lines."""
    logger = logging.getLogger("django.request")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    yield
    logger.setLevel(level)


@pytest.fixture
def world(owner, people, monkeypatch):
    # A report request that is accepted is queued, not rendered here (the worker's business).
    monkeypatch.setattr("reports.services.report_enqueue", lambda run_id: True)
    return World(owner, people)


def test_every_page_form_refuses_hostile_input(client, world, capsys):
    client.force_login(world.owner)
    forms, post_routes = discover_page_forms(client, world.evaluation)
    sealed, _routes = discover_page_forms(client, world.sealed)  # the approvals page's forms
    forms += [f for f in sealed if f.route == "signoff:approvals"]
    for form in forms:
        fill(form, world.page_overrides(form))
    covered = {f.route for f in forms}
    assert not post_routes - covered, f"routes taking POST with no form found: {post_routes}"
    assert len(forms) >= 20, [f.label for f in forms]

    fingerprint = Fingerprint()
    before = fingerprint()
    tally = Tally()
    for form in forms:
        run_page_form(client, form, tally, fingerprint, before, world.upload_for(form.route))
    with capsys.disabled():
        print("\n" + tally.report("page forms"))
    assert not tally.failures, tally.report("page forms")
    assert not tally.gaps_gone(api=False), "fixed: delete these from KNOWN_GAPS"
    assert tally.targets == len(forms) and tally.fields >= 60
    assert tally.requests >= REQUESTS_AT_LEAST * 600
    # Fields meet different variants of a kind: the run as a whole sends every one.
    assert tally.sent == {v.label for v in CORPUS if v.page is not None}


def test_every_api_write_refuses_hostile_input(world, capsys):
    ops = discover_api_ops(world.path)
    assert len(ops) >= 45, [op.label for op in ops]
    share_fields(ops)
    clients = {}
    for user in (world.owner, world.admin):
        clients[user.pk] = APIClient()
        clients[user.pk].force_authenticate(user)

    def client_for(op):
        return clients[(world.admin if op.as_admin else world.owner).pk]

    fingerprint = Fingerprint()
    before = fingerprint()
    tally = Tally()
    for op in ops:
        run_api_op(client_for, world, op, tally, fingerprint, before)
    with capsys.disabled():
        print("\n" + tally.report("API writes"))
    assert not tally.failures, tally.report("API writes")
    assert not tally.gaps_gone(api=True), "fixed: delete these from KNOWN_GAPS"
    assert tally.targets == len(ops) and tally.fields >= 90
    assert tally.requests >= REQUESTS_AT_LEAST * 1200
    assert tally.sent == {v.label for v in CORPUS}
