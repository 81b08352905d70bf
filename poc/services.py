"""Writes to POC plans, scores, evidence and consensus. Pages and the API call these."""

from __future__ import annotations

import hashlib
import mimetypes
import unicodedata
import uuid
from decimal import Decimal
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from catalog.models import Capability, Scenario
from common.concurrency import bump, lock_and_check, lock_or_new
from common.exceptions import Conflict, Forbidden
from common.history import save_as
from common.numbers import parse_decimal
from common.parsing import InputRefused, json_loads
from common.seeding import load_yaml, texts
from evaluations.locking import evaluation_lock_for
from evaluations.models import Candidate, CandidateStatus, Evaluation

from . import scoring
from .conflicts import require_clear
from .models import (
    Consensus,
    Direction,
    Evidence,
    Outcome,
    PlanCase,
    PlanGroup,
    ProfileWeight,
    ScenarioProfile,
    Score,
    TestCase,
    TestGroup,
)
from .selectors import plan_default_profile

SEED_FILE = Path(__file__).resolve().parent / "seed" / "poc.yaml"
EVIDENCE_TYPES = {
    "application/pdf": ".pdf",
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "text/plain": ".txt",
    "text/csv": ".csv",
    "application/json": ".json",
    "application/zip": ".zip",
}


def _decimal(value, field: str) -> Decimal | None:
    if value in (None, ""):
        return None
    try:
        return parse_decimal(value)
    except ValidationError as exc:
        raise ValidationError({field: exc.messages}) from None


# --- seed ------------------------------------------------------------------------------------


@transaction.atomic
def poc_load_seed(*, path: Path = SEED_FILE) -> dict[str, int]:
    """Load the test-case library and scenario profiles (idempotent, matched by key)."""
    data = load_yaml(Path(path).read_text(encoding="utf-8"))
    groups = {}
    for order, item in enumerate(data["groups"], start=1):
        groups[item["key"]], _created = TestGroup.objects.update_or_create(
            key=item["key"],
            defaults={
                "order": order,
                "default_weight": Decimal(str(item["default_weight"])),
                "happy_path": bool(item.get("happy_path", True)),
                **texts("name", item["name"]),
                **texts("description", item.get("description")),
            },
        )
    capabilities = {c.slug: c for c in Capability.objects.all()}
    for order, item in enumerate(data["cases"], start=1):
        metric = item.get("metric") or {}
        case, _created = TestCase.objects.update_or_create(
            key=item["key"],
            defaults={
                "group": groups[item["group"]],
                "order": order,
                "default_weight": Decimal(str(item["default_weight"])),
                "sources": ", ".join(item.get("sources", [])),
                "metric_unit": metric.get("unit", ""),
                "metric_direction": metric.get("direction", ""),
                "metric_threshold": (
                    Decimal(str(metric["threshold"])) if "threshold" in metric else None
                ),
                "metric_good": Decimal(str(metric["good"])) if "good" in metric else None,
                "metric_excellent": (
                    Decimal(str(metric["excellent"])) if "excellent" in metric else None
                ),
                **texts("title", item["title"]),
                **texts("steps", item.get("steps")),
                **texts("acceptance", item["acceptance"]),
                **texts("metric_name", metric.get("name")),
            },
        )
        unknown = sorted(set(item.get("verifies", [])) - set(capabilities))
        if unknown:
            raise ValueError(f"case {item['key']}: unknown capabilities {unknown}")
        case.verifies.set([capabilities[slug] for slug in item.get("verifies", [])])
    scenarios = {s.slug: s for s in Scenario.objects.all()}
    for order, item in enumerate(data["profiles"], start=1):
        profile, _created = ScenarioProfile.objects.update_or_create(
            key=item["key"], defaults={"order": order, **texts("name", item["name"])}
        )
        unknown = sorted(set(item.get("scenarios", [])) - set(scenarios))
        if unknown:
            raise ValueError(f"profile {item['key']}: unknown scenarios {unknown}")
        profile.scenarios.set([scenarios[slug] for slug in item.get("scenarios", [])])
        for group_key, weight in item["weights"].items():
            ProfileWeight.objects.update_or_create(
                profile=profile,
                group=groups[group_key],
                defaults={"weight": Decimal(str(weight))},
            )
    return {
        "test_groups": len(groups),
        "test_cases": len(data["cases"]),
        "scenario_profiles": len(data["profiles"]),
    }


# --- plan ------------------------------------------------------------------------------------


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
    threshold = _decimal(metric_threshold, "metric_threshold")
    good = _decimal(metric_good, "metric_good")
    excellent = _decimal(metric_excellent, "metric_excellent")
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
        weight=_decimal(weight, "weight"),
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
    value = _decimal(weight, "weight")
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


# --- scores ----------------------------------------------------------------------------------


def _rubric_error(value: Decimal | None) -> str | None:
    """Scores are 0–5 in whole or half points (scoring.rubric_problem)."""
    problem = scoring.rubric_problem(value)
    if problem == "range":
        return _("Scores run from 0 to 5.")
    if problem == "step":
        return _("Use whole or half points (e.g. 3 or 3.5).")
    return None


def _check_cell(case: PlanCase, candidate: Candidate) -> None:
    if case.evaluation_id != candidate.evaluation_id:
        raise ValidationError({"case": _("This case is not in the candidate's POC plan.")})
    if candidate.status != CandidateStatus.SHORTLISTED:
        raise Conflict(_("%(s)s is eliminated; it is not scored.") % {"s": candidate.solution})


def measured_to_score(case: PlanCase, value: Decimal) -> Decimal:
    """A measured value on the rubric for this case's metric: meeting the threshold is 3, the
    documented bands above and below it give the rest (scoring.measured_bands)."""
    return scoring.measured_to_score(
        Direction(case.metric_direction).value,
        case.metric_threshold,
        value,
        case.metric_good,
        case.metric_excellent,
    )


@transaction.atomic
def score_save(
    *,
    user,
    case: PlanCase,
    candidate: Candidate,
    score=None,
    measured_value=None,
    outcome: str = Outcome.NOT_RUN,
    notes: str = "",
    submit: bool = False,
    expected_version: int | None,
) -> Score:
    """Save my score for one cell (a draft until submitted; submitted scores are final)."""
    evaluation_lock_for(user, case.evaluation, "poc.score")
    _check_cell(case, candidate)
    require_clear(user, candidate)  # a declared conflict of interest, or none declared yet
    errors = {}
    value = _decimal(score, "score")
    measured = _decimal(measured_value, "measured_value")
    rubric_error = _rubric_error(value)
    if rubric_error:
        errors["score"] = [rubric_error]
    if measured is not None and not case.has_metric:
        errors["measured_value"] = [_("This case has no metric to measure against.")]
    if outcome not in Outcome.values:
        errors["outcome"] = [_("Unknown outcome '%(o)s'.") % {"o": outcome}]
    if submit and value is None and measured is None:
        errors["score"] = [_("Give a score or a measured value before submitting.")]
    if errors:
        raise ValidationError(errors)
    if value is None and measured is not None:
        value = measured_to_score(case, measured)
    value = value.quantize(Decimal("0.1")) if value is not None else None
    row = lock_or_new(
        Score, expected_version=expected_version, case=case, candidate=candidate, reviewer=user
    )
    if row.submitted:
        raise Conflict(_("You submitted this score; submitted scores cannot be changed."))
    row.score = value
    row.measured_value = measured
    row.outcome = outcome
    row.notes = (notes or "").strip()
    if submit:
        row.submitted_at = timezone.now()
    bump(row)
    row.full_clean(exclude=["case", "candidate", "reviewer"])
    save_as(row, user)
    return row


@transaction.atomic
def scores_submit(*, user, evaluation: Evaluation, candidate: Candidate | None = None) -> int:
    """Submit all my draft scores (for one candidate, or all) that have a value."""
    evaluation_lock_for(user, evaluation, "poc.score")
    drafts = Score.objects.filter(
        case__evaluation=evaluation, reviewer=user, submitted_at=None, score__isnull=False
    )
    if candidate is not None:
        drafts = drafts.filter(candidate=candidate)
    for blocked in Candidate.objects.filter(pk__in=drafts.values("candidate")).select_related(
        "solution"
    ):
        require_clear(user, blocked)  # a conflict declared since the draft was saved
    count = 0
    for row in drafts.select_for_update():
        row.submitted_at = timezone.now()
        bump(row)
        save_as(row, user)
        count += 1
    return count


@transaction.atomic
def consensus_record(
    *,
    user,
    case: PlanCase,
    candidate: Candidate,
    score,
    reason: str,
    expected_version: int | None,
) -> Consensus:
    """The owner's agreed score for a cell, with the reason; individual scores stay visible."""
    evaluation_lock_for(user, case.evaluation, "poc.record_consensus")
    _check_cell(case, candidate)
    value = _decimal(score, "score")
    errors = {}
    rubric_error = _("Scores run from 0 to 5.") if value is None else _rubric_error(value)
    if rubric_error:
        errors["score"] = [rubric_error]
    if not (reason or "").strip():
        errors["reason"] = [_("Say why this is the agreed score.")]
    if errors:
        raise ValidationError(errors)
    if not case.scores.filter(candidate=candidate).exclude(submitted_at=None).exists():
        raise Conflict(_("No reviewer has submitted a score for this cell yet."))
    row = lock_or_new(Consensus, expected_version=expected_version, case=case, candidate=candidate)
    row.score = value.quantize(Decimal("0.1"))
    row.reason = reason.strip()
    row.decided_by = user
    bump(row)
    row.full_clean(exclude=["case", "candidate", "decided_by"])
    save_as(row, user)
    return row


# --- evidence --------------------------------------------------------------------------------


def clean_file_name(name: str) -> str:
    """The name of an uploaded file as it may be kept (as data, never as a path): refused with
    a path or control or direction characters in it, cut to 200 characters."""
    if not name or "/" in name or "\\" in name or name.startswith(".") or ".." in name:
        raise ValidationError(
            {"file": _("The file name may not contain a path; rename it and upload again.")}
        )
    # Control and format characters (bidi overrides such as U+202E turn "gpj.exe" into
    # "exe.jpg" on screen, zero-width ones hide text) have no place in a file name.
    if any(unicodedata.category(ch) in ("Cc", "Cf") for ch in name):
        raise ValidationError(
            {"file": _("The file name contains control or direction characters; rename it.")}
        )
    return name[:200]


# What each accepted type's content starts with. Text types must be UTF-8 text and not markup
# a browser would render (HTML, SVG, XML), whatever the name says.
MAGIC = {
    "application/pdf": (b"%PDF-",),
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "application/zip": (b"PK\x03\x04", b"PK\x05\x06"),
}
MARKUP = (b"<!doctype", b"<html", b"<svg", b"<?xml", b"<script", b"<body", b"<head", b"<iframe")


def content_matches(content_type: str, content: bytes) -> bool:
    """Whether the bytes are what `content_type` (guessed from the name) says they are. JSON
    too deep or too large to parse in bounded memory raises InputRefused (common.parsing)."""
    if content_type in MAGIC:
        return content.startswith(MAGIC[content_type])
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        return False
    if text.lstrip()[:64].lower().encode().startswith(MARKUP):
        return False
    if content_type == "application/json":
        try:
            json_loads(text)
        except InputRefused:
            raise
        except ValueError:
            return False
    return True


def too_large_message(size: int) -> str:
    return _("The file is %(size)s bytes; the limit is %(max)s.") % {
        "size": size,
        "max": settings.EVIDENCE_MAX_BYTES,
    }


def upload_refusal(request) -> str | None:
    """Why the request's file is missing, when the upload was stopped at the size limit
    (common.uploads.SizeLimitUploadHandler); None otherwise."""
    size = getattr(request, "upload_too_large", None)
    return too_large_message(size) + " " + _("Only the first part was read.") if size else None


@transaction.atomic
def evidence_add(*, user, score: Score, upload) -> Evidence:
    """Attach a file to my own score. Size and type are limited; the SHA-256 is recorded."""
    evaluation_lock_for(user, score.case.evaluation, "poc.score")
    if score.reviewer_id != user.pk:
        raise Forbidden(_("You can attach evidence to your own scores only."))
    require_clear(user, score.candidate)
    name = clean_file_name(upload.name)
    if upload.size > settings.EVIDENCE_MAX_BYTES:
        raise ValidationError({"file": too_large_message(upload.size)})
    guessed = mimetypes.guess_type(name)[0] or ""
    if guessed not in EVIDENCE_TYPES:
        raise ValidationError(
            {
                "file": _("Files of this type are not accepted. Use: %(types)s.")
                % {"types": ", ".join(sorted(set(EVIDENCE_TYPES.values())))}
            }
        )
    digest = hashlib.sha256()
    chunks = []
    for chunk in upload.chunks():
        digest.update(chunk)
        chunks.append(chunk)
    try:
        matches = content_matches(guessed, b"".join(chunks))
    except InputRefused as exc:
        raise ValidationError({"file": str(exc)}) from None
    if not matches:
        raise ValidationError(
            {
                "file": _(
                    "The content of this file is not a %(type)s file, whatever its name says; "
                    "upload the real file."
                )
                % {"type": EVIDENCE_TYPES[guessed]}
            }
        )
    # A random stored name: the original is kept only as data, never as a path.
    stored = f"{uuid.uuid4().hex}{EVIDENCE_TYPES[guessed]}"
    evidence = Evidence(
        score=score,
        original_name=name,
        content_type=guessed,
        size=upload.size,
        sha256=digest.hexdigest(),
        uploaded_by=user,
    )
    evidence.file.save(stored, ContentFile(b"".join(chunks)), save=False)
    evidence.save()
    return evidence
