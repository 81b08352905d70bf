"""POC API, a query count that does not grow with candidates, cases and reviewers, and the
schema listing every endpoint."""

from decimal import Decimal as D

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from common import roles
from evaluations.models import MemberRole
from evaluations.services import candidate_add
from poc import services
from poc.models import Consensus, Evidence, Score, TestCase
from tests.conftest import make_user
from tests.factories import (
    SolutionFactory,
    add_candidates,
    add_member,
    declare_none,
)
from tests.poc.api.support import (
    client_for,
    url,
)

pytestmark = pytest.mark.django_db


# --- query counts ----------------------------------------------------------------------------


def count_queries(user, path) -> int:
    client = client_for(user)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(path)
    assert response.status_code == 200
    return len(queries)


def test_queries_do_not_grow_with_candidates_cases_or_reviewers(evaluation, owner, people):
    r1 = people[MemberRole.REVIEWER]
    viewer = people[MemberRole.VIEWER]
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    declare_none(evaluation, r1)
    first = services.plan_case_add_library(
        user=owner, evaluation=evaluation, case=TestCase.objects.get(key="gang_under_contention")
    )
    services.score_save(
        user=r1, case=first, candidate=slurm, score="4", submit=True, expected_version=0
    )
    paths = [url(evaluation, "scorecard/"), url(evaluation, "results/")]
    small = {(u.pk, p): count_queries(u, p) for u in (r1, viewer) for p in paths}

    # Grow to 8 candidates × 27 cases × 3 reviewers, with evidence and consensus.
    services.plan_init(user=owner, evaluation=evaluation)
    add_candidates(
        evaluation,
        owner,
        "volcano",
        "kuberay",
        "runai",
        "kubernetes-gpu",
        "cloud-managed-gpu",
        "enterprise-container-platform",
    )
    candidate_add(user=owner, evaluation=evaluation, solution=SolutionFactory(), reason="Newcomer")
    reviewers = [r1]
    for name in ("rev2", "rev3"):
        user = make_user(roles.REVIEWER, username=name)
        add_member(evaluation, user, MemberRole.REVIEWER)
        reviewers.append(user)
    cases = list(evaluation.poc_cases.all())
    candidates = list(evaluation.candidates.all())
    now = timezone.now()
    Score.objects.bulk_create(
        Score(
            case=case,
            candidate=candidate,
            reviewer=reviewer,
            score=D((i + j + k) % 11) / 2,
            submitted_at=now if (i + k) % 4 else None,
            version=1,
        )
        for i, case in enumerate(cases)
        for j, candidate in enumerate(candidates)
        for k, reviewer in enumerate(reviewers)
        if not (case == first and candidate == slurm and reviewer == r1)
    )
    scores = list(Score.objects.filter(reviewer__in=reviewers[1:]))
    Evidence.objects.bulk_create(
        Evidence(
            score=s,
            file=f"evidence/{s.pk}.txt",
            original_name=f"{s.pk}.txt",
            content_type="text/plain",
            size=1,
            sha256="0" * 64,
            uploaded_by=s.reviewer,
        )
        for s in scores
    )
    Consensus.objects.bulk_create(
        Consensus(case=case, candidate=slurm, score=D("3"), reason="Agreed", decided_by=owner)
        for case in cases[::3]
    )
    assert len(cases) == 27 and len(candidates) == 8 and Score.objects.count() == 27 * 8 * 3

    big = {(u.pk, p): count_queries(u, p) for u in (r1, viewer) for p in paths}
    assert big == small
    card = client_for(viewer).get(url(evaluation, "scorecard/")).json()
    assert len(card["cells"]) == 27 * 8
    assert (
        sum(len(c["others"]) for c in card["cells"])
        == Score.objects.exclude(submitted_at=None).count()
    )


def test_the_schema_lists_the_poc_endpoints(owner):
    paths = client_for(owner).get("/api/schema/", {"format": "json"}).json()["paths"]
    base = "/api/evaluations/{evaluation_pk}/poc/"
    cell = base + "cells/{case_pk}/{candidate_pk}/"
    for path in [
        "/api/poc/groups/",
        "/api/poc/cases/",
        "/api/poc/profiles/",
        base + "plan/",
        base + "plan/init/",
        base + "plan/cases/",
        base + "plan/cases/{case_pk}/",
        base + "plan/groups/{group_key}/",
        base + "plan/profile/",
        base + "scorecard/",
        base + "scorecard.xlsx",
        base + "submit/",
        cell + "score/",
        cell + "consensus/",
        cell + "evidence/",
        base + "evidence/{evidence_pk}/",
        base + "results/",
    ]:
        assert path in paths, path
    assert {"get", "patch", "delete"} <= set(paths[base + "plan/cases/{case_pk}/"])
