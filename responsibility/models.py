"""Responsibility matrices (RACI per candidate) and the cost-of-ownership inputs."""

from decimal import Decimal

from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from common.concurrency import VersionedModel
from common.fields import LONG_TEXT, BoundedTextField
from common.querysets import SignallingModel
from common.validators import key_validator
from evaluations.models import Candidate, Evaluation, FiveQuestion
from evaluations.stack_controls import CONTROL_KEYS, duplicated_controls

from .support.models import SupportTerm as SupportTerm

# The areas only a stack that duplicates a control has (two or more of its layers provide it:
# evaluations.stack_controls): area key -> control key.
CONTROL_AREAS = {f"layer_owner_{key}": key for key in CONTROL_KEYS}


class Letter(models.TextChoices):
    R = "R", _("R — responsible (does the work)")
    A = "A", _("A — accountable (owns the outcome)")
    AR = "AR", _("AR — accountable and responsible (owns it and does the work)")
    C = "C", _("C — consulted")
    I = "I", _("I — informed")  # noqa: E741


class PartyKind(models.TextChoices):
    INTERNAL = "internal", _("Internal platform team")
    VENDOR = "vendor", _("Vendor")
    CLOUD = "cloud", _("Cloud provider")
    BUSINESS = "business", _("Business / user team")
    SECURITY = "security", _("Security team")
    OTHER = "other", _("Other")


class Party(SignallingModel):
    """Who can own an area. Seeded parties are global; an evaluation may add its own."""

    evaluation = models.ForeignKey(
        Evaluation,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="parties",
        help_text=_("Empty for the shared parties every evaluation sees."),
    )
    key = models.CharField(_("key"), max_length=40, validators=[key_validator])
    name = models.CharField(_("name"), max_length=100)
    kind = models.CharField(_("kind"), max_length=10, choices=PartyKind.choices)
    order = models.PositiveSmallIntegerField(_("order"), default=0)

    class Meta:
        ordering = [models.F("evaluation_id").asc(nulls_first=True), "order", "pk"]
        verbose_name = _("party")
        verbose_name_plural = _("parties")
        constraints = [
            models.UniqueConstraint(
                fields=["key"], condition=models.Q(evaluation=None), name="party_global_key"
            ),
            models.UniqueConstraint(fields=["evaluation", "key"], name="party_evaluation_key"),
        ]

    def __str__(self) -> str:
        return self.name


class AreaGroup(SignallingModel):
    key = models.CharField(_("key"), max_length=40, unique=True, validators=[key_validator])
    name = models.CharField(_("name"), max_length=100)
    order = models.PositiveSmallIntegerField(_("order"), default=0)

    class Meta:
        ordering = ["order", "pk"]
        verbose_name = _("area group")
        verbose_name_plural = _("area groups")

    def __str__(self) -> str:
        return self.name


class Area(SignallingModel):
    group = models.ForeignKey(AreaGroup, on_delete=models.PROTECT, related_name="areas")
    key = models.CharField(_("key"), max_length=60, unique=True, validators=[key_validator])
    name = models.CharField(_("name"), max_length=150)
    description = BoundedTextField(_("description"), max_length=LONG_TEXT, blank=True)
    governance = models.BooleanField(
        _("governance area"),
        default=False,
        help_text=_("Permissions, audit, quotas and the like: someone internal must own them."),
    )
    stack_only = models.BooleanField(
        _("stacks only"),
        default=False,
        help_text=_(
            "Only a stack's matrix has this area (e.g. the integration between its layers)."
        ),
    )
    order = models.PositiveSmallIntegerField(_("order"), default=0)
    is_active = models.BooleanField(_("active"), default=True)
    # The who-questions this area answers too: their answers and this row must agree
    # (responsibility.reconcile). Kept here, not on the question: this app depends on that one.
    questions = models.ManyToManyField(
        FiveQuestion,
        blank=True,
        related_name="areas",
        verbose_name=_("pre-procurement questions asking who owns it"),
    )

    class Meta:
        ordering = ["group__order", "order", "pk"]
        verbose_name = _("area")
        verbose_name_plural = _("areas")

    def __str__(self) -> str:
        return self.name

    def applies_to(self, candidate) -> bool:
        control = CONTROL_AREAS.get(self.key)
        if control is not None:
            return candidate.is_stack and control in duplicated_controls(candidate)
        return candidate.is_stack or not self.stack_only


class AreaRow(VersionedModel):
    """One area of one candidate's matrix: the note, the internal effort, and its version.

    Every cell save bumps the row's version, so two people editing the same area cannot
    silently overwrite each other.
    """

    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="area_rows")
    area = models.ForeignKey(Area, on_delete=models.PROTECT, related_name="+")
    note = models.CharField(_("note"), max_length=500, blank=True)
    internal_fte = models.DecimalField(
        _("internal effort (FTE)"),
        max_digits=5,
        decimal_places=2,
        default=Decimal("0"),
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("50"))],
    )
    history = HistoricalRecords()

    class Meta:
        # No joins: rows are keyed by area wherever they are read, and a join to the candidate
        # and area here would sort every prefetch of every matrix.
        ordering = ["candidate_id", "area_id"]
        verbose_name = _("matrix row")
        verbose_name_plural = _("matrix rows")
        constraints = [
            models.UniqueConstraint(fields=["candidate", "area"], name="area_row_unique"),
            models.CheckConstraint(
                condition=models.Q(internal_fte__gte=0), name="area_row_fte_not_negative"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.candidate} · {self.area}"


class Cell(SignallingModel):
    row = models.ForeignKey(AreaRow, on_delete=models.CASCADE, related_name="cells")
    party = models.ForeignKey(Party, on_delete=models.CASCADE, related_name="+")
    letter = models.CharField(_("letter"), max_length=2, choices=Letter.choices)
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("matrix cell")
        verbose_name_plural = _("matrix cells")
        constraints = [
            models.UniqueConstraint(fields=["row", "party"], name="cell_unique"),
            models.CheckConstraint(
                condition=models.Q(letter__in=["R", "A", "AR", "C", "I"]), name="cell_letter_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.party}: {self.letter}"


money_field = {
    "max_digits": 16,
    "decimal_places": 2,
    "default": Decimal("0"),
    "validators": [MinValueValidator(Decimal("0"))],
}


class CostSettings(VersionedModel):
    """Per evaluation: horizon, currency and what one internal FTE-year costs."""

    evaluation = models.OneToOneField(Evaluation, on_delete=models.CASCADE, related_name="cost")
    years = models.PositiveSmallIntegerField(
        _("years"), default=3, validators=[MinValueValidator(1), MaxValueValidator(10)]
    )
    currency = models.CharField(
        _("currency"),
        max_length=3,
        default="CNY",
        validators=[RegexValidator(r"^[A-Z]{3}$", _("Use a three-letter code such as CNY."))],
    )
    fte_cost_per_year = models.DecimalField(
        _("loaded cost per FTE-year"),
        max_digits=16,
        decimal_places=2,
        default=Decimal("600000"),
        validators=[MinValueValidator(Decimal("0"))],
    )
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("cost settings")
        verbose_name_plural = _("cost settings")

    def __str__(self) -> str:
        return f"{self.evaluation} · {self.years} × {self.currency}"


class CostInput(VersionedModel):
    candidate = models.OneToOneField(Candidate, on_delete=models.CASCADE, related_name="cost")
    licence_per_year = models.DecimalField(_("licences / subscriptions per year"), **money_field)
    vendor_services_per_year = models.DecimalField(
        _("vendor services and support per year"), **money_field
    )
    gpu_count = models.PositiveIntegerField(_("cloud GPUs"), default=0)
    gpu_hours_per_year = models.DecimalField(
        _("hours per GPU per year"),
        max_digits=8,
        decimal_places=1,
        default=Decimal("0"),
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("8784"))],
    )
    gpu_price_per_hour = models.DecimalField(
        _("price per GPU-hour"),
        max_digits=12,
        decimal_places=4,
        default=Decimal("0"),
        validators=[MinValueValidator(Decimal("0"))],
    )
    utilisation = models.DecimalField(
        _("utilisation (0–1)"),
        max_digits=4,
        decimal_places=3,
        default=Decimal("1"),
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("1"))],
    )
    hardware_one_off = models.DecimalField(_("hardware bought up front"), **money_field)
    hardware_per_year = models.DecimalField(_("hardware per year"), **money_field)
    one_off = models.DecimalField(
        _("one-off costs (integration, migration, training)"), **money_field
    )
    history = HistoricalRecords()

    # The figures a user enters (forms, API and the service that saves them share this list).
    INPUT_FIELDS = (
        "licence_per_year",
        "vendor_services_per_year",
        "gpu_count",
        "gpu_hours_per_year",
        "gpu_price_per_hour",
        "utilisation",
        "hardware_one_off",
        "hardware_per_year",
        "one_off",
    )

    class Meta:
        verbose_name = _("cost input")
        verbose_name_plural = _("cost inputs")

    def __str__(self) -> str:
        return str(self.candidate)

    @property
    def has_price(self) -> bool:
        return any(
            getattr(self, f) > 0
            for f in (
                "licence_per_year",
                "vendor_services_per_year",
                "gpu_price_per_hour",
                "hardware_one_off",
                "hardware_per_year",
                "one_off",
            )
        )
