"""Stacks: a candidate built from several catalog solutions, each in a layer. Composing one
(and every refusal), its combined capability profile, the constraint check on the combination,
and the shortlist page and API that show it layer by layer."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from catalog.models import Capability, CapabilityClaim, Solution, SolutionType, SupportLevel
from evaluations import services
from evaluations.constraints import Verdict, constraint_checks
from evaluations.models import Candidate, CandidateLayer
from evaluations.selectors import evaluation_data
from evaluations.stacks import LEVEL_RANK, stack_profile
from tests.factories import SolutionFactory, add_candidates, make_evaluation

pytestmark = pytest.mark.django_db


def solution_with(levels: dict[str, str], type_slug="open-source"):
    solution = SolutionFactory(solution_type=SolutionType.objects.get(slug=type_slug))
    for slug, level in levels.items():
        CapabilityClaim.objects.create(
            solution=solution, capability=Capability.objects.get(slug=slug), level=level
        )
    return solution


def compose(evaluation, owner, layers, *, main="governance", name="Queue + platform", **kw):
    return services.candidate_compose_stack(
        user=owner,
        evaluation=evaluation,
        name=name,
        reason=kw.get("reason", "Open source underneath, a platform on top."),
        layers=layers,
        main=main,
    )


def test_a_stack_is_one_candidate_whose_main_layer_carries_the_type(owner):
    evaluation = make_evaluation(owner)
    volcano, platform = (
        Solution.objects.get(slug="volcano"),
        solution_with({}, "enterprise-platform"),
    )
    stack = compose(evaluation, owner, {"batch_queue": volcano, "governance": platform})
    assert stack.is_stack and stack.name == "Queue + platform" and str(stack) == stack.name
    assert stack.solution == platform  # the main layer decides the type
    assert [(layer.role, layer.solution) for layer in stack.stack_layers] == [
        ("batch_queue", volcano),
        ("governance", platform),
    ]
    assert [layer.is_main for layer in stack.stack_layers] == [False, True]
    # A solution inside a stack can still be shortlisted on its own.
    (alone,) = add_candidates(evaluation, owner, "volcano")
    assert not alone.is_stack and alone.name == volcano.name
    assert stack.history.count() == 1 and CandidateLayer.history.count() == 2


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"name": "  "}, "name"),
        ({"reason": ""}, "reason"),
        ({"layers": {"batch_queue": "volcano"}}, "layers"),
        ({"layers": {"batch_queue": "volcano", "execution": "volcano"}}, "layers"),
        ({"layers": {"batch_queue": "volcano", "nonsense": "slurm"}}, "layers"),
        ({"main": "burst"}, "main"),
        ({"name": "x" * 101}, "name"),
    ],
)
def test_a_stack_that_cannot_work_is_refused_and_nothing_is_saved(owner, change, field):
    evaluation = make_evaluation(owner)
    layers = change.pop("layers", {"batch_queue": "volcano", "governance": "runai"})
    layers = {role: Solution.objects.get(slug=slug) for role, slug in layers.items()}
    args = {"name": "Stack", "reason": "Because.", "main": "governance", **change}
    with pytest.raises(ValidationError) as refused:
        services.candidate_compose_stack(user=owner, evaluation=evaluation, layers=layers, **args)
    assert field in refused.value.message_dict
    assert not Candidate.objects.exists() and not CandidateLayer.objects.exists()


def test_two_stacks_may_not_share_a_name(owner):
    evaluation = make_evaluation(owner)
    layers = {"batch_queue": Solution.objects.get(slug="volcano")}
    layers["governance"] = Solution.objects.get(slug="runai")
    compose(evaluation, owner, layers)
    with pytest.raises(ValidationError) as refused:
        compose(evaluation, owner, layers)
    assert "name" in refused.value.message_dict
    assert Candidate.objects.count() == 1


def test_the_profile_takes_each_capability_from_the_layer_that_provides_it_best(owner):
    evaluation = make_evaluation(owner)
    under = solution_with({"gang-scheduling": "native", "audit-log": "none", "rbac": "partial"})
    top = solution_with({"gang-scheduling": "none", "audit-log": "native", "rbac": "add-on"})
    stack = compose(evaluation, owner, {"execution": under, "governance": top})
    profile = {row.capability.slug: row for row in stack_profile(stack)}
    assert len(profile) == Capability.objects.count()
    gang, audit, rbac = profile["gang-scheduling"], profile["audit-log"], profile["rbac"]
    assert (gang.level, gang.layer.role, gang.missing) == ("native", "execution", False)
    assert (audit.level, audit.layer.role) == ("native", "governance")
    assert (rbac.level, rbac.layer.solution) == ("add-on", top)
    # Neither layer claims it: missing, with no layer.
    untouched = next(
        slug for slug in profile if slug not in {"gang-scheduling", "audit-log", "rbac"}
    )
    assert profile[untouched].missing and profile[untouched].layer is None
    assert list(LEVEL_RANK) == ["native", "add-on", "partial", "unknown", "none"]


@pytest.mark.parametrize(
    ("under", "top", "verdict"),
    [
        ("none", "native", Verdict.MET),
        ("native", "none", Verdict.MET),
        ("none", "partial", Verdict.PARTIAL),
        ("none", "unknown", Verdict.UNVERIFIED),
        ("none", "none", Verdict.VIOLATES),
        ("add-on", "unknown", Verdict.MET),
    ],
)
def test_constraints_are_checked_on_the_combination(owner, under, top, verdict):
    evaluation = make_evaluation(owner, localisation_required=True)
    stack = compose(
        evaluation,
        owner,
        {
            "execution": solution_with({"localised-accelerators": under}),
            "governance": solution_with({"localised-accelerators": top}, "enterprise-platform"),
        },
    )
    (check,) = [
        c
        for c in constraint_checks(evaluation_data(evaluation))[stack.pk]
        if c.constraint.key == "localisation"
    ]
    assert check.verdict == verdict
    (cap,) = check.capabilities
    best = min((under, top), key=lambda level: LEVEL_RANK[SupportLevel(level)])
    assert cap.claim.level == best
    assert cap.layer.role == ("execution" if best == under else "governance")


def test_a_violating_stack_is_refused_at_the_decided_gate(owner):
    evaluation = make_evaluation(owner, localisation_required=True)
    stack = compose(
        evaluation,
        owner,
        {
            "execution": solution_with({"localised-accelerators": "none"}),
            "governance": solution_with({"localised-accelerators": "none"}, "enterprise-platform"),
        },
    )
    from evaluations.models import Decision

    Decision.objects.create(evaluation=evaluation, rationale="Chosen.").chosen.set([stack])
    missing = [str(item) for item in services.decided_gate_missing(evaluation)]
    assert any(stack.name in str(text) and "Localisation" in str(text) for text in missing)


# --- the shortlist page ----------------------------------------------------------------------


def shortlist(evaluation):
    return reverse("evaluations:evaluation_shortlist", args=[evaluation.pk])


def test_the_page_composes_a_stack_and_shows_it_layer_by_layer(client, owner):
    evaluation = make_evaluation(owner, localisation_required=True)
    client.force_login(owner)
    page = client.get(shortlist(evaluation)).content.decode()
    assert 'data-testid="compose-stack"' in page and 'name="layer_batch_queue"' in page
    response = client.post(
        shortlist(evaluation),
        {
            "action": "stack",
            "name": "Volcano + Run:ai",
            "reason": "Batch queues underneath, governance on top.",
            "layer_batch_queue": "volcano",
            "layer_governance": "runai",
            "main": "governance",
        },
    )
    assert response.status_code == 302
    stack = Candidate.objects.get(stack_name="Volcano + Run:ai")
    body = client.get(shortlist(evaluation)).content.decode()
    assert f'data-testid="layers-{stack.pk}"' in body
    assert f'data-testid="stack-profile-{stack.pk}"' in body
    assert "Batch queue:" in body and "main responsibility" in body
    checks = body.split(f'data-testid="constraints-{stack.pk}"', 1)[1].split("</section>")[0]
    assert "Volcano + Run:ai" in body and 'data-testid="layer"' in checks


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"layer_batch_queue": "volcano"}, "at least two layers"),
        ({"layer_batch_queue": "volcano", "layer_governance": "nope"}, "not in the catalog"),
        ({"layer_batch_queue": "volcano", "layer_execution": "slurm"}, "main responsibility"),
        ({"layer_batch_queue": "volcano", "layer_governance": "runai", "name": ""}, "name"),
    ],
)
def test_the_page_refuses_a_bad_stack_with_a_message_and_keeps_what_was_typed(
    client, owner, fields, message
):
    evaluation = make_evaluation(owner)
    client.force_login(owner)
    data = {"action": "stack", "name": "My stack", "reason": "Typed reason.", "main": "governance"}
    response = client.post(shortlist(evaluation), {**data, **fields})
    assert response.status_code == 400
    body = response.content.decode()
    assert message in body and "Typed reason." in body
    assert not Candidate.objects.exists()


def test_a_reviewer_cannot_compose_a_stack(client, evaluation, people):
    client.force_login(people["reviewer"])
    response = client.post(
        shortlist(evaluation),
        {
            "action": "stack",
            "name": "S",
            "reason": "R",
            "layer_batch_queue": "volcano",
            "layer_governance": "runai",
            "main": "governance",
        },
    )
    assert response.status_code == 403 and not Candidate.objects.exists()


# --- the API ---------------------------------------------------------------------------------


def api(user):
    from rest_framework.test import APIClient

    client = APIClient()
    client.default_format = "json"
    client.force_authenticate(user)
    return client


STACK_BODY = {
    "name": "Volcano + Run:ai",
    "reason": "Batch queues underneath, governance on top.",
    "main": "governance",
    "layers": [
        {"role": "batch_queue", "solution": "volcano"},
        {"role": "governance", "solution": "runai"},
    ],
}


def test_the_api_composes_a_stack_and_lists_it_with_its_layers(evaluation, owner):
    created = api(owner).post(f"/api/evaluations/{evaluation.pk}/candidates/stacks/", STACK_BODY)
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["is_stack"] and body["name"] == "Volcano + Run:ai"
    assert body["solution"]["slug"] == "runai"
    assert [(x["role"], x["solution"]["slug"], x["main"]) for x in body["layers"]] == [
        ("batch_queue", "volcano", False),
        ("governance", "runai", True),
    ]
    listed = api(owner).get(f"/api/evaluations/{evaluation.pk}/candidates/").json()["results"]
    assert [c["name"] for c in listed if c["is_stack"]] == ["Volcano + Run:ai"]
    profile = api(owner).get(f"/api/evaluations/{evaluation.pk}/candidates/{body['id']}/profile/")
    assert profile.status_code == 200
    rows = profile.json()
    assert len(rows) == Capability.objects.count()
    assert {row["layer"] for row in rows} <= {"batch_queue", "governance", None}
    assert all(row["missing"] == (row["level"] in ("none", "unknown")) for row in rows)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"layers": [{"role": "batch_queue", "solution": "volcano"}]}, "layers"),
        ({"layers": [{"role": "batch_queue", "solution": "nope"}] * 2}, "layers"),
        (
            {
                "layers": [
                    {"role": "batch_queue", "solution": "volcano"},
                    {"role": "batch_queue", "solution": "runai"},
                ]
            },
            "layers",
        ),
        ({"layers": [{"role": "roof", "solution": "volcano"}]}, "layers"),
        ({"main": "burst"}, "main"),
        ({"name": ""}, "name"),
        ({"reason": ""}, "reason"),
    ],
)
def test_the_api_refuses_a_bad_stack_with_the_field_named(evaluation, owner, change, field):
    response = api(owner).post(
        f"/api/evaluations/{evaluation.pk}/candidates/stacks/", {**STACK_BODY, **change}
    )
    assert response.status_code == 400 and field in response.json(), response.content
    assert not Candidate.objects.exists()


def test_only_editors_compose_and_only_members_see_a_stack(evaluation, owner, people):
    path = f"/api/evaluations/{evaluation.pk}/candidates/stacks/"
    assert api(people["reviewer"]).post(path, STACK_BODY).status_code == 403
    assert api(people["outsider"]).post(path, STACK_BODY).status_code == 404
    stack = api(owner).post(path, STACK_BODY).json()
    profile = f"/api/evaluations/{evaluation.pk}/candidates/{stack['id']}/profile/"
    assert api(people["outsider"]).get(profile).status_code == 404
    assert api(people["viewer"]).get(profile).status_code == 200


# --- the responsibility matrix of a stack ----------------------------------------------------


def test_a_stack_matrix_starts_from_its_layers_types_and_has_the_areas_between_layers(owner):
    from responsibility.models import AreaRow
    from responsibility.services import matrix_prefill

    evaluation = make_evaluation(owner)
    k8s = solution_with({}, "open-source")
    platform = solution_with({}, "enterprise-platform")
    stack = compose(evaluation, owner, {"execution": k8s, "governance": platform})
    (single,) = add_candidates(evaluation, owner, "runai")
    matrix_prefill(user=owner, candidate=stack)
    matrix_prefill(user=owner, candidate=single)

    def letters(candidate, area):
        row = AreaRow.objects.get(candidate=candidate, area__key=area)
        return {c.party.key: c.letter for c in row.cells.all()}

    stack_areas = set(AreaRow.objects.filter(candidate=stack).values_list("area__key", flat=True))
    single_areas = set(AreaRow.objects.filter(candidate=single).values_list("area__key", flat=True))
    between = {"layers_implements", "layers_accepts", "layers_compatibility"}
    assert between <= stack_areas and not between & single_areas
    assert stack_areas - single_areas == between
    # Job execution is the execution layer's work (open source: the internal team runs it);
    # permissions and audit the governance layer's (the enterprise platform's defaults).
    from responsibility.services import prefill_for_type

    assert letters(stack, "job_execution") == prefill_for_type("open-source")[0]["job_execution"]
    platform_letters = prefill_for_type("enterprise-platform")[0]
    assert letters(stack, "permissions_audit") == platform_letters["permissions_audit"]


def test_areas_between_layers_are_not_a_single_solutions_to_fill(client, owner):
    from responsibility.services import matrix_prefill

    evaluation = make_evaluation(owner)
    (single,) = add_candidates(evaluation, owner, "runai")
    layers = {"batch_queue": Solution.objects.get(slug="volcano")}
    layers["governance"] = Solution.objects.get(slug="enterprise-container-platform")
    stack = compose(evaluation, owner, layers, main="batch_queue")
    matrix_prefill(user=owner, candidate=single)
    matrix_prefill(user=owner, candidate=stack)
    row = f"/api/evaluations/{evaluation.pk}/matrices/{single.pk}/rows/layers_implements/"
    assert api(owner).get(row).status_code == 404
    assert api(owner).put(row, {"letters": {"internal": "A"}}).status_code == 404
    stack_row = f"/api/evaluations/{evaluation.pk}/matrices/{stack.pk}/rows/layers_implements/"
    assert api(owner).get(stack_row).status_code == 200
    client.force_login(owner)
    saved = client.post(
        reverse("responsibility:matrix_save", args=[evaluation.pk, single.pk]),
        {"area": "layers_implements", "internal_fte": "0.1", "version": "0"},
    )
    assert saved.status_code == 404
    page = client.get(reverse("responsibility:matrices", args=[evaluation.pk]))
    assert page.status_code == 200 and "n/a" in page.content.decode()


# --- the report ------------------------------------------------------------------------------


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_the_report_prints_a_stack_layer_by_layer(owner, language):

    from reports.render import report_html
    from reports.snapshot import build_snapshot, snapshot_sha256

    evaluation = make_evaluation(owner, localisation_required=True)
    under = solution_with({"localised-accelerators": "native"})
    top = solution_with({"localised-accelerators": "none"}, "enterprise-platform")
    stack = compose(evaluation, owner, {"execution": under, "governance": top})
    add_candidates(evaluation, owner, "slurm")
    snapshot = build_snapshot(
        evaluation,
        language=language,
        generated_at="2027-01-01T00:00:00+00:00",
    )
    name = "name_en" if language == "en" else "name_zh_hans"
    (entry,) = [c for c in snapshot["candidates"] if c["name"] == stack.name]
    assert [(layer["name"], layer["main"]) for layer in entry["layers"]] == [
        (getattr(under, name), False),
        (getattr(top, name), True),
    ]
    (check,) = [k for k in entry["constraints"] if k["capabilities"][0]["layer"]]
    assert check["verdict"] == "met" and getattr(under, name) in check["capabilities"][0]["layer"]
    html = report_html(snapshot, snapshot_sha256(snapshot), language, for_pdf=False)
    assert stack.name in html and getattr(under, name) in html
    assert 'class="grid small layers"' in html


def test_a_stack_fits_the_scenarios_any_of_its_layers_is_listed_for(owner):
    from catalog.models import Scenario
    from evaluations.selectors import FitLevel, candidate_fit

    evaluation = make_evaluation(owner, scenarios=("training", "inference"))
    slurm = Solution.objects.get(slug="slurm")
    platform = Solution.objects.get(slug="enterprise-container-platform")
    stack = compose(evaluation, owner, {"execution": slurm, "governance": platform})
    wanted = list(Scenario.objects.filter(slug__in=["training", "inference"]))
    alone = candidate_fit(Candidate(evaluation=evaluation, solution=platform), wanted)
    combined = candidate_fit(stack, wanted)
    listed = {s.slug for s in [*slurm.scenarios.all(), *platform.scenarios.all()]}
    assert {s.slug for s in combined.listed} == listed
    assert "training" in {s.slug for s in combined.fits}
    assert FitLevel.ORDER[combined.level] <= FitLevel.ORDER[alone.level]
    assert stack.name in combined.reason
