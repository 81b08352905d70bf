"""Approvals moved from evaluations to signoff with every row (evaluations 0015, signoff 0001):
on a database at the state before the move, holding approvals and their history, migrating
forward leaves each row with the same values under signoff's table names, and the content types
keep their ids (so permissions still point at them). Backwards as well, then forward again.

It migrates the test database back and forth, so it commits (transaction=True) and puts the
latest state back however it ends."""

from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from common import roles
from reports.models import ReportRun
from signoff.models import Approval
from tests.conftest import make_user
from tests.factories import make_evaluation

PRE_MOVE = ("evaluations", "0014_stamp_epoch_digest_day")
BEFORE = [PRE_MOVE, ("signoff", None)]
AFTER = [("evaluations", "0015_approvals_move_to_signoff"), ("signoff", "0001_initial")]
MODELS = ("approval", "historicalapproval")
WHEN = datetime(2027, 1, 15, 9, 30, tzinfo=UTC)


def migrate(targets) -> MigrationExecutor:
    executor = MigrationExecutor(connection)  # reads what is applied now
    executor.migrate(targets)
    return executor


def rows(table: str) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)} ORDER BY 1")
        return cursor.fetchall()


def tables() -> set[str]:
    return set(connection.introspection.table_names())


def content_type_ids(app_label: str) -> dict[str, int]:
    found = ContentType.objects.filter(app_label=app_label, model__in=MODELS)
    return dict(found.values_list("model", "pk"))


def make_approvals(state_apps, evaluation, owner, approver, run) -> None:
    """Three requests (pending, approved, withdrawn) and a history row for each step, written
    through the models as they were before the move."""
    OldApproval = state_apps.get_model("evaluations", "Approval")
    OldHistory = state_apps.get_model("evaluations", "HistoricalApproval")
    common = {"evaluation_id": evaluation.pk, "requested_by_id": owner.pk, "requested_at": WHEN}
    pending = OldApproval.objects.create(approver_id=approver.pk, role="Procurement", **common)
    approved = OldApproval.objects.create(
        approver_id=owner.pk,
        role="Tech lead",
        decision="approved",
        comment="Matches what we agreed.",
        decided_at=WHEN,
        report_run_id=run.pk,
        snapshot_sha256=run.snapshot_sha256,
        report_language="en",
        version=2,
        **common,
    )
    withdrawn = OldApproval.objects.create(
        approver_id=approver.pk,
        role="Security",
        voided_at=WHEN,
        void_reason="Withdrawn by the owner.",
        version=2,
        **{**common, "requested_at": WHEN.replace(hour=8)},
    )
    history = ("id", "version", "role", "requested_at", "decision", "comment", "decided_at")
    steps = [
        (pending, "+", None),
        (approved, "+", None),
        (approved, "~", "Decision recorded."),
        (withdrawn, "+", None),
        (withdrawn, "~", "Withdrawn by the owner."),
    ]
    for n, (row, kind, reason) in enumerate(steps):
        OldHistory.objects.create(
            **{name: getattr(row, name) for name in history},
            evaluation_id=row.evaluation_id,
            approver_id=row.approver_id,
            requested_by_id=row.requested_by_id,
            report_run_id=row.report_run_id,
            snapshot_sha256=row.snapshot_sha256,
            report_language=row.report_language,
            voided_at=row.voided_at,
            void_reason=row.void_reason,
            history_date=WHEN.replace(minute=n),
            history_type=kind,
            history_change_reason=reason,
            history_user_id=owner.pk,
        )


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_moving_approvals_to_signoff_keeps_every_row_and_content_type(seeded):
    owner = make_user(roles.TECH_LEAD, username="move-owner")
    approver = make_user(roles.PROCUREMENT, username="move-approver")
    evaluation = make_evaluation(owner, title="Moved approvals")
    run = ReportRun.objects.create(
        evaluation=evaluation,
        requested_by=owner,
        language="en",
        status="done",
        snapshot={},
        snapshot_sha256="a" * 64,
    )
    moved_types = content_type_ids("signoff")
    assert set(moved_types) == set(MODELS)
    try:
        executor = migrate(BEFORE)
        assert {"evaluations_approval", "evaluations_historicalapproval"} <= tables()
        assert not {"signoff_approval", "signoff_historicalapproval"} & tables()
        assert content_type_ids("evaluations") == moved_types  # the same rows, named back
        make_approvals(
            executor.loader.project_state(PRE_MOVE).apps, evaluation, owner, approver, run
        )
        before = {model: rows(f"evaluations_{model}") for model in MODELS}
        assert [len(before[model]) for model in MODELS] == [3, 5]

        migrate(AFTER)
        assert not {"evaluations_approval", "evaluations_historicalapproval"} & tables()
        assert {model: rows(f"signoff_{model}") for model in MODELS} == before
        assert content_type_ids("signoff") == moved_types and not content_type_ids("evaluations")
        change = Permission.objects.get(codename="change_approval")
        assert change.content_type_id == moved_types["approval"]

        # Back and forth once more: nothing lost either way.
        migrate(BEFORE)
        assert {model: rows(f"evaluations_{model}") for model in MODELS} == before
        migrate(AFTER)
        assert {model: rows(f"signoff_{model}") for model in MODELS} == before
    finally:
        latest = MigrationExecutor(connection)
        latest.migrate(latest.loader.graph.leaf_nodes())
        ContentType.objects.clear_cache()

    # The models read the moved rows: requests, their history and its authors.
    assert ContentType.objects.get_for_model(Approval).pk == moved_types["approval"]
    approved = Approval.objects.get(evaluation=evaluation, decision="approved")
    assert approved.report_run == run and approved.snapshot_sha256 == run.snapshot_sha256
    assert Approval.objects.filter(evaluation=evaluation, voided_at__isnull=False).count() == 1
    history = Approval.history.filter(evaluation_id=evaluation.pk)
    assert history.count() == 5 and {h.history_user for h in history} == {owner}
    assert history.get(id=approved.pk, history_type="~").history_change_reason == (
        "Decision recorded."
    )
