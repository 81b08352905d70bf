"""Property-based fuzz of the whole REST API against its own OpenAPI schema (schemathesis).

The schema is the one the app serves at /api/schema/, loaded in-process through Django's WSGI
application, and every request goes the whole way (middleware, a personal API token,
DRF, the services) inside this test's transaction. For every operation of the
schema, Hypothesis generates requests in both modes: positive (what the schema says is valid)
and negative (what it says is not). Path parameters are mostly replaced by ids and keys of real
rows, of an evaluation holding every kind of object (tests.factories.make_everything) or of one
with nothing saved yet, so writes run with fuzzed bodies on existing rows; half of the writes
that carry a version (body or If-Match) name the one saved, so they get past the stale-edit
check. Every request is rolled back afterwards: each case starts from the same data.

A case fails on any 5xx, an undocumented status code, a content type or body that does not match
the documented response, or a missing documented header. Catalog operations are called by an
admin (catalog writes are theirs), everything else by the evaluation's owner. RUN counts what
ran; the test prints it and checks it.
"""

from __future__ import annotations

from contextlib import contextmanager
from datetime import timedelta

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections, transaction
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from werkzeug.test import Client

from apitokens.services import token_create
from catalog.models import (
    AcceleratorFamily,
    AcceleratorSupport,
    Capability,
    CapabilityClaim,
    CapabilityGroup,
    Scenario,
    ShortlistRule,
    SolutionType,
    Source,
)
from evaluations.acknowledgements import high_reminders
from evaluations.models import Constraint, ContextQuestion, FiveQuestion, ReminderAcknowledgement
from evaluations.selectors import evaluation_data
from poc.models import ConflictDeclaration, Evidence
from reports import services as report_services
from responsibility.selectors import active_areas, parties_for
from signoff.models import Approval
from tests.factories import (
    CapabilityGroupFactory,
    SolutionFactory,
    SolutionTypeFactory,
    make_everything,
)
from tests.sampling import EXHAUSTIVE

pytestmark = pytest.mark.django_db

# Per operation and generation mode: every operation in every run, with enough cases that most
# reach a real row (fewer leave too many operations never answering 2xx); SHORTLIST_EXHAUSTIVE=1
# draws three times as many (tests/sampling.py).
MAX_EXAMPLES = 18 if EXHAUSTIVE else 6
# Not negative_data_rejection: DRF accepts some input the schema calls invalid, by design (a
# number for a text field, 0/1 for a boolean, a limit or offset it cannot read falls back to the
# default page, form bodies are flat key-values). Negative cases still run every check below.
# Nor positive_data_acceptance: the services refuse schema-valid input by rules a schema cannot
# state (states, roles, versions, sums), with a documented 4xx.
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
RUN = {"operations": 0, "cases": 0, "succeeded": set()}  # succeeded: operations that got a 2xx


def bearer(user) -> dict:
    """A read-and-write API token of `user`'s, as a script sends it."""
    _token, secret = token_create(
        user=user, name="fuzz", scope="write", expires=timezone.localdate() + timedelta(days=1)
    )
    return {"Authorization": f"Bearer {secret}"}


@contextmanager
def connection_kept_open():
    """Django closes the database connection when a request ends; every request here runs
    inside the test's transaction, so keep it open, as Django's test client does."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def keys(queryset, field="slug", n=2) -> list:
    return list(queryset.values_list(field, flat=True)[:n])


def equivalences(evaluation) -> list:
    """A declared test-bed equivalence of the evaluation (its two shortlisted candidates on
    different accelerators, declared by the owner)."""
    from poc.testbeds import bed_save
    from poc.testbeds.comparable import equivalence_declare

    owner = evaluation.created_by
    pair = list(evaluation.candidates.filter(status="shortlisted").order_by("pk")[:2])
    for i, candidate in enumerate(pair):
        bed_save(
            user=owner, candidate=candidate, expected_version=None,
            accelerator_vendor="NVIDIA", accelerator_model=f"A{800 + i}",
        )  # fmt: skip
    first, second = pair
    return [equivalence_declare(user=owner, evaluation=evaluation, first=first, second=second,
                                reason="Same pool.").pk]  # fmt: skip


def known_values(evaluation, empty, run, sealed) -> dict:
    """Real ids and keys by path parameter: `name`, or `segment/name` for generic names. Some
    catalog rows are spares nothing refers to, so that deleting them can succeed. `sealed` is a
    decided evaluation, the only kind with approvals."""
    areas = active_areas()
    candidates = keys(evaluation.candidates, "pk", 3)
    return {
        "evaluations/id": [evaluation.pk, empty.pk],
        "evaluation_pk": [evaluation.pk, empty.pk, sealed.pk],
        # The owner's own pending request (they decide or withdraw it) and the editor's approval.
        "approval_pk": keys(
            Approval.objects.filter(evaluation=sealed, voided_at=None).order_by("approver_id"),
            "pk",
        ),
        "members/id": keys(evaluation.memberships, "pk", 4),
        "candidates/id": candidates,
        "candidate_pk": candidates,
        "context/question_key": keys(ContextQuestion.objects, "key", 3),
        "answers/question_key": keys(FiveQuestion.objects, "key", 3),
        "constraint_key": keys(Constraint.objects, "key", 3),
        # An open high reminder of the open evaluation, and one the sealed one acknowledged.
        "acknowledgements/key": [
            *(r.key for r in high_reminders(evaluation_data(evaluation))[:1]),
            *keys(ReminderAcknowledgement.objects.filter(evaluation=sealed), "key", 1),
        ],
        "area_key": [areas[0].key, areas[-1].key],
        "party_key": [p.key for p in parties_for(evaluation)][-3:],
        "term": ["p1_response", "support_hours"],
        "equivalence_pk": equivalences(evaluation),  # support terms: a number and words
        "case_pk": keys(evaluation.poc_cases.order_by("-pk"), "pk", 3),
        "group_key": keys(evaluation.poc_groups, "group__key"),
        "evidence_pk": keys(Evidence.objects.filter(score__case__evaluation=evaluation), "pk"),
        # The editor's declared conflict (the owner may allow it) and the owner's own none.
        "declaration_pk": keys(
            ConflictDeclaration.objects.filter(evaluation=evaluation).order_by("-has_conflict"),
            "pk",
        ),
        "run_pk": [run.pk],
        "solution-types/slug": [*keys(SolutionType.objects, n=1), SolutionTypeFactory().slug],
        "scenarios/slug": keys(Scenario.objects),
        "capability-groups/slug": [
            *keys(CapabilityGroup.objects, n=1),
            CapabilityGroupFactory().slug,
        ],
        "capabilities/slug": keys(Capability.objects),
        "solutions/slug": ["slurm", SolutionFactory().slug],
        "sources/key": keys(Source.objects, "key"),
        "claims/id": keys(CapabilityClaim.objects, "pk"),
        "shortlist-rules/key": keys(ShortlistRule.objects, "key"),
        # A spare family nothing refers to, so that deleting it can succeed.
        "accelerator-families/slug": [
            *keys(AcceleratorFamily.objects, n=1),
            AcceleratorFamily.objects.create(
                slug="spare-family", name_en="Spare", name_zh_hans="备用"
            ).slug,
        ],
        "accelerator-support/id": keys(AcceleratorSupport.objects, "pk"),
    }


def real_values(known: dict, path: str, name: str) -> list:
    segment = path.split("{" + name + "}")[0].rstrip("/").rsplit("/", 1)[-1]
    values = known.get(f"{segment}/{name}") or known.get(name)
    if not values:
        raise LookupError(f"{path}: add real values for {{{name}}} to known_values()")
    return values


def saved_version(client: Client, path: str, auth: dict, cache: dict) -> int | None:
    """The version saved for what `path` writes: the ETag of a GET on it, or on the resource
    above it (…/eliminate/ writes the candidate, …/cells/<party>/ the matrix row)."""
    if path not in cache:
        cache[path] = None
        for url in (path, path.rsplit("/", 2)[0] + "/", path.rsplit("/", 3)[0] + "/"):
            etag = client.get(url, headers=auth).headers.get("ETag")
            if etag:
                cache[path] = int(etag.strip('"'))
                break
    return cache[path]


@pytest.fixture
def world(evaluation, owner, people, admin_user, monkeypatch):
    # Rendering is the worker's job and has its own tests: requests here only queue the run.
    monkeypatch.setattr(report_services, "report_enqueue", lambda run_id: True)
    everything = make_everything(owner, people)
    run, _sent = report_services.report_request(
        user=owner, evaluation=everything, language="en", sections=["questions"]
    )
    report_services.report_render(run.pk)  # done, with a PDF to download
    sealed = make_everything(owner, people, sealed=True)
    known = known_values(everything, evaluation, run, sealed)
    assert all(known.values()), known
    return {"known": known, "owner": bearer(owner), "admin": bearer(admin_user)}


def fuzz(operation, client: Client, auth: dict, known: dict, versions: dict) -> None:
    """Run one operation's cases, positive and negative, each rolled back after its request."""
    params = [p.name for p in operation.path_parameters]
    strategy = st.one_of(
        operation.as_strategy(GenerationMode.POSITIVE),
        operation.as_strategy(GenerationMode.NEGATIVE),
    )

    @settings(
        max_examples=MAX_EXAMPLES * 2,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy, data=st.data())
    def one(case, data):
        for name in params:
            if data.draw(st.integers(0, 3), label=f"keep {name}"):  # 3 in 4: a real row
                real = real_values(known, operation.path, name)
                case.path_parameters[name] = data.draw(st.sampled_from(real), label=name)
        in_body = isinstance(case.body, dict) and "version" in case.body
        in_header = case.headers is not None and "If-Match" in case.headers
        if (in_body or in_header) and data.draw(st.booleans(), label="saved version"):
            version = saved_version(client, case.formatted_path, auth, versions)
            if version is not None and in_body:
                case.body["version"] = version
            if version is not None and in_header:
                case.headers["If-Match"] = f'"{version}"'
        RUN["cases"] += 1
        with transaction.atomic():
            response = case.call_and_validate(headers=auth, checks=CHECKS)
            if response.status_code < 300:
                RUN["succeeded"].add(operation.label)
            transaction.set_rollback(True)

    one()


@pytest.mark.slow
def test_every_operation_answers_as_documented(world):
    app = get_wsgi_application()
    client = Client(app)
    known, versions = world["known"], {}
    failures: list[str] = []
    with connection_kept_open():
        schema = schemathesis.openapi.from_wsgi("/api/schema/", app, headers=world["owner"])
        for result in schema.get_all_operations():
            operation = result.ok()
            RUN["operations"] += 1
            auth = world["admin"] if operation.path.startswith("/api/catalog/") else world["owner"]
            try:
                fuzz(operation, client, auth, known, versions)
            except (Exception, BaseExceptionGroup) as exc:  # report every operation's failure
                failures.append(f"{operation.label}:\n{exc}")
    print(
        f"API fuzz: {RUN['operations']} operations, {RUN['cases']} cases, "
        f"{len(RUN['succeeded'])} operations answered 2xx at least once"
    )
    assert not failures, f"{len(failures)} operations failed:\n\n" + "\n\n".join(failures)
    assert RUN["operations"] >= 110 and RUN["cases"] >= RUN["operations"] * MAX_EXAMPLES
    # Real rows reach the views: most operations, writes included, succeed at least once.
    assert 3 * len(RUN["succeeded"]) >= 2 * RUN["operations"], RUN["succeeded"]


# --- what the fuzz found, pinned ------------------------------------------------------------


def api(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_deleting_a_catalog_row_others_refer_to_is_a_409(admin_user):
    solution = SolutionFactory()
    response = api(admin_user).delete(f"/api/catalog/solution-types/{solution.solution_type.slug}/")
    assert response.status_code == 409, response.content
    assert "solutions" in response.json()["detail"]


def test_an_api_url_that_names_nothing_answers_json(owner):
    response = api(owner).get("/api/evaluations/not-a-number/")
    assert response.status_code == 404 and response["Content-Type"] == "application/json"


def test_nul_in_a_multipart_text_part_is_a_400(evaluation, owner):
    response = api(owner).post(
        f"/api/evaluations/{evaluation.pk}/poc/plan/profile/", {"profile": "bal\x00anced"}
    )
    assert response.status_code == 400, response.content


def test_a_translation_never_written_reads_as_empty(owner):
    solution = SolutionFactory()  # limits_en and the like stay NULL
    body = api(owner).get(f"/api/catalog/solutions/{solution.slug}/").json()
    assert body["limits_en"] == body["focus_points_zh_hans"] == ""


def test_the_schema_admits_what_the_api_answers(owner):
    schema = api(owner).get("/api/schema/?format=json").json()
    parts = schema["components"]["schemas"]
    assert {"type": "string", "maxLength": 0} in parts["QuestionAnswer"]["properties"][
        "evidence_url"
    ]["oneOf"]
    assert parts["Decision"]["properties"]["updated_at"]["nullable"] is True
    put = schema["paths"]["/api/evaluations/{evaluation_pk}/decision/"]["put"]
    assert {"200", "201", "400", "401", "403", "404", "409", "412", "428"} <= set(put["responses"])
    assert "If-Match" in [p["name"] for p in put["parameters"]]


def test_an_unreadable_body_is_a_documented_415(admin_user, client):
    """Found by the fuzz: a body in a content type no parser reads answers 415, and every
    operation that takes a body documents that answer."""
    slug = SolutionFactory().solution_type.slug
    response = api(admin_user).generic(
        "PATCH", f"/api/catalog/solution-types/{slug}/", b"name=x", content_type="text/plain"
    )
    assert response.status_code == 415, response.content
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    operation = schema["paths"]["/api/catalog/solution-types/{slug}/"]["patch"]
    assert "415" in operation["responses"]
    with_body = [
        op for path in schema["paths"].values() for op in path.values() if "requestBody" in op
    ]
    assert with_body and all("415" in op["responses"] for op in with_body)
