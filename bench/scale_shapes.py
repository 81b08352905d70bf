"""What bench/scale_data.py generates, decided before anything is written: the bench's users
(all "scale-*"), the texts and mixes it draws from, the shape of every bulk evaluation, and the
seeded rows every evaluation refers to."""

from __future__ import annotations

from dataclasses import dataclass, field

PREFIX = "scale-"
VIEWER = "scale-viewer"
TEN = "scale-ten"
OWNER = "scale-owner"
LARGE_TITLE = "Scale bench: large evaluation (8 candidates × 60 cases × 3 reviewers)"
OWNED = 30  # evaluations scale-owner owns, the large one included
TEN_COUNT = 10
LEADS = 20
REVIEWERS = 30


@dataclass(frozen=True)
class LargeShape:
    candidates: int = 8  # the seeded solutions and one stack; at most 8
    cases: int = 60  # the library cases first, then cases of its own
    reviewers: int = 3


@dataclass
class Shape:
    """What one bulk evaluation holds, decided before anything is written."""

    index: int
    status: str
    owner: object
    reviewers: list
    solutions: list  # single candidates
    stack: tuple | None  # one entry of STACKS, or None
    eliminated: int  # how many of the singles are eliminated (never the first)
    library_cases: list
    custom_cases: int
    scored_cases: int  # the first n cases are scored by every reviewer for every candidate
    editor: object | None = None
    with_ten: bool = False
    counts: dict = field(default_factory=dict)

    @property
    def cases(self) -> int:
        return len(self.library_cases) + self.custom_cases


# Stacks: (name, {role: solution slug}, main role).
STACKS = [
    ("Volcano + Run:ai", {"batch_queue": "volcano", "governance": "runai"}, "governance"),
    (
        "Slurm + 企业容器平台",
        {"execution": "slurm", "governance": "enterprise-container-platform"},
        "governance",
    ),
    (
        "Kubernetes + cloud burst",
        {"execution": "kubernetes-gpu", "burst": "cloud-managed-gpu"},
        "execution",
    ),
]
TITLES = [
    "GPU 算力调度平台选型",
    "Training cluster scheduler",
    "推理服务平台选型",
    "Research HPC queue replacement",
    "企业 AI 平台治理",
    "Hybrid GPU capacity",
    "国产加速卡调度评估",
    "Inference autoscaling platform",
]
TEAMS = ["AI 平台部", "Platform engineering", "研究院计算中心", "Data science", "基础架构组"]
CUSTOM_CASES = [
    ("国产加速卡混部下的分布式训练", "连续 {n} 小时无掉卡，吞吐下降不超过 5%。"),
    ("Quota borrowing at peak", "Borrowed quota is reclaimed within {n} minutes."),
    ("推理服务灰度发布与回滚", "10% 流量灰度，异常时 {n} 分钟内自动回滚且无请求丢失。"),
    ("Failed GPU node isolation", "A failed node is cordoned within {n} minutes."),
    ("按部门的成本分摊报表", "报表按部门、项目、用户三级汇总，与账单误差小于 {n}%。"),
    ("Audit log export", "Every submission and quota change is logged for {n} days."),
    ("长周期作业的检查点与续跑", "中断后从最近检查点续跑，损失不超过 {n} 分钟的训练进度。"),
    ("Hybrid burst to the cloud", "Cloud nodes join within {n} minutes when local GPUs run out."),
]
STEPS = (
    "1. 准备测试租户与配额；\n2. 按脚本提交作业并记录时间戳；\n"
    "3. 注入故障或负载；\n4. 比对验收标准。"
)
NOTES = ["符合预期。", "Needs the vendor to explain.", "有一次重试。", "Logs complete.", "", ""]
EXPLANATION = (
    "由{who}负责，已在测试环境验证，并核对了厂商文档与现场演示记录；"
    "故障分诊流程、联系人和响应时限已写入运维手册（第 {n} 节）。"
)
PARTY_KEYS = ["internal", "vendor", "cloud", "business", "security"]
STATUSES = ["draft"] * 15 + ["poc"] * 55 + ["decided"] * 22 + ["archived"] * 8


# --- users -----------------------------------------------------------------------------------


def scale_users():
    from django.contrib.auth import get_user_model

    return get_user_model().objects.filter(username__startswith=PREFIX)


def make_users() -> dict:
    """The bench's users with their roles (bulk: no password hashing)."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from common import roles

    User = get_user_model()
    people = [
        (VIEWER, roles.PROCUREMENT, "Viewer", "采购"),
        (TEN, roles.PROCUREMENT, "Ten", "采购"),
        (OWNER, roles.TECH_LEAD, "Owner", "陈"),
        *[(f"scale-lead-{n:02d}", roles.TECH_LEAD, f"Lead {n}", "李") for n in range(1, LEADS + 1)],
        *[
            (f"scale-reviewer-{n:02d}", roles.REVIEWER, f"Reviewer {n}", "王")
            for n in range(1, REVIEWERS + 1)
        ],
    ]
    users = []
    for username, _role, first, last in people:
        user = User(username=username, first_name=first, last_name=last)
        user.set_unusable_password()
        users.append(user)
    User.objects.bulk_create(users)
    users = {u.username: u for u in User.objects.filter(username__in=[p[0] for p in people])}
    groups = {g.name: g for g in Group.objects.filter(name__in=roles.ROLES)}
    Through = User.groups.through
    Through.objects.bulk_create(
        Through(user_id=users[username].pk, group_id=groups[role].pk)
        for username, role, _first, _last in people
    )
    return users


# --- plans -----------------------------------------------------------------------------------


def plan_shapes(count: int, scores: int, users: dict, reference: dict, rng) -> list[Shape]:
    """The shapes of `count` bulk evaluations whose submitted scores add up to at least
    `scores` (cases are added, scored, to random evaluations until they do)."""
    solutions = reference["solutions"]
    library = reference["library"]
    leads = [u for name, u in sorted(users.items()) if name.startswith("scale-lead-")]
    reviewers = [u for name, u in sorted(users.items()) if name.startswith("scale-reviewer-")]
    owned = max(0, min(OWNED - 1, count))  # the large evaluation is scale-owner's too
    ten = set(range(0, count, max(1, count // TEN_COUNT))[:TEN_COUNT])
    shapes = []
    for i in range(count):
        status = rng.choice(STATUSES)
        n_single = min(len(solutions), rng.choice([2, 3, 3, 4, 4, 5, 5, 5, 6, 6, 7, 7]))
        n_library = rng.randint(8, len(library)) if status != "draft" else 0
        n_custom = rng.randint(0, 12) if status != "draft" else 0
        n_cases = n_library + n_custom
        # In POC a part of the cases is scored; decided and archived: all; draft: no plan.
        scored = rng.randint(n_cases // 3, n_cases) if status == "poc" else n_cases
        owner = users[OWNER] if i < owned else leads[i % len(leads)]
        others = [u for u in leads if u != owner]
        shapes.append(
            Shape(
                index=i,
                status=status,
                owner=owner,
                reviewers=rng.sample(reviewers, rng.choice([2, 3, 3])),
                solutions=rng.sample(solutions, n_single),
                stack=rng.choice(STACKS) if rng.random() < 0.15 else None,
                eliminated=rng.choice([0, 0, 1]) if status in ("decided", "archived") else 0,
                library_cases=sorted(rng.sample(library, n_library), key=lambda c: c.order),
                custom_cases=n_custom,
                scored_cases=scored,
                editor=rng.choice(others) if rng.random() < 0.2 else None,
                with_ten=i in ten,
            )
        )
    total = sum(submitted(s) for s in shapes)
    scorable = [s for s in shapes if s.status != "draft"]
    while total < scores and scorable:
        s = rng.choice(scorable)
        before = submitted(s)
        if s.scored_cases < s.cases:
            s.scored_cases += 1
        else:
            s.custom_cases += 1
            s.scored_cases += 1
        total += submitted(s) - before
    return shapes


def scored_candidates(shape: Shape) -> int:
    return len(shape.solutions) - shape.eliminated + (1 if shape.stack else 0)


def submitted(shape: Shape) -> int:
    if shape.status == "draft":
        return 0
    return shape.scored_cases * scored_candidates(shape) * len(shape.reviewers)


# --- bulk evaluations ------------------------------------------------------------------------


def reference_data() -> dict:
    from catalog.models import Scenario, Solution
    from evaluations.models import ContextQuestion, FiveQuestion
    from poc.models import TestCase, TestGroup
    from responsibility.models import Area, Party

    return {
        "solutions": list(
            Solution.objects.filter(is_active=True).select_related("solution_type").order_by("pk")
        ),
        "scenarios": list(Scenario.objects.order_by("pk")),
        "context_questions": list(ContextQuestion.objects.filter(is_active=True)),
        "five_questions": list(FiveQuestion.objects.filter(is_active=True)),
        "library": list(TestCase.objects.filter(is_active=True).select_related("group")),
        "groups": list(TestGroup.objects.order_by("order", "pk")),
        "areas": list(Area.objects.filter(is_active=True).order_by("group__order", "order")),
        "parties": {p.key: p for p in Party.objects.filter(evaluation=None)},
        "prefill": {},  # type slug or stack name -> (letters, effort), filled as needed
    }


def prefill(reference: dict, candidate) -> tuple[dict, dict]:
    """The starting letters for a candidate, computed once per type or stack combination."""
    from responsibility.services import prefill_for_candidate

    key = candidate.stack_name or candidate.solution.solution_type.slug
    if key not in reference["prefill"]:
        reference["prefill"][key] = prefill_for_candidate(candidate)
    return reference["prefill"][key]
