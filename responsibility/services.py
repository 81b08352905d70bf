"""Writes to matrices, parties and costs. Pages and the API call these; rules live here once.
Each is atomic and checks, through the evaluations rules, that the user may edit."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.text import slugify
from django.utils.translation import gettext as _

from common.concurrency import bump, lock_or_new
from common.exceptions import Conflict
from common.history import save_as
from common.numbers import parse_decimal
from common.seeding import load_yaml
from evaluations.models import Candidate, CandidateStatus, Evaluation, FiveQuestion
from evaluations.services import evaluation_require_editable

from .checks import canonical, is_accountable
from .models import (
    CONTROL_AREAS,
    Area,
    AreaGroup,
    AreaRow,
    Cell,
    CostInput,
    CostSettings,
    Party,
    PartyKind,
)

SEED_FILE = Path(__file__).resolve().parent / "seed" / "responsibility.yaml"


def _seed() -> dict:
    return load_yaml(SEED_FILE.read_text(encoding="utf-8"))


# --- seed ------------------------------------------------------------------------------------


@transaction.atomic
def responsibility_load_seed() -> dict[str, int]:
    """Load the shared parties and the area library (idempotent, matched by key)."""
    data = _seed()
    for order, item in enumerate(data["parties"], start=1):
        Party.objects.update_or_create(
            evaluation=None,
            key=item["key"],
            defaults={
                "kind": item["kind"],
                "order": order,
                "name_en": item["name"]["en"],
                "name_zh_hans": item["name"]["zh"],
            },
        )
    areas = 0
    for g_order, group in enumerate(data["area_groups"], start=1):
        g, _created = AreaGroup.objects.update_or_create(
            key=group["key"],
            defaults={
                "order": g_order,
                "name_en": group["name"]["en"],
                "name_zh_hans": group["name"]["zh"],
            },
        )
        for a_order, item in enumerate(group["areas"], start=1):
            Area.objects.update_or_create(
                key=item["key"],
                defaults={
                    "group": g,
                    "order": a_order,
                    "governance": bool(item.get("governance")),
                    "stack_only": bool(item.get("stack_only")),
                    "name_en": item["name"]["en"],
                    "name_zh_hans": item["name"]["zh"],
                    "description_en": item.get("description", {}).get("en", ""),
                    "description_zh_hans": item.get("description", {}).get("zh", ""),
                },
            )
            areas += 1
    _load_question_areas(data.get("question_areas", {}))
    return {"parties": len(data["parties"]), "areas": areas}


def _load_question_areas(mapping: dict[str, list[str]]) -> None:
    """Which areas each who-question asks about (after the questions are seeded)."""
    questions = {q.key: q for q in FiveQuestion.objects.filter(key__in=mapping)}
    areas = {a.key: a for a in Area.objects.all()}
    for key, area_keys in mapping.items():
        if key not in questions:
            raise ValueError(f"question_areas: unknown question {key!r}")
        missing = sorted(set(area_keys) - set(areas))
        if missing:
            raise ValueError(f"question_areas {key}: unknown areas {missing}")
        questions[key].areas.set([areas[k] for k in area_keys])


def prefill_for_type(type_slug: str) -> tuple[dict[str, dict[str, str]], dict[str, Decimal]]:
    """The starting RACI letters (area → party key → letter) and FTE (area → FTE) for a type."""
    data = _seed()
    template = data["prefill"].get(type_slug) or {"default": {}, "areas": {}}
    fte = data["fte"].get(type_slug) or {"default": 0, "areas": {}}
    letters, effort = {}, {}
    for area in Area.objects.filter(is_active=True).values_list("key", flat=True):
        letters[area] = dict(template.get("areas", {}).get(area, template.get("default", {})))
        effort[area] = Decimal(str(fte.get("areas", {}).get(area, fte.get("default", 0))))
    return letters, effort


def prefill_for_candidate(candidate: Candidate):
    """prefill_for_type for the candidate's type; for a stack, each area starts from the type of
    the layer that does the work there (seed `stack_layers`), else from the main layer's."""
    letters, effort = prefill_for_type(candidate.solution.solution_type.slug)
    layers = candidate.stack_layers
    if not layers:
        return letters, effort
    by_role = {layer.role: layer.solution.solution_type.slug for layer in layers}
    for role, areas in (_seed().get("stack_layers") or {}).items():
        if role not in by_role:
            continue
        layer_letters, layer_effort = prefill_for_type(by_role[role])
        for area in areas:
            if area in letters:
                letters[area], effort[area] = layer_letters[area], layer_effort[area]
    return letters, effort


# --- matrices --------------------------------------------------------------------------------


def _editable_candidate(user, candidate: Candidate) -> None:
    evaluation_require_editable(user, candidate.evaluation)
    if candidate.status != CandidateStatus.SHORTLISTED:
        raise Conflict(_("%(s)s is eliminated; restore it first.") % {"s": candidate.name})


@transaction.atomic
def matrix_prefill(*, user, candidate: Candidate) -> int:
    """Fill the areas that have no row yet with the starting point for the candidate's type.

    Rows someone already edited are left alone. Returns how many rows were added.
    """
    _editable_candidate(user, candidate)
    letters, effort = prefill_for_candidate(candidate)
    parties = {p.key: p for p in Party.objects.filter(evaluation=None)}
    existing = set(candidate.area_rows.values_list("area_id", flat=True))
    added = 0
    areas = Area.objects.filter(is_active=True).exclude(pk__in=existing)
    if not candidate.is_stack:
        areas = areas.filter(stack_only=False)
    for area in [a for a in areas if a.applies_to(candidate)]:
        row = AreaRow(candidate=candidate, area=area, internal_fte=effort.get(area.key, 0))
        save_as(row, user)
        Cell.objects.bulk_create(
            Cell(row=row, party=parties[key], letter=letter)
            for key, letter in letters.get(area.key, {}).items()
            if key in parties
        )
        added += 1
    return added


def matrix_start(*, candidate: Candidate, user, **signal) -> None:
    """The candidate_added receiver: a new candidate's matrix starts from the usual split for
    its type (matrix_prefill), so its people cost counts from the start."""
    matrix_prefill(user=user, candidate=candidate)


def _party_for(evaluation: Evaluation, party: Party) -> Party:
    if party.evaluation_id not in (None, evaluation.pk):
        raise ValidationError({"party": _("This party belongs to another evaluation.")})
    return party


def _row_for_update(candidate: Candidate, area: Area, expected_version: int | None) -> AreaRow:
    if not area.is_active:
        raise ValidationError({"area": _("The area '%(a)s' is not in use.") % {"a": area.key}})
    if not area.applies_to(candidate):
        if area.key in CONTROL_AREAS:
            message = _("Only a stack whose layers duplicate this control has the area '%(a)s'.")
        else:
            message = _("Only a stack's matrix has the area '%(a)s'.")
        raise ValidationError({"area": message % {"a": area.key}})
    return lock_or_new(AreaRow, expected_version=expected_version, candidate=candidate, area=area)


def _clean_letter(letter: str | None) -> str:
    """The stored form of a cell value: R, A, AR, C, I or "" (clears the cell)."""
    clean = canonical(letter if isinstance(letter, str) else None)
    if clean is None:
        raise ValidationError(
            {
                "letter": _(
                    "Use R, A, AR (accountable and responsible), C or I, or leave it empty; "
                    "'%(l)s' is not one of them."
                )
                % {"l": str(letter).strip()[:20]}
            }
        )
    return clean


@transaction.atomic
def cell_set(
    *,
    user,
    candidate: Candidate,
    area: Area,
    party: Party,
    letter: str,
    expected_version: int | None,
) -> AreaRow:
    """Set (or clear, with an empty letter) one cell. The row's version guards the edit."""
    _editable_candidate(user, candidate)
    letter = _clean_letter(letter)
    _party_for(candidate.evaluation, party)
    row = _row_for_update(candidate, area, expected_version)
    bump(row)
    save_as(row, user)
    if letter:
        Cell.objects.update_or_create(row=row, party=party, defaults={"letter": letter})
    else:
        Cell.objects.filter(row=row, party=party).delete()
    return row


@transaction.atomic
def row_update(
    *,
    user,
    candidate: Candidate,
    area: Area,
    expected_version: int | None,
    letters: dict[Party, str] | None = None,
    note: str | None = None,
    internal_fte=None,
) -> AreaRow:
    """Replace a whole row at once: letters (party → letter), note and internal FTE."""
    _editable_candidate(user, candidate)
    errors = {}
    clean = {}
    if letters is not None:
        for party, letter in letters.items():
            _party_for(candidate.evaluation, party)
            try:
                clean[party] = _clean_letter(letter)
            except ValidationError as exc:
                errors.setdefault("letters", []).extend(exc.message_dict["letter"])
        accountable = sum(1 for v in clean.values() if is_accountable(v))
        if accountable > 1:
            errors.setdefault("letters", []).append(
                _("Only one party can be accountable (A or AR) for an area; you gave %(n)d.")
                % {"n": accountable}
            )
    if internal_fte is not None:
        try:
            internal_fte = parse_decimal(internal_fte)
        except ValidationError:
            errors["internal_fte"] = [_("Give the effort as a number of FTE, e.g. 0.5.")]
        else:
            if internal_fte < 0 or internal_fte > 50:
                errors["internal_fte"] = [_("The effort must be between 0 and 50 FTE.")]
    if errors:
        raise ValidationError(errors)
    row = _row_for_update(candidate, area, expected_version)
    if note is not None:
        row.note = note.strip()
    if internal_fte is not None:
        row.internal_fte = internal_fte
    bump(row)
    row.full_clean(exclude=["candidate", "area"])
    save_as(row, user)
    if letters is not None:
        row.cells.all().delete()
        Cell.objects.bulk_create(
            Cell(row=row, party=party, letter=letter) for party, letter in clean.items() if letter
        )
    return row


@transaction.atomic
def party_add(*, user, evaluation: Evaluation, name: str, kind: str) -> Party:
    """A party of this evaluation's own (e.g. a systems integrator)."""
    evaluation_require_editable(user, evaluation)
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": _("Give the party a name.")})
    if kind not in PartyKind.values:
        raise ValidationError({"kind": _("Unknown kind '%(k)s'.") % {"k": kind}})
    key = slugify(name).replace("-", "_")[:30] or "party"
    if not key[0].isalpha():
        key = f"p_{key}"
    base, n = key, 2
    while (
        Party.objects.filter(evaluation=evaluation, key=key).exists()
        or Party.objects.filter(evaluation=None, key=key).exists()
    ):
        key, n = f"{base}_{n}", n + 1
    party = Party(
        evaluation=evaluation,
        key=key,
        kind=kind,
        order=100 + evaluation.parties.count(),
        name_en=name,
        name_zh_hans=name,
    )
    party.full_clean()
    party.save()
    return party


# --- costs -----------------------------------------------------------------------------------

SETTINGS_FIELDS = ("years", "currency", "fte_cost_per_year")


@transaction.atomic
def cost_settings_save(*, user, evaluation: Evaluation, expected_version: int | None, **values):
    evaluation_require_editable(user, evaluation)
    unknown = set(values) - set(SETTINGS_FIELDS)
    if unknown:
        raise ValidationError({k: _("This field cannot be set here.") for k in unknown})
    settings = lock_or_new(CostSettings, expected_version=expected_version, evaluation=evaluation)
    for name, value in values.items():
        setattr(settings, name, value.strip().upper() if name == "currency" else value)
    bump(settings)
    settings.full_clean(exclude=["evaluation"])
    save_as(settings, user)
    return settings


@transaction.atomic
def cost_input_save(*, user, candidate: Candidate, expected_version: int | None, **values):
    _editable_candidate(user, candidate)
    unknown = set(values) - set(CostInput.INPUT_FIELDS)
    if unknown:
        raise ValidationError({k: _("This field cannot be set here.") for k in unknown})
    data = lock_or_new(CostInput, expected_version=expected_version, candidate=candidate)
    for name, value in values.items():
        setattr(data, name, value)
    bump(data)
    data.full_clean(exclude=["candidate"])
    save_as(data, user)
    return data
