"""What the demo evaluations share in every language: users, slugs, answers' parties and
assessments, costs, score biases, planned disagreements, matrix letters and test-bed hardware.

Everything the demo users typed (notes, explanations, reasons, rationale…) is in the language
files next to this module (en.yaml, zh-hans.yaml), keyed the same way as the tables here."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from common.roles import PROCUREMENT, REVIEWER, TECH_LEAD
from evaluations.models import MemberRole

# The languages the demo exists in, in the order `manage.py demo` loads them.
LANGUAGES = ("en", "zh-hans")
# Both demos draw their POC scores from the same seed, so they score alike.
SEED = 2027

# username, global role, first name, last name, role in the demo evaluation
DEMO_USERS = [
    ("techlead", TECH_LEAD, "Tao", "Lead", MemberRole.OWNER),
    ("reviewer", REVIEWER, "Rui", "Reviewer", MemberRole.REVIEWER),
    ("reviewer2", REVIEWER, "Lin", "Reviewer", MemberRole.REVIEWER),
    ("reviewer3", REVIEWER, "Sam", "Reviewer", MemberRole.REVIEWER),
    ("procurement", PROCUREMENT, "Pat", "Procurement", MemberRole.VIEWER),
]
SCORERS = ["reviewer", "reviewer2", "reviewer3"]
SCENARIOS = ["training", "inference"]

# context question key -> answer (the detail is in the language files)
CONTEXT = {
    "hpc_batch_queues": "yes",
    "container_platform_inference": "yes",
    "k8s_batch_jobs": "yes",
    "ray_workloads": "no",
    "multitenancy_utilisation": "yes",
    "single_cloud": "no",
    "heterogeneous_accelerators": "yes",
    "governance_localised": "yes",
    "private_deployment": "yes",
    "compliance_regime": "yes",
}

CLOUD_SLUG = "cloud-managed-gpu"

# The combined route the seeds call the usual outcome: open-source execution and queues
# underneath, an enterprise platform on top for one resource view, tenants, audit and service.
STACK_KEY = "stack"
STACK_LAYERS = {
    "execution": "kubernetes-gpu",
    "batch_queue": "volcano",
    "governance": "enterprise-container-platform",
}

# The order the shortlisted candidates are scored in (the catalog's order of suggestions): the
# random draws go cell by cell in this order, so every language draws the same scores.
SCORING_ORDER = [
    "kubernetes-gpu",
    "runai",
    "slurm",
    "volcano",
    "enterprise-container-platform",
    STACK_KEY,
]

E = "https://example.com/poc/"

# candidate key -> question key -> (who, answer, evidence link): "who" is the party key (or
# keys) a who-question names; "answer" is the assessment of a yes/no question or what the budget
# weighs more for the budget question (each question's scale says which is read). The
# explanations are in the language files under `answers`.
ANSWERS = {
    "slurm": {
        "long_term_team": ("internal", "yes", ""),
        "incident_triage": ("internal", "partly", ""),
        "new_hardware_validation": ("internal", "partly", ""),
        "compliance_evidence": ("internal", "partly", f"{E}slurm-accounting-report"),
        "budget_focus": ("internal", "people", ""),
    },
    "kubernetes-gpu": {
        "long_term_team": ("internal", "yes", ""),
        "incident_triage": ("internal", "partly", ""),
        "new_hardware_validation": ("internal", "partly", ""),
        "compliance_evidence": ("internal", "partly", ""),
        "budget_focus": ("internal", "people", ""),
    },
    "volcano": {
        "long_term_team": ("internal", "yes", ""),
        "incident_triage": ("internal", "partly", ""),
        "new_hardware_validation": ("internal", "yes", f"{E}volcano-heterogeneous-run"),
        "compliance_evidence": ("internal", "partly", ""),
        "budget_focus": ("internal", "people", ""),
    },
    "runai": {
        "long_term_team": ("internal", "yes", ""),
        "incident_triage": ("vendor", "partly", f"{E}runai-support-ticket"),
        "new_hardware_validation": (("vendor", "internal"), "partly", ""),
        "compliance_evidence": ("vendor", "yes", f"{E}runai-audit-export"),
        "budget_focus": ("business", "software", ""),
    },
    "enterprise-container-platform": {
        "long_term_team": ("vendor", "yes", ""),
        "incident_triage": ("vendor", "yes", f"{E}ecp-fault-drill"),
        "new_hardware_validation": ("vendor", "yes", ""),
        "compliance_evidence": ("vendor", "yes", f"{E}ecp-audit-pack"),
        "budget_focus": ("internal", "both", ""),
    },
    STACK_KEY: {
        "long_term_team": ("internal", "partly", ""),
        "incident_triage": (("vendor", "internal"), "partly", ""),
        "new_hardware_validation": (("vendor", "internal"), "yes", ""),
        "compliance_evidence": ("vendor", "yes", ""),
        "budget_focus": ("internal", "both", ""),
    },
}
# A question the demo has no answer for (a five question added later): the language files'
# `answer_fallback` explains it.
FALLBACK_ANSWER = ("internal", "partly", "")

# candidate key -> cost inputs (CNY)
COSTS = {
    "slurm": {
        "vendor_services_per_year": 150000,
        "hardware_one_off": 1200000,
        "hardware_per_year": 180000,
        "one_off": 300000,
    },
    "kubernetes-gpu": {
        "hardware_one_off": 800000,
        "hardware_per_year": 150000,
        "one_off": 450000,
    },
    "volcano": {
        "hardware_one_off": 800000,
        "hardware_per_year": 150000,
        "one_off": 350000,
    },
    "runai": {
        "licence_per_year": 1800000,
        "vendor_services_per_year": 300000,
        "hardware_one_off": 600000,
        "hardware_per_year": 120000,
        "one_off": 500000,
    },
    "enterprise-container-platform": {
        "licence_per_year": 1200000,
        "vendor_services_per_year": 400000,
        "hardware_one_off": 600000,
        "hardware_per_year": 120000,
        "one_off": 600000,
    },
    # The platform layer's licence and services, the open-source layers' hardware, and a larger
    # one-off for integrating the layers.
    STACK_KEY: {
        "licence_per_year": 900000,
        "vendor_services_per_year": 300000,
        "hardware_one_off": 700000,
        "hardware_per_year": 130000,
        "one_off": 750000,
    },
    CLOUD_SLUG: {
        "gpu_count": 64,
        "gpu_hours_per_year": Decimal("6000"),
        "gpu_price_per_hour": Decimal("28"),
        "utilisation": Decimal("0.7"),
        "one_off": 200000,
    },
}
COST_SETTINGS = {"years": 3, "currency": "CNY", "fte_cost_per_year": Decimal("650000")}

# Mean POC score per candidate and test group: who is strong where.
BIAS = {
    "slurm": {
        "batch_training": 4.3,
        "inference_serving": 1.6,
        "governance": 2.9,
        "abnormal_long_running": 3.5,
    },
    "kubernetes-gpu": {
        "batch_training": 2.6,
        "inference_serving": 4.1,
        "governance": 2.8,
        "abnormal_long_running": 3.0,
    },
    "volcano": {
        "batch_training": 4.1,
        "inference_serving": 3.4,
        "governance": 3.3,
        "abnormal_long_running": 3.4,
    },
    "runai": {
        "batch_training": 4.3,
        "inference_serving": 3.4,
        "governance": 4.1,
        "abnormal_long_running": 3.7,
    },
    "enterprise-container-platform": {
        "batch_training": 3.6,
        "inference_serving": 4.0,
        "governance": 4.5,
        "abnormal_long_running": 4.0,
    },
    STACK_KEY: {
        "batch_training": 4.0,
        "inference_serving": 3.7,
        "governance": 4.2,
        "abnormal_long_running": 3.6,
    },
}

# Cells where the reviewers clearly disagree: candidate key -> case key -> one (score, measured
# value or None) per reviewer, plus the owner's consensus score or None. Each reviewer's note
# and the consensus reason are in the language files under `disagreements`.
DISAGREEMENTS = {
    "kubernetes-gpu": {
        "quota_borrow_reclaim": ([(1.5, None), (3.5, None), (2.0, None)], 2.0),
    },
    "runai": {
        "sharing_isolation": ([(4.5, 12), (2.5, 24), (4.0, 15)], 3.5),
    },
    "volcano": {
        "version_upgrade_under_load": ([(4.0, None), (2.0, None), (3.0, None)], None),
    },
}

# Matrix edits after the prefill: (candidate, area, kind, payload). A row edit's note is in the
# language files under `matrix_notes` (candidate -> area).
MATRIX_EDITS = [
    (
        "slurm",
        "issue_response_time",
        "row",
        {"letters": {"internal": "A", "vendor": "R", "business": "C"}, "internal_fte": "0.05"},
    ),
    ("slurm", "kubernetes_implements", "row", {"internal_fte": "0.1"}),
    ("kubernetes-gpu", "domestic_gpu_adaptation", "cell", {"party": "vendor", "letter": "R"}),
    ("volcano", "queue_policy", "row", {"internal_fte": "0.3"}),
    ("volcano", "domestic_gpu_adaptation", "cell", {"party": "vendor", "letter": "R"}),
    # Run:ai's answer says the vendor finds production faults, but the matrix agreed with the
    # platform team keeps fault handling internal: the answers and the matrix disagree.
    (
        "runai",
        "fault_handling",
        "row",
        {"letters": {"internal": "AR", "vendor": "C", "business": "C"}},
    ),
    (
        "runai",
        "domestic_gpu_adaptation",
        "row",
        {"letters": {"internal": "AR", "business": "C", "vendor": "I"}, "internal_fte": "0.4"},
    ),
    ("enterprise-container-platform", "job_execution", "cell", {"party": "vendor", "letter": "R"}),
    ("enterprise-container-platform", "permissions_audit", "row", {"internal_fte": "0.1"}),
]

# Declared conflicts of interest: every scorer declares for every candidate before scoring;
# this reviewer declares a past relationship with this candidate's vendor, which the owner
# allows with a reason (both texts are in the language files under `conflict`).
DECLARED_CONFLICT = ("reviewer2", "runai")

# The test beds: every open-source and NVIDIA-only candidate ran on the shared POC partition of
# four nodes with eight NVIDIA A800 each. The enterprise platform's vendor brought its own
# on-site environment on Huawei Ascend 910B, because the mixed NVIDIA and Ascend fleet is why
# it was shortlisted, so its results are not directly comparable: the test-bed reminder says
# so. Versions and notes that are words rather than numbers are in the language files under
# `test_beds`.
A800 = {
    "accelerator_vendor": "NVIDIA",
    "accelerator_model": "A800 80GB",
    "accelerator_count": 32,
    "nodes": 4,
}
TEST_BEDS = {
    "slurm": {
        **A800,
        "product_version": "Slurm 23.11.6",
        "tested_from": date(2026, 9, 7),
        "tested_to": date(2026, 9, 18),
    },
    "kubernetes-gpu": {
        **A800,
        "product_version": "Kubernetes 1.29.4",
        "components": "NVIDIA GPU Operator 23.9.2\nKueue 0.6.2\nContainerd 1.7.13",
        "tested_from": date(2026, 9, 7),
        "tested_to": date(2026, 9, 18),
    },
    "volcano": {
        **A800,
        "product_version": "Volcano 1.9.0",
        "components": "Kubernetes 1.29.4\nNVIDIA GPU Operator 23.9.2",
        "tested_from": date(2026, 9, 21),
        "tested_to": date(2026, 10, 2),
    },
    "runai": {
        **A800,
        "product_version": "Run:ai 2.17",
        "components": "Kubernetes 1.29.4\nNVIDIA GPU Operator 23.9.2",
        "tested_from": date(2026, 9, 21),
        "tested_to": date(2026, 10, 2),
    },
    "enterprise-container-platform": {
        "accelerator_vendor": "Huawei",
        "accelerator_model": "Ascend 910B",
        "accelerator_count": 32,
        "nodes": 4,
        "tested_from": date(2026, 10, 8),
        "tested_to": date(2026, 10, 20),
    },
    STACK_KEY: {
        **A800,
        "components": "Kubernetes 1.29.4\nNVIDIA GPU Operator 23.9.2",
        "tested_from": date(2026, 10, 8),
        "tested_to": date(2026, 10, 20),
    },
}
