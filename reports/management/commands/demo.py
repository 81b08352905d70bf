"""Load one complete demo evaluation through the services, as the demo users would."""

from __future__ import annotations

import random
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone

from catalog.models import Scenario, Solution
from common.exceptions import DomainError
from common.roles import PROCUREMENT, REVIEWER, TECH_LEAD, user_roles
from common.services import generate_password, user_create
from evaluations import services as evaluation_services
from evaluations.models import (
    Assessment,
    BudgetFocus,
    CandidateStatus,
    ContextQuestion,
    Evaluation,
    FiveQuestion,
    MemberRole,
)
from evaluations.selectors import shortlist_suggest
from poc import conflicts as poc_conflicts
from poc import scoring as poc_scoring
from poc import services as poc_services
from poc.demo_testbeds import record_demo_test_beds
from poc.models import Direction, Outcome, Score, TestCase
from poc.selectors import scorecard
from responsibility import services as responsibility_services
from responsibility.models import Area, Party

DEMO_TITLE = "Demo: GPU platform for 2027 training and inference"
DEMO_ORGANISATION = "AI infrastructure (demo)"
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

NOTES = (
    "Replace the research Slurm cluster and the inference team's stand-alone GPU servers with "
    "one shared platform for 2027: roughly 600 NVIDIA GPUs and Ascend NPUs in two data "
    "centres, used for multi-node training and for online inference. Everything runs on "
    "premises; training data and model weights may not leave our sites. Budget decision is "
    "due before the Q3 hardware order."
)

# key -> (value, detail)
CONTEXT = {
    "hpc_batch_queues": ("yes", "Slurm research cluster, 160 GPUs, run by the HPC group."),
    "container_platform_inference": (
        "yes",
        "Three production Kubernetes clusters already host the model-serving APIs.",
    ),
    "k8s_batch_jobs": ("yes", "Fine-tuning and evaluation jobs are moving onto Kubernetes."),
    "ray_workloads": ("no", ""),
    "multitenancy_utilisation": (
        "yes",
        "Eleven business teams share the pool; average GPU utilisation is about 35 %.",
    ),
    "single_cloud": ("no", "A public cloud is only used for short burst experiments."),
    "heterogeneous_accelerators": (
        "yes",
        "NVIDIA A800/H20 and Ascend 910B, spread over two data centres.",
    ),
    "governance_localised": (
        "yes",
        "Quotas, approvals and audit are required; support must be available on site.",
    ),
    "private_deployment": ("yes", "Training data and model weights stay in our closed networks."),
    "compliance_regime": ("yes", "Industry regulation: data residency and audited access."),
}

CLOUD_SLUG = "cloud-managed-gpu"
CLOUD_REASON = (
    "Added to compare the cost of renting GPU capacity with buying it: our cloud provider "
    "offers managed GPU clusters with elastic capacity."
)
CLOUD_ELIMINATION = (
    "Private deployment is mandatory: training data and model weights may not leave our data "
    "centres, and the managed service cannot be installed on premises. Over three years it "
    "would also cost more than the on-premises routes at our expected utilisation."
)

# The combined route the seeds call the usual outcome: open-source execution and queues
# underneath, an enterprise platform on top for one resource view, tenants, audit and service.
STACK_KEY = "stack"
STACK_NAME = "Kubernetes + Volcano + enterprise platform"
STACK_LAYERS = {
    "execution": "kubernetes-gpu",
    "batch_queue": "volcano",
    "governance": "enterprise-container-platform",
}
STACK_REASON = (
    "The likely real outcome: keep the open-source Kubernetes GPU stack and Volcano queues the "
    "platform team already knows, and put the enterprise platform on top for the unified "
    "resource view, tenants, audit and local support. Evaluated as one candidate so that its "
    "integration work is owned and costed."
)


E = "https://example.com/poc/"

# solution slug -> question key -> (who, answer, explanation, evidence link): "who" is the party
# key (or keys) a who-question names; "answer" is the assessment of a yes/no question or what the
# budget weighs more for the budget question (each question's scale says which is read).
ANSWERS = {
    "slurm": {
        "long_term_team": (
            "internal",
            "yes",
            "The HPC operations group (four engineers) has run Slurm on the research cluster "
            "since 2019 and would take over the training pool; about 1.5 FTE for scheduling, "
            "accounting and monitoring.",
            "",
        ),
        "incident_triage": (
            "internal",
            "partly",
            "HPC on-call triages node and job faults with sacct, slurmd logs and DCGM; network "
            "faults go to the data-centre network team. There is no vendor escalation unless "
            "we buy a support contract.",
            "",
        ),
        "new_hardware_validation": (
            "internal",
            "partly",
            "The HPC team validates NVIDIA drivers and CUDA images in a staging partition. "
            "Ascend NPUs are only handled as generic resources, so their adaptation is ours.",
            "",
        ),
        "compliance_evidence": (
            "internal",
            "partly",
            "slurmdbd gives GPU-hours per account, but roles are coarse and the audit trail "
            "would have to be assembled from sacctmgr records and OS logs.",
            f"{E}slurm-accounting-report",
        ),
        "budget_focus": (
            "internal",
            "people",
            "No licence fee; over three years the cost is mainly people (about 1.5 FTE) plus "
            "an optional support contract.",
            "",
        ),
    },
    "kubernetes-gpu": {
        "long_term_team": (
            "internal",
            "yes",
            "The container platform team already runs three production clusters; the GPU "
            "operator, device plugins and scheduler extensions would be added to their remit "
            "(about one more FTE).",
            "",
        ),
        "incident_triage": (
            "internal",
            "partly",
            "Platform on-call owns cluster faults, but GPU driver and NCCL problems have no "
            "clear owner today; a runbook with the ML engineering team is needed.",
            "",
        ),
        "new_hardware_validation": (
            "internal",
            "partly",
            "The NVIDIA GPU operator handles driver rollout; the Ascend device plugin comes "
            "from the hardware vendor and must be re-validated by us for every CANN release.",
            "",
        ),
        "compliance_evidence": (
            "internal",
            "partly",
            "Namespaces, RBAC and API audit logs exist, but per-tenant GPU usage and "
            "chargeback reports would be custom dashboards.",
            "",
        ),
        "budget_focus": (
            "internal",
            "people",
            "The software is free; the money goes into building queueing and quota glue and "
            "into the people who keep it working for three years.",
            "",
        ),
    },
    "volcano": {
        "long_term_team": (
            "internal",
            "yes",
            "The container platform team would also operate Volcano; two engineers followed "
            "the community training. Estimated at 1.2 FTE.",
            "",
        ),
        "incident_triage": (
            "internal",
            "partly",
            "Pending PodGroups and queue starvation are diagnosed with vcctl and scheduler "
            "logs. Only community support: a severe scheduler bug depends on our own ability "
            "to patch it.",
            "",
        ),
        "new_hardware_validation": (
            "internal",
            "yes",
            "Volcano schedules Ascend NPUs and NVIDIA GPUs through device plugins; the POC ran "
            "mixed jobs on both. New versions are validated by the platform team.",
            f"{E}volcano-heterogeneous-run",
        ),
        "compliance_evidence": (
            "internal",
            "partly",
            "Queues map to departments and the API audit log covers changes, but usage "
            "reports per tenant and approval workflows still have to be built.",
            "",
        ),
        "budget_focus": (
            "internal",
            "people",
            "No licence; the costs are about four person-months of integration and the "
            "ongoing maintenance. Attractive only if the team can be staffed for years.",
            "",
        ),
    },
    "runai": {
        "long_term_team": (
            "internal",
            "yes",
            "The platform team (about 0.6 FTE) operates the clusters; upgrades in the first "
            "year are done by the vendor's professional services under the subscription.",
            "",
        ),
        "incident_triage": (
            "vendor",
            "partly",
            "Vendor support triages scheduler issues under the enterprise SLA; Kubernetes and "
            "network faults stay with us. The escalation drill in the POC got a first answer "
            "within three hours.",
            f"{E}runai-support-ticket",
        ),
        "new_hardware_validation": (
            ("vendor", "internal"),
            "partly",
            "New NVIDIA generations are certified by the vendor, but Ascend NPUs are not "
            "supported: the NPU cluster would stay outside the pool.",
            "",
        ),
        "compliance_evidence": (
            "vendor",
            "yes",
            "Departments and projects with hierarchical quotas, SSO roles and an audit-log API "
            "that we exported to the SIEM during the POC; air-gapped installation documented.",
            f"{E}runai-audit-export",
        ),
        "budget_focus": (
            "business",
            "software",
            "The per-GPU subscription is the largest item and is funded by the AI business "
            "unit; it needs the fewest internal engineers of all routes.",
            "",
        ),
    },
    "enterprise-container-platform": {
        "long_term_team": (
            "vendor",
            "yes",
            "The vendor provides a resident engineer for the first year and a named delivery "
            "team; our platform team (0.8 FTE) takes over daily operations from year two.",
            "",
        ),
        "incident_triage": (
            "vendor",
            "yes",
            "One support line covers scheduler, drivers and the NPU runtime; the POC fault "
            "drill was answered in 40 minutes, with an engineer on site the next morning.",
            f"{E}ecp-fault-drill",
        ),
        "new_hardware_validation": (
            "vendor",
            "yes",
            "The vendor certifies NVIDIA and Ascend releases and publishes a compatibility "
            "matrix every quarter; we re-test on the staging cluster before rollout.",
            "",
        ),
        "compliance_evidence": (
            "vendor",
            "yes",
            "Tenant isolation, quota approvals, operation audit and usage reports are built "
            "in; internal audit accepted the evidence pack in the POC review.",
            f"{E}ecp-audit-pack",
        ),
        "budget_focus": (
            "internal",
            "both",
            "Licence and services are significant; the savings are in staffing and faster "
            "onboarding of new teams. A three-year price lock is needed to stay competitive.",
            "",
        ),
    },
}

ANSWERS[STACK_KEY] = {
    "long_term_team": (
        "internal",
        "partly",
        "The platform team keeps Kubernetes and Volcano (about 1 FTE); the vendor runs the "
        "platform layer under the support contract. Who owns the joins between them is the open "
        "point.",
        "",
    ),
    "incident_triage": (
        ("vendor", "internal"),
        "partly",
        "The vendor triages platform faults; faults below the platform (drivers, Volcano "
        "queues) come back to the internal team, so first-line triage needs a runbook for both.",
        "",
    ),
    "new_hardware_validation": (
        ("vendor", "internal"),
        "yes",
        "The vendor certifies new accelerators for the platform layer; the internal team "
        "validates the device plugins underneath against the upstream releases it supports.",
        "",
    ),
    "compliance_evidence": (
        "vendor",
        "yes",
        "Tenants, roles and the audit trail come from the platform layer, across the queues "
        "underneath.",
        "",
    ),
    "budget_focus": (
        "internal",
        "both",
        "A platform licence plus the people to keep the open-source layers and the integration "
        "between them current: cheaper than the platform alone only if the team stays.",
        "",
    ),
}

# solution slug -> cost inputs (CNY)
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

# Cells where the reviewers clearly disagree: (candidate, case) -> one entry per reviewer
# (score, measured value or None, note), plus the owner's consensus (score, reason) or None.
DISAGREEMENTS = {
    ("kubernetes-gpu", "quota_borrow_reclaim"): (
        [
            (1.5, None, "Borrowing only worked with the admission hook we wrote in the POC."),
            (3.5, None, "Counted the hook as acceptable glue; reclaim itself was quick."),
            (2.0, None, "Reclaim works, but the hook is ours to maintain."),
        ],
        (
            2.0,
            "Borrow and reclaim only worked with glue code written during the POC. We score "
            "what the product does, not what we built around it.",
        ),
    ),
    ("runai", "sharing_isolation"): (
        [
            (4.5, 12, "Memory isolation held; neighbour slowdown stayed at 12 %."),
            (2.5, 24, "With two heavy neighbours the latency-sensitive job slowed by 24 %."),
            (4.0, 15, "Fractions behave; heavy neighbours still visible."),
        ],
        (
            3.5,
            "Fractional GPUs isolate memory but not compute. The 24 % slowdown was reproduced "
            "with heavy neighbours, so the case passes only with a placement rule for "
            "latency-sensitive services.",
        ),
    ),
    ("volcano", "version_upgrade_under_load"): (
        [
            (4.0, None, "Rolling scheduler upgrade, no job lost."),
            (2.0, None, "Two PodGroups stayed pending for 20 minutes after the upgrade."),
            (3.0, None, "Upgrade fine, but the pending jobs needed a manual requeue."),
        ],
        None,
    ),
}

# Matrix edits after the prefill: (candidate, area, kind, payload).
MATRIX_EDITS = [
    (
        "slurm",
        "issue_response_time",
        "row",
        {
            "letters": {"internal": "A", "vendor": "R", "business": "C"},
            "note": "Assumes a commercial support contract for level-3 scheduler issues.",
            "internal_fte": "0.05",
        },
    ),
    (
        "slurm",
        "kubernetes_implements",
        "row",
        {
            "note": "Inference stays on the existing Kubernetes platform; only the login "
            "and accounting hooks are needed.",
            "internal_fte": "0.1",
        },
    ),
    ("kubernetes-gpu", "domestic_gpu_adaptation", "cell", {"party": "vendor", "letter": "R"}),
    (
        "volcano",
        "queue_policy",
        "row",
        {
            "note": "Volcano queues map to departments; weights reviewed every quarter.",
            "internal_fte": "0.3",
        },
    ),
    ("volcano", "domestic_gpu_adaptation", "cell", {"party": "vendor", "letter": "R"}),
    # Run:ai's answer says the vendor finds production faults, but the matrix agreed with the
    # platform team keeps fault handling internal: the answers and the matrix disagree.
    (
        "runai",
        "fault_handling",
        "row",
        {
            "letters": {"internal": "AR", "vendor": "C", "business": "C"},
            "note": "Our on-call handles production faults; the vendor is consulted on scheduler "
            "bugs.",
        },
    ),
    (
        "runai",
        "domestic_gpu_adaptation",
        "row",
        {
            "letters": {"internal": "AR", "business": "C", "vendor": "I"},
            "note": "NVIDIA GPUs only: Ascend nodes stay outside the pool and are ours.",
            "internal_fte": "0.4",
        },
    ),
    ("enterprise-container-platform", "job_execution", "cell", {"party": "vendor", "letter": "R"}),
    (
        "enterprise-container-platform",
        "permissions_audit",
        "row",
        {
            "note": "Audit export to the SIEM is part of the delivery contract.",
            "internal_fte": "0.1",
        },
    ),
]

RATIONALE = {
    "enterprise-container-platform": (
        "It carries the mixed NVIDIA and Ascend fleet across both data centres, ships tenant "
        "quotas and an audit trail that internal audit accepted as delivered, and the vendor "
        "can deliver and support on site. Run:ai scored close but cannot pool the Ascend "
        "NPUs; Volcano stays the fallback if the price lock is not granted."
    ),
    "runai": (
        "It pools the NVIDIA GPUs with the best quota and sharing model and the lowest "
        "internal staffing. The Ascend NPUs remain a separate pool run by the platform team."
    ),
}

# Declared conflicts of interest: every scorer declares for every candidate before scoring;
# one reviewer declares a past relationship, which the owner allows with a reason.
DECLARED_CONFLICT = (
    "reviewer2",
    "runai",
    "Until mid-2025 I worked for a systems integrator that resold Run:ai licences. I hold no "
    "shares and receive nothing from the vendor or the integrator.",
)
CONFLICT_ALLOWANCE = (
    "The job ended before this evaluation began and carries no money interest. Two other "
    "reviewers score Run:ai too, and any spread of 1.5 points goes to consensus."
)


def _key(candidate) -> str:
    """The demo's tables are keyed by solution slug, and by STACK_KEY for the stack."""
    return STACK_KEY if candidate.is_stack else candidate.solution.slug


def _dec(value) -> Decimal:
    return Decimal(str(value))


def _half(value: float) -> float:
    """Round to the rubric's half points and keep within 0–5."""
    return min(5.0, max(0.0, round(value * 2) / 2))


class Command(BaseCommand):
    help = (
        "Load one complete demo evaluation (shortlist, five questions, matrices, costs, POC "
        "scores, decision record) through the services, acting as the demo users. Runs once: "
        "if the demo evaluation exists, nothing changes."
    )

    def handle(self, *args, **options):
        existing = Evaluation.objects.filter(title=DEMO_TITLE).first()
        if existing is not None:
            self.stdout.write(
                f"The demo evaluation already exists (id {existing.pk}); nothing was changed."
            )
            return
        self._check_seeded()
        try:
            with transaction.atomic():
                evaluation, created = self._load()
        except (ValidationError, DomainError) as exc:
            message = getattr(exc, "message", None) or "; ".join(getattr(exc, "messages", []))
            raise CommandError(f"Could not load the demo: {message or exc}") from exc
        if created:
            self.stdout.write(
                f"Created demo users {', '.join(created)} with random passwords; set one with: "
                "python manage.py changepassword <username>"
            )
        shortlisted = evaluation.candidates.filter(status=CandidateStatus.SHORTLISTED).count()
        eliminated = evaluation.candidates.filter(status=CandidateStatus.ELIMINATED).count()
        scores = Score.objects.filter(case__evaluation=evaluation).count()
        self.stdout.write(
            self.style.SUCCESS(
                f"Demo evaluation {evaluation.pk} loaded: {shortlisted} shortlisted and "
                f"{eliminated} eliminated candidate(s), {scores} POC scores."
            )
        )

    # --- preparation -------------------------------------------------------------------------

    def _check_seeded(self) -> None:
        missing = [
            name
            for name, model in [
                ("context questions", ContextQuestion),
                ("five questions", FiveQuestion),
                ("responsibility areas", Area),
                ("POC test cases", TestCase),
            ]
            if not model.objects.exists()
        ]
        slugs = {*ANSWERS, *STACK_LAYERS.values(), CLOUD_SLUG} - {STACK_KEY}
        if Solution.objects.filter(slug__in=slugs).count() < len(slugs):
            missing.append("catalog solutions")
        if missing:
            raise CommandError(
                f"Seeded content is missing ({', '.join(missing)}). Run: python manage.py seed"
            )

    def _users(self) -> tuple[dict, list[str]]:
        User = get_user_model()
        users, created = {}, []
        for username, role, first, last, _member_role in DEMO_USERS:
            user = User.objects.filter(username=username).first()
            if user is not None and role not in user_roles(user):
                # Never widen an existing account's rights behind an operator's back.
                raise CommandError(
                    f"A user named {username!r} exists without the {role} role the demo gives "
                    f"it. Add the role (python manage.py shell, or the admin) or rename the user."
                )
            if user is None:
                user = user_create(
                    username=username,
                    roles=[role],
                    password=generate_password(username=username, first_name=first, last_name=last),
                    first_name=first,
                    last_name=last,
                )
                created.append(username)
            users[username] = user
        return users, created

    # --- loading -----------------------------------------------------------------------------

    def _load(self):
        users, created = self._users()
        lead = users["techlead"]
        evaluation = evaluation_services.evaluation_create(
            user=lead,
            title=DEMO_TITLE,
            organisation=DEMO_ORGANISATION,
            scenarios=Scenario.objects.filter(slug__in=["training", "inference"]),
            private_deployment_required=True,
            compliance_required=True,
            localisation_required=True,
            notes=NOTES,
        )
        for username, _role, _first, _last, member_role in DEMO_USERS:
            if member_role != MemberRole.OWNER:
                evaluation_services.member_add(
                    user=lead, evaluation=evaluation, member=users[username], role=member_role
                )

        questions = {q.key: q for q in ContextQuestion.objects.filter(is_active=True)}
        for key, (value, detail) in CONTEXT.items():
            if key in questions:
                evaluation_services.context_answer_save(
                    user=lead,
                    evaluation=evaluation,
                    question=questions[key],
                    value=value,
                    detail=detail,
                    expected_version=None,  # the constraints may have answered it already
                )

        # The lead takes the suggestions the demo has answers for; the building blocks the
        # rules also suggest (Kueue next to Volcano, HAMi for the Ascend cards) stay suggested.
        wanted = [
            s.solution.pk for s in shortlist_suggest(evaluation) if s.solution.slug in ANSWERS
        ]
        candidates = {
            c.solution.slug: c
            for c in evaluation_services.candidates_accept_suggestions(
                user=lead, evaluation=evaluation, solution_ids=wanted
            )
        }
        cloud = evaluation_services.candidate_add(
            user=lead,
            evaluation=evaluation,
            solution=Solution.objects.get(slug=CLOUD_SLUG),
            reason=CLOUD_REASON,
        )
        stack = evaluation_services.candidate_compose_stack(
            user=lead,
            evaluation=evaluation,
            name=STACK_NAME,
            reason=STACK_REASON,
            layers={role: Solution.objects.get(slug=slug) for role, slug in STACK_LAYERS.items()},
            main="governance",
        )
        shortlisted = [c for slug, c in candidates.items() if slug in ANSWERS] + [stack]
        if len(shortlisted) < 6:
            raise CommandError(
                "The catalog rules suggested fewer candidates than the demo expects: "
                f"{', '.join(sorted(candidates)) or 'none'}."
            )

        # Costs and the starting matrix for every candidate, the cloud one included: it was
        # priced before being ruled out.
        responsibility_services.cost_settings_save(
            user=lead,
            evaluation=evaluation,
            expected_version=0,
            years=3,
            currency="CNY",
            fte_cost_per_year=Decimal("650000"),
        )
        for candidate in [*shortlisted, cloud]:
            responsibility_services.matrix_prefill(user=lead, candidate=candidate)
            responsibility_services.cost_input_save(
                user=lead,
                candidate=candidate,
                expected_version=0,
                **{k: _dec(v) for k, v in COSTS[_key(candidate)].items()},
            )
        cloud = evaluation_services.candidate_eliminate(
            user=lead, candidate=cloud, reason=CLOUD_ELIMINATION, expected_version=cloud.version
        )

        self._answer(lead, shortlisted)
        self._edit_matrices(lead, candidates)

        evaluation_services.evaluation_transition(
            user=lead,
            evaluation=evaluation,
            to_status="poc",
            reason="Shortlist and the five questions are complete; the POC starts.",
        )
        poc_services.plan_init(user=lead, evaluation=evaluation)
        record_demo_test_beds(lead, shortlisted, _key)
        self._score(evaluation, users, shortlisted)
        self._decide(evaluation, lead, shortlisted)
        return evaluation, created

    def _answer(self, lead, shortlisted) -> None:
        for question in FiveQuestion.objects.filter(is_active=True):
            for candidate in shortlisted:
                who, value, explanation, link = ANSWERS[_key(candidate)].get(
                    question.key,
                    ("internal", "partly", "Discussed in the POC review; see the minutes.", ""),
                )
                evaluation_services.answer_save(
                    user=lead,
                    candidate=candidate,
                    question=question,
                    parties=[who] if isinstance(who, str) else list(who),
                    assessment=value if value in Assessment.values else Assessment.UNKNOWN,
                    budget=value if value in BudgetFocus.values else BudgetFocus.UNKNOWN,
                    explanation=explanation,
                    evidence_url=link,
                    expected_version=0,
                )

    def _edit_matrices(self, lead, candidates) -> None:
        parties = {p.key: p for p in Party.objects.filter(evaluation=None)}
        areas = {a.key: a for a in Area.objects.filter(is_active=True)}
        for slug, area_key, kind, payload in MATRIX_EDITS:
            candidate, area = candidates.get(slug), areas.get(area_key)
            if candidate is None or area is None:
                continue
            if kind == "cell":
                responsibility_services.cell_set(
                    user=lead,
                    candidate=candidate,
                    area=area,
                    party=parties[payload["party"]],
                    letter=payload["letter"],
                    expected_version=None,
                )
                continue
            letters = payload.get("letters")
            responsibility_services.row_update(
                user=lead,
                candidate=candidate,
                area=area,
                expected_version=None,
                letters=(
                    {parties[k]: v for k, v in letters.items()} if letters is not None else None
                ),
                note=payload.get("note"),
                internal_fte=payload.get("internal_fte"),
            )

    # --- POC ---------------------------------------------------------------------------------

    def _score(self, evaluation, users, shortlisted) -> None:
        rng = random.Random(SEED)
        cases = list(
            evaluation.poc_cases.select_related("group", "source_case").order_by(
                "group__order", "order", "pk"
            )
        )
        for case in cases:
            case.evaluation = evaluation  # one instance: role checks are cached on it
        base = {}
        for case in cases:
            for candidate in shortlisted:
                bias = BIAS[_key(candidate)].get(case.group.key, 3.0)
                base[case.pk, candidate.pk] = _half(bias + rng.uniform(-0.7, 0.7))
        self._declare(evaluation, users, shortlisted)
        for index, username in enumerate(SCORERS):
            reviewer = users[username]
            for case in cases:
                key = case.source_case.key if case.source_case else ""
                for candidate in shortlisted:
                    planned = DISAGREEMENTS.get((_key(candidate), key))
                    if planned is not None:
                        value, measured, note = planned[0][index]
                        measured = _dec(measured) if measured is not None else None
                    else:
                        value = _half(base[case.pk, candidate.pk] + rng.choice([-0.5, 0, 0, 0.5]))
                        measured = (
                            self._measured(case, value, rng)
                            if case.has_metric and rng.random() < 0.6
                            else None
                        )
                        note = self._note(case, candidate, value, measured)
                    poc_services.score_save(
                        user=reviewer,
                        case=case,
                        candidate=candidate,
                        score=_dec(value),
                        measured_value=measured,
                        outcome=self._outcome(candidate, case, value),
                        notes=note,
                        submit=True,
                        expected_version=0,
                    )
        lead = users["techlead"]
        by_key = {c.source_case.key: c for c in cases if c.source_case}
        by_slug = {_key(c): c for c in shortlisted}
        for (slug, key), (_scores, agreed) in DISAGREEMENTS.items():
            if agreed is None or key not in by_key or slug not in by_slug:
                continue
            poc_services.consensus_record(
                user=lead,
                case=by_key[key],
                candidate=by_slug[slug],
                score=_dec(agreed[0]),
                reason=agreed[1],
                expected_version=0,
            )

    @staticmethod
    def _declare(evaluation, users, shortlisted) -> None:
        """Each scorer's declarations (poc.conflicts); the declared conflict is allowed."""
        who, slug, relationship = DECLARED_CONFLICT
        for username in SCORERS:
            for candidate in shortlisted:
                candidate.evaluation = evaluation
                conflict = username == who and _key(candidate) == slug
                declaration = poc_conflicts.declaration_save(
                    user=users[username],
                    candidate=candidate,
                    has_conflict=conflict,
                    description=relationship if conflict else "",
                    expected_version=0,
                )
                if conflict:
                    poc_conflicts.allowance_grant(
                        user=users["techlead"],
                        declaration=declaration,
                        reason=CONFLICT_ALLOWANCE,
                        expected_version=declaration.version,
                    )

    @staticmethod
    def _outcome(candidate, case, value: float) -> str:
        if value >= 3:
            return Outcome.PASSED
        if _key(candidate) == "slurm" and case.group.key == "inference_serving":
            return Outcome.BLOCKED if value <= 1 else Outcome.FAILED
        return Outcome.FAILED

    @staticmethod
    def _measured(case, value: float, rng: random.Random) -> Decimal | None:
        """A measurement in the rubric band of the score (poc.scoring.measured_bands), or None
        when the metric has no such band (a zero threshold has only "meets" and "misses")."""
        bands = poc_scoring.measured_bands(case.metric_direction, case.metric_threshold)
        target = Decimal(min(5, int(value)))
        limits = {score: limit for limit, score in bands.steps}
        better = -1 if case.metric_direction == Direction.LOWER else 1
        scale = abs(case.metric_threshold) or Decimal(50)
        if target == 0:
            worst = limits.get(Decimal(1), case.metric_threshold)
            raw = float(worst) - better * float(scale) * rng.uniform(0.1, 1.0)
        elif target in limits:
            inner = float(limits[target])
            outer = limits.get(target + 1)
            outer = float(outer) if outer is not None else inner + better * float(scale) * 0.3
            raw = inner + (outer - inner) * rng.uniform(0.1, 0.9)
        else:
            return None
        if case.metric_unit == "%" and not 0 <= raw <= 100:
            return None
        measured = _dec(round(raw, 1))
        return measured if poc_services.measured_to_score(case, measured) == target else None

    @staticmethod
    def _note(case, candidate, value: float, measured: Decimal | None) -> str:
        if measured is not None:
            return f"Measured {measured} {case.metric_unit}".rstrip() + "."
        if _key(candidate) == "slurm" and case.group.key == "inference_serving":
            return "No service layer in Slurm; this only works by handing off to Kubernetes."
        if value < 2.5:
            return "Acceptance criteria not met; see the run log."
        if value >= 4.5:
            return "Met every acceptance criterion without workarounds."
        return ""

    # --- decision ----------------------------------------------------------------------------

    def _decide(self, evaluation, lead, shortlisted) -> None:
        card = scorecard(evaluation, lead, see_all=True)
        ranked = sorted(
            shortlisted,
            key=lambda c: card.overall(c).raw_score or Decimal("0"),
            reverse=True,
        )
        best, second = ranked[0], ranked[1]
        score = card.overall(best).score
        second_score = card.overall(second).score
        rationale = (
            f"{best.name} fits best: it leads the POC with {score} of 5 overall "
            f"(next: {second.name} with {second_score}). "
            + RATIONALE.get(
                _key(best),
                "It balances training, inference and governance best under private deployment.",
            )
        )
        evaluation_services.decision_save(
            user=lead,
            evaluation=evaluation,
            chosen=[best],
            rationale=rationale,
            decided_on=timezone.localdate(),
            decided_by="Architecture review board",
            expected_version=0,
        )
