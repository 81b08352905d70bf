"""Writes to an evaluation's POC plan: one plan for every candidate (its groups and cases, the
case and group weights, a scenario profile's weights), edited by the owner and editors."""

from __future__ import annotations

from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from catalog.models import Capability
from common.concurrency import bump, lock_and_check
from common.history import save_as
from evaluations.locking import evaluation_lock_for
from evaluations.models import Evaluation

from ..models import PlanCase, PlanGroup, ScenarioProfile, TestCase, TestGroup
from ..selectors import plan_default_profile
from .numbers import field_decimal


@transaction.atomic
def plan_init(*, user, evaluation: Evaluation) -> int:
    """Give the evaluation every group and every active library case not in its plan yet.
    Returns how many cases were added.

    A group new to the plan takes its weight from the profile the evaluation's scenarios choose
    (`selectors.plan_default_profile`); groups already in the plan keep their weights."""
    evaluation_lock_for(user, evaluation, "poc.change_plan")
    weights = _default_weights(evaluation)
    for group in TestGroup.objects.all():
        _ensure_group(evaluation, group, user, weights)
    have = set(
        evaluation.poc_cases.exclude(source_case=None).values_list("source_case_id", flat=True)
    )
    added = 0
    for case in TestCase.objects.filter(is_active=True).exclude(pk__in=have):
        plan_case_from_library(evaluation, case, user)
        added += 1
    return added


def plan_case_from_library(evaluation: Evaluation, case: TestCase, user) -> PlanCase:
    # Texts stay with the library case (shown in the reader's language); the weight and the
    # metric are copied, so the library can change without moving a POC already scored.
    plan_case = PlanCase(
        evaluation=evaluation,
        group=case.group,
        source_case=case,
        title="",
        acceptance="",
        weight=case.default_weight,
        order=case.order,
        metric_name="",  # read from the library case, in the reader's language
        metric_unit=case.metric_unit,
        metric_direction=case.metric_direction,
        metric_threshold=case.metric_threshold,
        metric_good=case.metric_good,
        metric_excellent=case.metric_excellent,
    )
    save_as(plan_case, user)
    return plan_case


@transaction.atomic
def plan_case_add_library(*, user, evaluation: Evaluation, case: TestCase) -> PlanCase:
    evaluation_lock_for(user, evaluation, "poc.change_plan")
    if evaluation.poc_cases.filter(source_case=case).exists():
        raise ValidationError({"case": _("This case is already in the plan.")})
    _ensure_group(evaluation, case.group, user)
    return plan_case_from_library(evaluation, case, user)


def _default_weights(evaluation: Evaluation) -> dict[int, Decimal]:
    """Group id → weight of the profile the evaluation's scenarios choose."""
    profile = plan_default_profile(evaluation).profile
    return {w.group_id: w.weight for w in profile.weights.all()} if profile else {}


def _ensure_group(evaluation, group, user, weights: dict[int, Decimal] | None = None) -> None:
    """Add the group to the plan if missing, weighted by the evaluation's default profile (or
    the group's default weight when the profile does not weight it)."""
    if PlanGroup.objects.filter(evaluation=evaluation, group=group).exists():
        return
    if weights is None:
        weights = _default_weights(evaluation)
    weight = weights.get(group.pk, group.default_weight)
    save_as(PlanGroup(evaluation=evaluation, group=group, weight=weight), user)


VERIFY_GROUP = "governance"  # where an own verification case goes when no library case fits


@transaction.atomic
def plan_case_verify(*, user, evaluation: Evaluation, capability: Capability) -> PlanCase:
    """Add the POC case that verifies a capability (for a hard constraint the catalog leaves
    unverified): the first library case that verifies it, or else an own case stating it."""
    evaluation_lock_for(user, evaluation, "poc.change_plan")
    planned = list(evaluation.poc_cases.select_related("source_case"))
    library = list(TestCase.objects.filter(is_active=True, verifies=capability))
    in_plan = {p.source_case_id for p in planned}
    for case in library:
        if case.pk not in in_plan:
            _ensure_group(evaluation, case.group, user)
            return plan_case_from_library(evaluation, case, user)
    title = _("Verify: %(capability)s") % {"capability": capability.name}
    verifying = {case.pk for case in library}
    already = [p for p in planned if p.source_case_id in verifying or p.title == title]
    if already:
        raise ValidationError(
            _("The plan already verifies %(capability)s: “%(case)s”.")
            % {"capability": capability.name, "case": already[0].text("title")}
        )
    group = TestGroup.objects.filter(key=VERIFY_GROUP).first() or TestGroup.objects.first()
    return plan_case_add_custom(
        user=user,
        evaluation=evaluation,
        group=group,
        title=title,
        acceptance=_(
            "Each candidate shows in the POC environment, with evidence attached, that it has "
            "this capability: %(description)s"
        )
        % {"description": capability.description},
        verifies=[capability],
    )


@transaction.atomic
def plan_case_add_custom(
    *,
    user,
    evaluation: Evaluation,
    group: TestGroup,
    title: str,
    acceptance: str,
    steps: str = "",
    weight=Decimal("3"),
    metric_name: str = "",
    metric_unit: str = "",
    metric_direction: str = "",
    metric_threshold=None,
    metric_good=None,
    metric_excellent=None,
    verifies=(),
) -> PlanCase:
    """An evaluation's own case. Like every plan case, it applies to every candidate.
    `verifies`: the catalog capabilities a pass of the case shows a candidate has."""
    evaluation_lock_for(user, evaluation, "poc.change_plan")
    errors = {}
    if not (title or "").strip():
        errors["title"] = [_("Give the case a title.")]
    if not (acceptance or "").strip():
        errors["acceptance"] = [_("State the acceptance criteria.")]
    threshold = field_decimal(metric_threshold, "metric_threshold")
    good = field_decimal(metric_good, "metric_good")
    excellent = field_decimal(metric_excellent, "metric_excellent")
    if bool(metric_direction) != (threshold is not None):
        errors["metric_threshold"] = [
            _("A metric needs both a direction and a threshold (or neither).")
        ]
    if errors:
        raise ValidationError(errors)
    _ensure_group(evaluation, group, user)
    case = PlanCase(
        evaluation=evaluation,
        group=group,
        title=title.strip(),
        acceptance=acceptance.strip(),
        steps=(steps or "").strip(),
        weight=field_decimal(weight, "weight"),
        order=1000 + evaluation.poc_cases.count(),
        metric_name=(metric_name or "").strip(),
        metric_unit=(metric_unit or "").strip(),
        metric_direction=metric_direction or "",
        metric_threshold=threshold,
        metric_good=good,
        metric_excellent=excellent,
    )
    case.full_clean(exclude=["evaluation", "group", "source_case"])
    save_as(case, user)
    if verifies:
        case.verifies.set(list(verifies))
    return case


@transaction.atomic
def plan_case_remove(*, user, case: PlanCase) -> None:
    """Remove a case from the plan — for every candidate at once, scores included."""
    evaluation_lock_for(user, case.evaluation, "poc.change_plan")
    case._history_user = user
    case.delete()


@transaction.atomic
def plan_weight_set(*, user, obj: PlanCase | PlanGroup, weight, expected_version) -> object:
    """Set a case's or a group's weight (the same for every candidate)."""
    evaluation_lock_for(user, obj.evaluation, "poc.change_plan")
    value = field_decimal(weight, "weight")
    if value is None or value < 0:
        raise ValidationError({"weight": _("A weight is a number of 0 or more.")})
    obj = lock_and_check(type(obj), pk=obj.pk, expected_version=expected_version)
    obj.weight = value
    bump(obj)
    # Only the weight changes: a library case keeps its texts in the library (blank here).
    obj.clean_fields(exclude=[f.name for f in obj._meta.fields if f.name != "weight"])
    save_as(obj, user)
    return obj


@transaction.atomic
def plan_apply_profile(*, user, evaluation: Evaluation, profile: ScenarioProfile) -> None:
    """Set the plan's group weights to a scenario profile's."""
    evaluation_lock_for(user, evaluation, "poc.change_plan")
    for pw in profile.weights.select_related("group"):
        group = PlanGroup.objects.filter(evaluation=evaluation, group=pw.group).first()
        if group is None:
            group = PlanGroup(evaluation=evaluation, group=pw.group, weight=pw.weight)
        else:
            group.weight = pw.weight
            bump(group)
        save_as(group, user)
