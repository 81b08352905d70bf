"""The seeds' cost and responsibility risks, as a table: each row builds a situation through the
services and says whether the reminder for that risk fires.

    open-source-zero-people         "open source is free, so its total cost is low": an
                                    open-source candidate whose cost model has no people cost
    commercial-no-internal-owner    "a commercial platform means no governance work": an
                                    enterprise platform's (or cloud service's) matrix leaves no
                                    internal team accountable for a governance area it answers
    price-without-responsibilities  "prices compared, responsibilities not"
    matrix-gaps                     "no agreed vendor / internal boundary": nobody or two
                                    accountable for an area
    hybrid-without-unified-owner    "hybrid without a unified catalogue and audit": the
                                    evaluation plans several resource sources and a candidate's
                                    matrix has nobody accountable for the resource catalogue,
                                    request flow, cost attribution or audit record
"""

from decimal import Decimal as D

import pytest

from evaluations import services as evaluation_services
from evaluations.reminders import reminders_for
from evaluations.selectors import evaluation_data
from responsibility import services
from responsibility.models import Area, Party
from responsibility.reminders import HYBRID_AREAS
from tests.factories import add_candidates

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(evaluation, owner):
    slurm, runai, cloud = add_candidates(evaluation, owner, "slurm", "runai", "cloud-managed-gpu")
    return {
        "evaluation": evaluation,
        "owner": owner,
        "slurm": slurm,
        "runai": runai,
        "cloud": cloud,
    }


def party(key):
    return Party.objects.get(evaluation=None, key=key)


def set_row(w, candidate, area_key, letters, **extra):
    c = w[candidate]
    row = c.area_rows.filter(area__key=area_key).first()
    services.row_update(
        user=w["owner"],
        candidate=c,
        area=Area.objects.get(key=area_key),
        expected_version=row.version if row else None,
        letters={party(k): v for k, v in letters.items()},
        **extra,
    )


def cost(w, candidate, **values):
    services.cost_input_save(
        user=w["owner"], candidate=w[candidate], expected_version=None, **values
    )


def prefill(w, *candidates):
    for c in candidates:
        services.matrix_prefill(user=w["owner"], candidate=w[c])


# --- open source costed without people --------------------------------------------------------


def os_not_costed(w):
    """No cost inputs at all: the cost page shows it as missing, nothing claims it is cheap."""


def os_costed_matrix_empty(w):
    cost(w, "slurm", one_off=D("50000"))


def os_costed_effort_from_prefill(w):
    cost(w, "slurm", one_off=D("50000"))
    prefill(w, "slurm")


def os_costed_one_row_zero_fte(w):
    cost(w, "slurm", one_off=D("50000"))
    set_row(w, "slurm", "job_execution", {"internal": "A", "business": "R"}, internal_fte="0")


def os_costed_one_row_with_fte(w):
    cost(w, "slurm", one_off=D("50000"))
    set_row(w, "slurm", "job_execution", {"internal": "A", "business": "R"}, internal_fte="0.5")


def os_costed_fte_cost_zero(w):
    cost(w, "slurm", one_off=D("50000"))
    prefill(w, "slurm")
    services.cost_settings_save(
        user=w["owner"], evaluation=w["evaluation"], expected_version=0, fte_cost_per_year="0"
    )


def commercial_costed_matrix_empty(w):
    """Run:ai with a licence and no internal effort: not open source (other reminders speak)."""
    cost(w, "runai", licence_per_year=D("300000"))


# --- commercial platform without internal governance owner ----------------------------------


def commercial_prefilled(w):
    prefill(w, "runai", "cloud")


def runai_vendor_owns_audit(w):
    prefill(w, "runai")
    set_row(w, "runai", "permissions_audit", {"vendor": "A", "internal": "R"})


def runai_security_team_owns_audit(w):
    """The enterprise's security team is accountable: governance stays in house."""
    prefill(w, "runai")
    set_row(w, "runai", "permissions_audit", {"security": "A", "vendor": "R"})


def runai_nobody_owns_quotas(w):
    prefill(w, "runai")
    set_row(w, "runai", "tenant_quota_governance", {"vendor": "R", "business": "C"})


def runai_governance_unanswered(w):
    """Only one area answered so far: the matrix says nothing about governance yet."""
    set_row(w, "runai", "job_execution", {"internal": "A", "business": "R"})


def runai_business_team_owns_quotas(w):
    """The business teams being governed cannot govern themselves."""
    prefill(w, "runai")
    set_row(w, "runai", "tenant_quota_governance", {"business": "A", "internal": "R"})


def cloud_provider_owns_quotas(w):
    prefill(w, "cloud")
    set_row(w, "cloud", "tenant_quota_governance", {"cloud": "A", "internal": "R"})


def open_source_vendor_owns_audit(w):
    """Not a commercial platform: this risk does not apply (the gap reminders still do)."""
    prefill(w, "slurm")
    set_row(w, "slurm", "permissions_audit", {"vendor": "A", "internal": "R"})


# --- prices compared, responsibilities not; no agreed boundary -------------------------------


def priced_matrix_empty(w):
    cost(w, "runai", licence_per_year=D("300000"))


def priced_matrix_prefilled(w):
    """Every area has its one accountable party and someone who does the work (AR where the
    accountable party does it itself): the seeded starting matrix is fully assigned."""
    cost(w, "runai", licence_per_year=D("300000"))
    prefill(w, "runai")


def priced_matrix_with_a_gap(w):
    priced_matrix_prefilled(w)
    set_row(w, "runai", "fault_handling", {"vendor": "R", "business": "C"})


def priced_matrix_one_area_without_r(w):
    """An accountable party but nobody doing the work: not settled, whatever the type."""
    priced_matrix_prefilled(w)
    set_row(w, "runai", "fault_handling", {"internal": "A", "vendor": "C"})


def priced_open_source_prefilled(w):
    cost(w, "slurm", hardware_one_off=D("2000000"))
    prefill(w, "slurm")


def priced_matrix_one_area_unanswered(w):
    priced_matrix_prefilled(w)
    set_row(w, "runai", "fault_handling", {})


def not_priced_matrix_empty(w):
    pass


def two_accountable(w):
    prefill(w, "runai")
    set_row(w, "runai", "fault_handling", {"internal": "A", "vendor": "R"})
    c = w["runai"]
    row = c.area_rows.get(area__key="fault_handling")
    services.cell_set(
        user=w["owner"],
        candidate=c,
        area=row.area,
        party=party("vendor"),
        letter="A",
        expected_version=row.version,
    )


# --- hybrid without a unified catalogue and audit owner ---------------------------------------


def plans_hybrid(w, value=True):
    e = w["evaluation"]
    e.refresh_from_db()
    evaluation_services.evaluation_update(
        user=w["owner"], evaluation=e, expected_version=e.version, plans_hybrid=value
    )


def hybrid_matrices_empty(w):
    plans_hybrid(w)


def hybrid_prefilled(w):
    """Every seeded type starts with the internal team accountable for the four areas."""
    plans_hybrid(w)
    prefill(w, "slurm", "runai", "cloud")


def hybrid_audit_record_without_owner(w):
    hybrid_prefilled(w)
    set_row(w, "runai", "unified_audit_record", {"vendor": "R", "security": "C"})


def hybrid_catalogue_unanswered(w):
    hybrid_prefilled(w)
    set_row(w, "cloud", "unified_resource_catalogue", {})


def hybrid_vendor_owns_cost_attribution(w):
    """An accountable party outside the enterprise is still an owner: this risk is about none."""
    hybrid_prefilled(w)
    set_row(w, "runai", "cost_attribution", {"vendor": "A", "internal": "R"})


def not_hybrid_matrices_empty(w):
    """One resource source: nothing to unify, whatever the matrices say."""


def hybrid_dropped_again(w):
    hybrid_audit_record_without_owner(w)
    plans_hybrid(w, False)


ROWS = [
    ("open-source-zero-people", os_not_costed, False),
    ("open-source-zero-people", os_costed_matrix_empty, True),
    ("open-source-zero-people", os_costed_effort_from_prefill, False),
    ("open-source-zero-people", os_costed_one_row_zero_fte, True),
    ("open-source-zero-people", os_costed_one_row_with_fte, False),
    ("open-source-zero-people", os_costed_fte_cost_zero, True),
    ("open-source-zero-people", commercial_costed_matrix_empty, False),
    ("commercial-no-internal-owner", commercial_prefilled, False),
    ("commercial-no-internal-owner", runai_vendor_owns_audit, True),
    ("commercial-no-internal-owner", runai_security_team_owns_audit, False),
    ("commercial-no-internal-owner", runai_nobody_owns_quotas, True),
    ("commercial-no-internal-owner", runai_governance_unanswered, False),
    ("commercial-no-internal-owner", runai_business_team_owns_quotas, True),
    ("commercial-no-internal-owner", cloud_provider_owns_quotas, True),
    ("commercial-no-internal-owner", open_source_vendor_owns_audit, False),
    ("price-without-responsibilities", priced_matrix_empty, True),
    ("price-without-responsibilities", priced_matrix_prefilled, False),
    ("price-without-responsibilities", priced_matrix_with_a_gap, True),
    ("price-without-responsibilities", priced_matrix_one_area_unanswered, True),
    ("price-without-responsibilities", priced_matrix_one_area_without_r, True),
    ("price-without-responsibilities", priced_open_source_prefilled, False),
    ("price-without-responsibilities", not_priced_matrix_empty, False),
    ("matrix-gaps", commercial_prefilled, False),
    ("matrix-gaps", two_accountable, True),
    ("hybrid-without-unified-owner", hybrid_matrices_empty, True),
    ("hybrid-without-unified-owner", hybrid_prefilled, False),
    ("hybrid-without-unified-owner", hybrid_audit_record_without_owner, True),
    ("hybrid-without-unified-owner", hybrid_catalogue_unanswered, True),
    ("hybrid-without-unified-owner", hybrid_vendor_owns_cost_attribution, False),
    ("hybrid-without-unified-owner", not_hybrid_matrices_empty, False),
    ("hybrid-without-unified-owner", hybrid_dropped_again, False),
]


def found(w) -> dict:
    return {r.key: r for r in reminders_for(evaluation_data(w["evaluation"]))}


def fired(w, key) -> list:
    return [r for k, r in found(w).items() if k == key or k.startswith(f"{key}:")]


@pytest.mark.parametrize(
    ("key", "situation", "fires"), ROWS, ids=[f"{k}-{s.__name__}" for k, s, _f in ROWS]
)
def test_risk_reminder_table(world, key, situation, fires):
    situation(world)
    assert bool(fired(world, key)) is fires


def test_zero_people_says_why_and_links_to_what_is_zero(world):
    os_costed_matrix_empty(world)
    [r] = fired(world, "open-source-zero-people")
    assert "0 FTE" in r.why and r.fix_url.endswith(f"/responsibility/{world['slurm'].pk}/")
    prefill(world, "slurm")
    assert not fired(world, "open-source-zero-people")
    services.cost_settings_save(
        user=world["owner"],
        evaluation=world["evaluation"],
        expected_version=0,
        fte_cost_per_year="0",
    )
    [r] = fired(world, "open-source-zero-people")
    assert "cost per FTE-year is set to 0" in r.why and r.fix_url.endswith(
        "/costs/#id_fte_cost_per_year"
    )


def test_governance_reminder_names_who_is_accountable_instead(world):
    runai_vendor_owns_audit(world)
    [r] = fired(world, "commercial-no-internal-owner")
    assert "Permissions and audit (accountable: Vendor)" in r.why
    assert "Tenant quota" not in r.why  # still owned internally
    set_row(world, "runai", "tenant_quota_governance", {"vendor": "R"})
    [r] = fired(world, "commercial-no-internal-owner")
    assert "(nobody accountable)" in r.why
    # Handing audit back to the internal team clears it for that area.
    set_row(world, "runai", "permissions_audit", {"internal": "A", "vendor": "R"})
    set_row(world, "runai", "tenant_quota_governance", {"internal": "A", "vendor": "R"})
    assert not fired(world, "commercial-no-internal-owner")


def test_hybrid_reminder_names_the_candidate_and_the_areas_and_clears_when_owned(world):
    hybrid_matrices_empty(world)
    fired_for = {r.key: r for r in fired(world, "hybrid-without-unified-owner")}
    assert set(fired_for) == {
        f"hybrid-without-unified-owner:{world[c].pk}" for c in ("slurm", "runai", "cloud")
    }
    assert all(r.severity == "high" for r in fired_for.values())

    hybrid_audit_record_without_owner(world)
    [r] = fired(world, "hybrid-without-unified-owner")
    runai = world["runai"]
    assert r.key == f"hybrid-without-unified-owner:{runai.pk}"
    assert runai.name in r.title and "Audit record across sources" in r.why
    assert "Unified resource catalogue" not in r.why  # the internal team owns it
    assert r.fix_url.endswith(f"/responsibility/{runai.pk}/#row-unified_audit_record")

    set_row(world, "runai", "unified_audit_record", {"internal": "A", "vendor": "R"})
    assert not fired(world, "hybrid-without-unified-owner")


def test_hybrid_reminder_shows_on_the_page_and_in_the_api(world, client):
    hybrid_audit_record_without_owner(world)
    e, runai = world["evaluation"], world["runai"]
    client.force_login(world["owner"])
    page = client.get(f"/evaluations/{e.pk}/").content.decode()
    assert f"Hybrid route without a unified owner under {runai.name}" in page
    api = client.get(f"/api/evaluations/{e.pk}/reminders/").json()
    assert f"hybrid-without-unified-owner:{runai.pk}" in {r["key"] for r in api}


def test_the_hybrid_areas_are_seeded_in_both_languages_with_a_start_for_every_type():
    areas = {a.key: a for a in Area.objects.filter(key__in=HYBRID_AREAS)}
    assert set(areas) == set(HYBRID_AREAS)
    assert all(a.is_active and a.name_en and a.name_zh_hans for a in areas.values())
    for slug in ("open-source", "cloud-managed", "enterprise-platform", "hybrid"):
        letters, _fte = services.prefill_for_type(slug)
        assert all(
            sum(v in ("A", "AR") for v in letters[key].values()) == 1 for key in HYBRID_AREAS
        ), slug
