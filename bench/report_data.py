"""The evaluation bench/report_render.py reports on: 8 shortlisted candidates (the seeded
suggestions topped up from the catalog to seven, and one more solution), all five answers each,
prefilled matrices, cost inputs, a POC plan of 60 cases scored by 3 reviewers, some consensus
scores and evidence files, and the users behind it."""

import hashlib
import random

from bench.builders import add_custom_cases, create_evaluation, fill_candidates, score_every_cell

CUSTOM_TOPICS = [
    ("国产加速卡混部下的分布式训练", "连续 {n} 小时无掉卡，吞吐下降不超过 5%。"),
    ("多租户配额高峰期借用与回收", "借出的配额在 {n} 分钟内被回收，被抢占作业可自动恢复。"),
    ("推理服务灰度发布与回滚", "10% 流量灰度，异常时 {n} 分钟内自动回滚且无请求丢失。"),
    ("GPU 故障节点自动隔离", "节点故障后 {n} 分钟内隔离，作业在其他节点重启。"),
    ("按部门的成本分摊报表", "报表按部门、项目、用户三级汇总，与账单误差小于 {n}%。"),
    ("审计日志的完整性与导出", "所有提交、抢占和配额变更均有记录，可导出 {n} 天内的日志。"),
    ("大模型多卡推理的冷启动", "模型加载到可服务不超过 {n} 秒，显存占用符合预估。"),
    ("长周期作业的检查点与续跑", "中断后从最近检查点续跑，损失不超过 {n} 分钟的训练进度。"),
    ("调度器升级期间的作业连续性", "滚动升级期间运行中作业不中断，排队作业 {n} 分钟内恢复调度。"),
    ("拓扑感知放置对通信带宽的影响", "同一作业的节点位于同一交换机下，带宽达到理论值的 {n}%。"),
    ("混合云突发扩容", "本地资源耗尽后 {n} 分钟内在云上拉起节点并完成作业。"),
]
STEPS = (
    "1. 准备测试租户与配额；\n2. 按脚本提交作业并记录时间戳；\n3. 注入故障或负载；\n"
    "4. 采集调度器日志与监控指标；\n5. 与验收标准逐项比对并留存截图。"
)
CANDIDATES = 8  # 7 from the catalog (suggestions first) and the extra solution
NOTES = ["符合预期。", "需要厂商补充说明。", "有一次重试。", "日志完整。", "指标略低于阈值。", ""]
ANSWER_TEXT = (
    "由{who}负责，已在测试环境验证，并核对了厂商文档与现场演示记录；"
    "发生故障时的分诊流程、联系人和响应时限已写入运维手册（第 {n} 节）。"
)


def make_users():
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from common import roles

    users = {}
    people = [
        ("owner", "陈", "思远", roles.TECH_LEAD),
        ("r1", "王", "晓梅", roles.REVIEWER),
        ("r2", "李", "建国", roles.REVIEWER),
        ("r3", "张", "立新", roles.REVIEWER),
        ("viewer", "赵", "采购", roles.PROCUREMENT),
    ]
    for key, last, first, role in people:
        user, _created = get_user_model().objects.get_or_create(
            username=f"bench-{key}", defaults={"first_name": first, "last_name": last}
        )
        user.groups.add(Group.objects.get_or_create(name=role)[0])
        users[key] = get_user_model().objects.get(pk=user.pk)  # no cached roles
    return users


def make_extra_solution():
    """An eighth solution, filled in both languages, with a claim for every capability."""
    from catalog.models import (
        Capability,
        CapabilityClaim,
        Scenario,
        Solution,
        SolutionType,
        Source,
        SupportLevel,
    )

    solution, created = Solution.objects.get_or_create(
        slug="bench-domestic-scheduler",
        defaults={
            "solution_type": SolutionType.objects.get(slug="enterprise-platform"),
            "name_en": "Domestic accelerator scheduler",
            "name_zh_hans": "国产算力调度平台",
            "maintainer_en": "A domestic vendor",
            "maintainer_zh_hans": "国内厂商",
            "licence": "Commercial",
            "latest_version": "3.2",
            "deployment_modes": ["kubernetes", "air-gapped"],
            "summary_en": "A commercial scheduler for domestic accelerators and mixed clusters.",
            "summary_zh_hans": "面向国产加速卡与异构集群的商业调度平台，提供配额、计费与审计。",
            "focus_points_en": "Domestic accelerators\nQuotas and accounting\nAir-gapped delivery",
            "focus_points_zh_hans": "国产加速卡适配\n配额与计费\n离线交付",
            "limits_en": "Small community\nVendor lock-in",
            "limits_zh_hans": "社区较小\n依赖单一厂商",
        },
    )
    if created:
        solution.scenarios.set(Scenario.objects.all())
        source, _ = Source.objects.get_or_create(
            key="BENCH-vendor", defaults={"title": "Vendor white paper", "as_of": "2026-06"}
        )
        levels = [SupportLevel.NATIVE, SupportLevel.ADDON, SupportLevel.PARTIAL, SupportLevel.NONE]
        for i, capability in enumerate(Capability.objects.order_by("pk")):
            claim = CapabilityClaim.objects.create(
                solution=solution,
                capability=capability,
                level=levels[i % len(levels)],
                note_en="Per the vendor's documentation." if i % 3 == 0 else "",
                note_zh_hans="以厂商文档为准。" if i % 3 == 0 else "",
                as_of_version="3.2" if i % 2 == 0 else "",
            )
            if i % 3 == 0:
                claim.sources.add(source)
    return solution


def generate(quick: bool):
    """The evaluation, through the services where they are cheap and bulk rows for scores."""
    from django.core.files.base import ContentFile

    from catalog.models import Solution
    from evaluations import services as ev
    from evaluations.models import (
        Status,
    )
    from poc import services as poc
    from poc.models import Consensus, Evidence, Score, TestCase, TestGroup

    rng = random.Random(20270301)
    users = make_users()
    owner = users["owner"]
    reviewers = [users["r1"], users["r2"], users["r3"]]
    extra = make_extra_solution()

    evaluation = create_evaluation(
        owner, "2027 年 GPU 算力调度平台选型", reviewers, users["viewer"]
    )

    # Candidates: suggestions first (with their rules), then the rest by hand.
    ev.candidates_accept_suggestions(user=owner, evaluation=evaluation)
    have = set(evaluation.candidates.values_list("solution_id", flat=True))
    # Eight in all, as the reference shape: the catalog has grown past seven entries,
    # so the suggestions are topped up from it and the eighth is the extra solution.
    solutions = list(Solution.objects.filter(is_active=True).exclude(pk=extra.pk).order_by("pk"))
    solutions = [s for s in solutions if s.pk not in have][: max(0, CANDIDATES - 1 - len(have))]
    solutions.append(extra)
    for s in solutions:
        if s.pk not in have:
            ev.candidate_add(
                user=owner, evaluation=evaluation, solution=s, reason=f"纳入比较：{s.name_zh_hans}"
            )
    candidates = list(evaluation.candidates.order_by("pk"))

    # Five answers, a prefilled matrix and cost inputs per candidate.
    fill_candidates(owner, evaluation, candidates, ANSWER_TEXT)

    # The POC plan: library cases and cases of its own, spread over the four groups.
    evaluation = ev.evaluation_transition(user=owner, evaluation=evaluation, to_status=Status.POC)
    groups = list(TestGroup.objects.order_by("order", "pk"))
    if quick:
        for g in groups:
            for case in TestCase.objects.filter(group=g, is_active=True)[:2]:
                poc.plan_case_add_library(user=owner, evaluation=evaluation, case=case)
        n_custom = 4
    else:
        poc.plan_init(user=owner, evaluation=evaluation)
        n_custom = 33
    cases = add_custom_cases(owner, evaluation, groups, n_custom, CUSTOM_TOPICS, STEPS)
    # Scores: 3 reviewers × every case × every candidate, submitted; about 8% of the cells
    # have a reviewer far off, so the disagreement and consensus tables fill too.
    scored = score_every_cell(owner, cases, candidates, reviewers, rng, NOTES, batch_size=500)

    # Evidence: small files behind a few submitted scores.
    scores = list(Score.objects.filter(case__evaluation=evaluation).order_by("pk")[::97])[:16]
    for i, score in enumerate(scores):
        ext, content_type = [
            ("txt", "text/plain"),
            ("csv", "text/csv"),
            ("json", "application/json"),
        ][i % 3]
        content = f"bench evidence {i}: case {score.case_id}, candidate {score.candidate_id}\n"
        data = (content * 20).encode()
        evidence = Evidence(
            score=score,
            original_name=f"测试记录-{i + 1}.{ext}",
            content_type=content_type,
            size=len(data),
            sha256=hashlib.sha256(data).hexdigest(),
            uploaded_by=score.reviewer,
        )
        evidence.file.save(f"bench-{i + 1}.{ext}", ContentFile(data), save=False)
        evidence.save()

    return (
        evaluation,
        owner,
        {
            "candidates": len(candidates),
            "cases": len(cases),
            "scores": scored,
            "consensus": Consensus.objects.filter(case__evaluation=evaluation).count(),
            "evidence": len(scores),
        },
    )
