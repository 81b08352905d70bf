"""Matrices and costs through the services: prefill, cell edits, checks, concurrency, reminders."""

from decimal import Decimal as D

import pytest
from django.core.exceptions import ValidationError

from common.exceptions import Conflict, Forbidden, StaleEdit
from evaluations.models import MemberRole
from evaluations.reminders import reminders_for
from evaluations.selectors import evaluation_data
from responsibility import services
from responsibility.models import Area, Party
from responsibility.selectors import evaluation_costs, evaluation_matrices
from tests.factories import add_candidates

pytestmark = pytest.mark.django_db


def party(key):
    return Party.objects.get(evaluation=None, key=key)


def area(key):
    return Area.objects.get(key=key)


def matrix_of(evaluation, candidate):
    return next(m for m in evaluation_matrices(evaluation) if m.candidate.pk == candidate.pk)


def single_areas() -> int:
    """Areas a single solution's matrix has (not those between a stack's layers)."""
    return Area.objects.filter(is_active=True, stack_only=False).count()


def reminder_keys(evaluation):
    return {r.key.split(":")[0] for r in reminders_for(evaluation_data(evaluation))}


def test_seeded_library():
    assert Party.objects.filter(evaluation=None).count() == 5
    assert Area.objects.count() == 44
    assert set(Area.objects.filter(stack_only=True).values_list("key", flat=True)) == {
        "layers_implements",
        "layers_accepts",
        "layers_compatibility",
        # only a stack whose layers duplicate the control (evaluations.stack_controls)
        "layer_owner_quota",
        "layer_owner_tenancy",
        "layer_owner_monitoring",
        "layer_owner_rbac",
    }
    assert set(Area.objects.filter(governance=True).values_list("key", flat=True)) == {
        "permissions_audit",
        "tenant_quota_governance",
        "request_approval_flow",
        "unified_audit_record",
        "layer_owner_quota",
        "layer_owner_tenancy",
        "layer_owner_rbac",
    }
    for a in Area.objects.all():
        assert a.name_en and a.name_zh_hans


def test_prefill_depends_on_the_type(evaluation, owner):
    slurm, runai = add_candidates(evaluation, owner, "slurm", "runai")
    assert services.matrix_prefill(user=owner, candidate=slurm) == single_areas()
    services.matrix_prefill(user=owner, candidate=runai)
    m_slurm, m_runai = matrix_of(evaluation, slurm), matrix_of(evaluation, runai)

    def accountable(m, key):
        return next(r.check.accountable for r in m.rows if r.area.key == key)

    assert accountable(m_slurm, "upgrades_maintenance") == ("internal",)
    assert accountable(m_runai, "upgrade_cadence") == ("vendor",)
    assert accountable(m_runai, "permissions_audit") == ("internal",)
    assert m_slurm.fte_total > m_runai.fte_total > 0
    # Prefilling again keeps edited rows and adds nothing.
    services.cell_set(
        user=owner,
        candidate=slurm,
        area=area("queue_policy"),
        party=party("vendor"),
        letter="R",
        expected_version=1,
    )
    assert services.matrix_prefill(user=owner, candidate=slurm) == 0
    row = next(r for r in matrix_of(evaluation, slurm).rows if r.area.key == "queue_policy")
    assert row.letters[party("vendor").pk] == "R"


def test_cells_drive_gap_conflict_and_coverage(evaluation, owner):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    a = area("job_execution")
    services.cell_set(
        user=owner, candidate=slurm, area=a, party=party("internal"), letter="A", expected_version=0
    )
    services.cell_set(
        user=owner, candidate=slurm, area=a, party=party("vendor"), letter="a", expected_version=1
    )
    m = matrix_of(evaluation, slurm)
    assert [c.area for c in m.result.conflicts] == ["job_execution"]
    assert len(m.result.unanswered) == single_areas() - 1
    services.cell_set(
        user=owner, candidate=slurm, area=a, party=party("vendor"), letter="R", expected_version=2
    )
    m = matrix_of(evaluation, slurm)
    assert m.result.ok_count == 1
    assert m.result.coverage == (D(100) / len(m.result.areas)).quantize(D("0.1"))
    services.cell_set(
        user=owner, candidate=slurm, area=a, party=party("internal"), letter="", expected_version=3
    )
    assert [c.area for c in matrix_of(evaluation, slurm).result.gaps] == ["job_execution"]


def test_bad_input_and_stale_edits(evaluation, owner, people):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    a = area("fault_handling")
    with pytest.raises(ValidationError, match="R, A, AR"):
        services.cell_set(
            user=owner,
            candidate=slurm,
            area=a,
            party=party("internal"),
            letter="X",
            expected_version=0,
        )
    with pytest.raises(ValidationError, match="Only one party can be accountable"):
        services.row_update(
            user=owner,
            candidate=slurm,
            area=a,
            expected_version=0,
            letters={party("internal"): "A", party("vendor"): "A"},
        )
    with pytest.raises(ValidationError, match="between 0 and 50"):
        services.row_update(
            user=owner, candidate=slurm, area=a, expected_version=0, internal_fte="-1"
        )
    assert not slurm.area_rows.exists()  # nothing half-saved
    services.row_update(
        user=owner,
        candidate=slurm,
        area=a,
        expected_version=0,
        letters={party("internal"): "A", party("vendor"): "R"},
        note="Vendor on call",
        internal_fte="0.5",
    )
    with pytest.raises(StaleEdit):
        services.cell_set(
            user=people[MemberRole.EDITOR],
            candidate=slurm,
            area=a,
            party=party("cloud"),
            letter="C",
            expected_version=0,
        )
    with pytest.raises(Forbidden):
        services.cell_set(
            user=people[MemberRole.VIEWER],
            candidate=slurm,
            area=a,
            party=party("cloud"),
            letter="C",
            expected_version=1,
        )
    other = services.party_add(
        user=owner, evaluation=evaluation, name="Systems integrator", kind="vendor"
    )
    assert other.key == "systems_integrator"
    services.cell_set(
        user=owner, candidate=slurm, area=a, party=other, letter="C", expected_version=1
    )


def test_eliminated_candidate_matrix_is_read_only(evaluation, owner):
    from evaluations.services import candidate_eliminate

    (slurm,) = add_candidates(evaluation, owner, "slurm")
    candidate_eliminate(user=owner, candidate=slurm, reason="No HPC team", expected_version=1)
    slurm.refresh_from_db()
    with pytest.raises(Conflict):
        services.matrix_prefill(user=owner, candidate=slurm)


def test_costs_use_the_matrix_effort(evaluation, owner):
    (slurm,) = add_candidates(evaluation, owner, "slurm")
    services.row_update(
        user=owner,
        candidate=slurm,
        area=area("job_execution"),
        expected_version=0,
        internal_fte="1.5",
    )
    services.row_update(
        user=owner,
        candidate=slurm,
        area=area("user_support"),
        expected_version=0,
        internal_fte="0.5",
    )
    services.cost_settings_save(
        user=owner, evaluation=evaluation, expected_version=0, fte_cost_per_year=D("600000")
    )
    services.cost_input_save(user=owner, candidate=slurm, expected_version=0, one_off=D("100000"))
    settings, rows = evaluation_costs(evaluation)
    assert settings.years == 3 and settings.currency == "CNY"
    (row,) = rows
    assert row.fte == D("2.00")
    assert row.result.total == D("3700000.00")
    _settings, what_if = evaluation_costs(evaluation, fte_cost_per_year=D("500000"))
    assert what_if[0].result.total == D("3100000.00")
    with pytest.raises(ValidationError):
        services.cost_input_save(
            user=owner, candidate=slurm, expected_version=1, licence_per_year=D("-5")
        )
    with pytest.raises(ValidationError):
        services.cost_settings_save(
            user=owner, evaluation=evaluation, expected_version=1, currency="yuan"
        )


def test_responsibility_reminders_fire_and_clear(evaluation, owner):
    slurm, runai, gke = add_candidates(evaluation, owner, "slurm", "runai", "cloud-managed-gpu")
    assert not {
        "price-without-responsibilities",
        "open-source-zero-people",
        "commercial-no-internal-owner",
        "matrix-gaps",
    } & reminder_keys(evaluation)
    # A price for Run:ai while its matrix is empty: "price compared, responsibilities not".
    services.cost_input_save(
        user=owner, candidate=runai, expected_version=0, licence_per_year=D("300000")
    )
    assert "price-without-responsibilities" in reminder_keys(evaluation)
    # Open source costed with no internal people.
    services.cost_input_save(user=owner, candidate=slurm, expected_version=0, one_off=D("50000"))
    assert "open-source-zero-people" in reminder_keys(evaluation)
    services.matrix_prefill(user=owner, candidate=slurm)
    assert "open-source-zero-people" not in reminder_keys(evaluation)
    # A commercial platform where nobody internal owns permissions and audit.
    services.matrix_prefill(user=owner, candidate=runai)
    assert "commercial-no-internal-owner" not in reminder_keys(evaluation)
    row = runai.area_rows.get(area__key="permissions_audit")
    services.row_update(
        user=owner,
        candidate=runai,
        area=area("permissions_audit"),
        expected_version=row.version,
        letters={party("vendor"): "A", party("internal"): "R"},
    )
    assert "commercial-no-internal-owner" in reminder_keys(evaluation)
    # A conflict is a gap-or-conflict reminder too.
    row = runai.area_rows.get(area__key="permissions_audit")
    services.cell_set(
        user=owner,
        candidate=runai,
        area=area("permissions_audit"),
        party=party("internal"),
        letter="A",
        expected_version=row.version,
    )
    assert "matrix-gaps" in reminder_keys(evaluation)
    assert "commercial-no-internal-owner" not in reminder_keys(evaluation)
    _ = gke
