"""Every race, the writes that name no version and why, and how every versioned write is found
(page forms, the URLconf's page writes, the OpenAPI schema's operations)."""

from __future__ import annotations

import re

from django import forms
from django.urls import URLPattern, URLResolver, get_resolver, resolve

from catalog import forms as catalog_forms
from common.forms import VersionField
from common.views import ActionRouter, PageAction
from evaluations import forms as ev_forms
from poc import forms as poc_forms
from poc.conflicts import forms as coi_forms
from poc.testbeds import forms as poc_testbed_forms
from responsibility import forms as resp_forms
from responsibility.support import forms as support_forms
from signoff import forms as signoff_forms
from tests.races.api_shots import (
    api_acknowledge,
    api_allow,
    api_answer,
    api_approval_decide,
    api_approval_withdraw,
    api_consensus,
    api_context_answer,
    api_cost_input,
    api_cost_settings,
    api_decision,
    api_declare,
    api_eliminate,
    api_evaluation,
    api_main_type,
    api_matrix_cell,
    api_matrix_row,
    api_plan_case,
    api_plan_group,
    api_restore,
    api_revoke,
    api_score,
    api_support_term,
    api_test_bed,
)
from tests.races.page_shots import (
    page_acknowledge,
    page_allow,
    page_answer,
    page_approval_decide,
    page_approval_withdraw,
    page_case_weight,
    page_claim_edit,
    page_consensus,
    page_context_answer,
    page_cost_input,
    page_cost_settings,
    page_decision,
    page_declare,
    page_eliminate,
    page_evaluation_edit,
    page_group_weight,
    page_main_type,
    page_matrix_cell,
    page_matrix_row,
    page_restore,
    page_revoke,
    page_score,
    page_support_term,
    page_test_bed,
)
from tests.races.world import PROJECT_APPS, Race

RACES = [
    Race("page", "catalog:claim_edit", "", page_claim_edit, catalog_forms.ClaimEditForm),
    Race("page", "responsibility:support", "", page_support_term, support_forms.SupportTermForm),
    Race("page", "evaluations:evaluation_edit", "", page_evaluation_edit, ev_forms.EvaluationForm),
    Race(
        "page",
        "evaluations:evaluation_shortlist",
        "type",
        page_main_type,
        ev_forms.TypeDecisionForm,
    ),
    Race(
        "page",
        "evaluations:context_answer_save",
        "",
        page_context_answer,
        ev_forms.ContextAnswerForm,
    ),
    Race(
        "page",
        "evaluations:evaluation_shortlist",
        "restore",
        page_restore,
        ev_forms.RestoreCandidateForm,
    ),
    Race(
        "page",
        "evaluations:evaluation_shortlist",
        "eliminate",
        page_eliminate,
        ev_forms.EliminateCandidateForm,
    ),
    Race("page", "evaluations:answer_save", "", page_answer, ev_forms.AnswerForm),
    Race("page", "evaluations:evaluation_decision", "", page_decision, ev_forms.DecisionForm),
    Race(
        "page", "evaluations:reminder_acknowledge", "", page_acknowledge, ev_forms.AcknowledgeForm
    ),
    Race("page", "responsibility:matrix_save", "", page_matrix_cell, resp_forms.MatrixCellForm),
    Race("page", "responsibility:matrix_save", "", page_matrix_row, resp_forms.MatrixRowForm),
    Race("page", "responsibility:costs", "", page_cost_settings, resp_forms.CostSettingsForm),
    Race("page", "responsibility:costs", "", page_cost_input, resp_forms.CostInputForm),
    Race("page", "poc:plan", "case_weight", page_case_weight, poc_forms.WeightForm),
    Race("page", "poc:plan", "group_weight", page_group_weight, poc_forms.WeightForm),
    Race("page", "poc:cell", "", page_score, poc_forms.ScoreForm),
    Race("page", "poc:cell", "", page_consensus, poc_forms.ConsensusForm),
    Race("page", "poc:conflicts", "declare", page_declare, coi_forms.DeclarationsForm),
    Race("page", "poc:conflicts", "allow", page_allow, coi_forms.AllowanceForm),
    Race("page", "poc:conflicts", "revoke", page_revoke, coi_forms.RevokeForm),
    Race("page", "poc:testbeds", "", page_test_bed, poc_testbed_forms.TestBedForm),
    Race("page", "signoff:approvals", "decide", page_approval_decide, signoff_forms.DecideForm),
    Race(
        "page", "signoff:approvals", "withdraw", page_approval_withdraw, signoff_forms.WithdrawForm
    ),
    Race("api", "evaluations-api:evaluation_detail", "PATCH", api_evaluation),
    Race("api", "evaluations-api:type_step", "PUT", api_main_type),
    Race("api", "evaluations-api:context_answer", "PUT", api_context_answer),
    Race("api", "evaluations-api:candidate_restore", "POST", api_restore),
    Race("api", "evaluations-api:candidate_eliminate", "POST", api_eliminate),
    Race("api", "evaluations-api:answer_detail", "PUT", api_answer),
    Race("api", "evaluations-api:decision", "PUT", api_decision),
    Race("api", "evaluations-api:acknowledgement_detail", "PUT", api_acknowledge),
    Race("api", "responsibility-api:matrix_row", "PUT", api_matrix_row),
    Race("api", "responsibility-api:matrix_cell", "PUT", api_matrix_cell),
    Race("api", "responsibility-api:cost_settings", "PUT", api_cost_settings),
    Race("api", "responsibility-api:cost_input", "PUT", api_cost_input),
    Race("api", "poc-api:plan_case", "PATCH", api_plan_case),
    Race("api", "poc-api:plan_group", "PATCH", api_plan_group),
    Race("api", "poc-api:score", "PUT", api_score),
    Race("api", "poc-api:consensus", "PUT", api_consensus),
    Race("api", "poc-api:conflict_mine", "PUT", api_declare),
    Race("api", "poc-api:conflict_allow", "POST", api_allow),
    Race("api", "poc-api:conflict_revoke", "POST", api_revoke),
    Race("api", "poc-api:test_bed", "PUT", api_test_bed),
    Race("api", "responsibility-api:support_term", "PUT", api_support_term),
    Race("api", "signoff-api:approval_decide", "POST", api_approval_decide),
    Race("api", "signoff-api:approval_withdraw", "POST", api_approval_withdraw),
]

# Page writes that name no version, and why: a race on them has no version to be stale.
UNVERSIONED_PAGE_WRITES = {
    ("evaluations:evaluation_create", ""): "creates a new evaluation",
    ("evaluations:evaluation_detail", ""): "moves the status, checked against the saved one",
    ("evaluations:evaluation_shortlist", "accept"): "adds candidates (one per solution)",
    ("evaluations:evaluation_shortlist", "add"): "adds a candidate (one per solution)",
    ("evaluations:evaluation_shortlist", "stack"): "composes a stack (one per name)",
    ("evaluations:evaluation_shortlist", "waive"): "adds a waiver (one per candidate and rule)",
    ("evaluations:evaluation_shortlist", "unwaive"): "withdraws a waiver",
    ("evaluations:reminder_withdraw", ""): "withdraws an acknowledgement",
    ("poc:bed_equivalence_declare", ""): "adds a declaration (each is a row of its own)",
    ("poc:bed_equivalence_withdraw", ""): "withdraws a declaration",
    ("evaluations:evaluation_members", "add"): "adds a member (one membership per user)",
    ("signoff:approvals", "request"): "names an approver (one active request per member)",
    ("evaluations:evaluation_members", "role"): "sets a role (memberships carry no version)",
    ("evaluations:evaluation_members", "remove"): "removes a member",
    ("responsibility:matrices", ""): "adds a party",
    ("responsibility:matrix", ""): "fills only the areas nobody has saved",
    ("poc:plan", "init"): "adds the library's cases not in the plan yet",
    ("poc:plan", "library"): "adds a case (once per library case)",
    ("poc:plan", "custom"): "adds an own case",
    ("poc:plan", "remove"): "removes a case",
    ("poc:plan", "profile"): "sets every group weight to a scenario profile's",
    ("poc:verify_capability", ""): "adds the case that verifies a capability",
    ("poc:scorecard", ""): "submits my drafts",
    ("poc:evidence_upload", ""): "adds a file",
    ("poc:imports", "preview"): "saves nothing (a dry run)",
    ("catalog:bundle", "preview"): "keeps the uploaded file and shows its diff (a dry run)",
    ("catalog:bundle", "apply"): "checks the catalog against the state the preview showed (a "
    "fingerprint, not a version field) and refuses the whole bundle when it changed",
    ("poc:imports", "apply"): "checks the previewed versions of my scores (a fingerprint, not a "
    "version field) and refuses the whole file when one changed",
    ("reports:report_list", ""): "requests a report",
    ("portable:evaluation_import", ""): "creates a new evaluation from an archive",
}


# API writes that take a `version` they do not use, and why.
UNVERSIONED_API_WRITES = {
    ("api", "evaluations-api:evaluation_list", "POST"): "creates an evaluation: the version of "
    "the body it shares with PATCH is ignored",
    ("api", "poc-api:bed_equivalences", "POST"): "adds a declaration (each is a row of its own)",
    ("api", "poc-api:bed_equivalence", "DELETE"): "withdraws a declaration: If-Match refuses a "
    "stale one (tests/poc/test_comparable.py); a second DELETE finds none",
    ("api", "responsibility-api:support_term", "DELETE"): "deletes a term: If-Match refuses a "
    "stale one (tests/responsibility/test_support_terms.py); a second DELETE finds none",
}


# --- finding every versioned write ---------------------------------------------------------------


def page_writes(resolver=None, namespace="") -> set[tuple[str, str]]:
    """(URL name, action) of every page write in the URLconf: each view built on PageAction,
    and each action of an ActionRouter page."""
    found = set()
    for entry in (resolver or get_resolver()).url_patterns:
        if isinstance(entry, URLResolver):
            if not str(entry.pattern).startswith(("api/", "admin/")):
                inner = f"{namespace}{entry.namespace}:" if entry.namespace else namespace
                found |= page_writes(entry, inner)
            continue
        view = getattr(entry.callback, "view_class", None)
        if not (isinstance(entry, URLPattern) and view and issubclass(view, PageAction)):
            continue
        name = f"{namespace}{entry.name}"
        if issubclass(view, ActionRouter):
            found |= {(name, action) for action in view.actions}
        else:
            found.add((name, ""))
    return found


def versioned_forms() -> set[type[forms.BaseForm]]:
    """Every form of the project that carries a VersionField (the bases other forms extend left
    out): each is the input of a versioned page write."""

    def subclasses(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from subclasses(sub)

    get_resolver().url_patterns  # noqa: B018 - the URLconf imports every view and form
    found = {
        cls
        for cls in subclasses(forms.BaseForm)
        if cls.__module__.split(".")[0] in PROJECT_APPS
        and (
            any(isinstance(f, VersionField) for f in cls.base_fields.values())
            or getattr(cls, "versioned_rows", False)  # a version per row (common.forms)
        )
    }
    return {c for c in found if not any(o is not c and issubclass(o, c) for o in found)}


def versioned_api_writes(schema: dict) -> set[tuple[str, str, str]]:
    """("api", URL name, method) of every operation of the OpenAPI schema that documents 428
    (a precondition is required) or takes a `version` in its body."""
    components = schema["components"]["schemas"]

    def takes_version(operation) -> bool:
        for media in operation.get("requestBody", {}).get("content", {}).values():
            body = media["schema"]
            if "$ref" in body:
                body = components[body["$ref"].rsplit("/", 1)[-1]]
            if "version" in body.get("properties", {}):
                return True
        return False

    found = set()
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            if method in ("get", "head", "options", "parameters"):
                continue
            if "428" in operation["responses"] or takes_version(operation):
                name = resolve(re.sub(r"\{[^}]+\}", "1", path)).view_name
                found.add(("api", name, method.upper()))
    return found
