"""POC: the test-case library, each evaluation's plan (one for all candidates), reviewer
scores with evidence, consensus, and scenario profiles. The models of the sub-features
(declared conflicts, measurement imports, test beds) are in their packages and named here."""

from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from catalog.models import Capability, Scenario
from common.concurrency import VersionedModel
from common.fields import LONG_TEXT, BoundedTextField
from common.querysets import SignallingModel
from common.validators import key_validator
from evaluations.models import Candidate, Evaluation

from . import scoring

# The models of poc's sub-features live in their packages; imported here so that Django
# registers them under the `poc` app, and so that `poc.models` names every model of the app.
from .conflicts.models import ConflictDeclaration as ConflictDeclaration
from .imports.models import MeasurementImport as MeasurementImport
from .testbeds.models import BedEquivalence as BedEquivalence
from .testbeds.models import TestBed as TestBed

weight_field = {
    "max_digits": 7,
    "decimal_places": 2,
    "validators": [MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("10000"))],
}


class Direction(models.TextChoices):
    LOWER = "lower", _("Lower is better")
    HIGHER = "higher", _("Higher is better")


class Outcome(models.TextChoices):
    NOT_RUN = "not_run", _("Not run")
    PASSED = "passed", _("Passed")
    FAILED = "failed", _("Failed")
    BLOCKED = "blocked", _("Blocked")


class TestGroup(SignallingModel):
    __test__ = False  # not a pytest test class
    key = models.CharField(_("key"), max_length=40, unique=True, validators=[key_validator])
    name = models.CharField(_("name"), max_length=100)
    description = BoundedTextField(_("description"), max_length=LONG_TEXT, blank=True)
    default_weight = models.DecimalField(_("default weight"), default=Decimal("25"), **weight_field)
    happy_path = models.BooleanField(
        _("happy path"),
        default=True,
        help_text=_("Off for the group of abnormal and long-running cases."),
    )
    order = models.PositiveSmallIntegerField(_("order"), default=0)

    class Meta:
        ordering = ["order", "pk"]
        verbose_name = _("test group")
        verbose_name_plural = _("test groups")

    def __str__(self) -> str:
        return self.name


class MetricFields(SignallingModel):
    metric_name = models.CharField(_("metric"), max_length=200, blank=True)
    metric_unit = models.CharField(_("unit"), max_length=40, blank=True)
    metric_direction = models.CharField(
        _("direction"), max_length=6, choices=Direction.choices, blank=True
    )
    metric_threshold = models.DecimalField(
        _("threshold"), max_digits=14, decimal_places=4, null=True, blank=True
    )
    # Optional rubric bands above "meets" (3); without them poc.scoring.measured_bands applies
    # its documented default (10 % / 25 % of |threshold| better than the threshold).
    metric_good = models.DecimalField(
        _("value for 4"),
        max_digits=14,
        decimal_places=4,
        null=True,
        blank=True,
        help_text=_("A measured value at least this good scores 4. Empty: 10% better."),
    )
    metric_excellent = models.DecimalField(
        _("value for 5"),
        max_digits=14,
        decimal_places=4,
        null=True,
        blank=True,
        help_text=_("A measured value at least this good scores 5. Empty: 25% better."),
    )

    class Meta:
        abstract = True

    @property
    def has_metric(self) -> bool:
        return bool(self.metric_direction) and self.metric_threshold is not None

    def clean(self) -> None:
        super().clean()
        metric_bands_errors(self)


def metric_bands_errors(case) -> None:
    """Raise a field-keyed ValidationError when the values for 4 and 5 do not fit the metric:
    they need a direction and a threshold, lie beyond the threshold in the metric's direction,
    and the value for 5 beyond the value for 4 (poc.scoring.measured_bands)."""
    good, excellent = case.metric_good, case.metric_excellent
    if good is None and excellent is None:
        return
    if not case.has_metric:
        field = "metric_good" if good is not None else "metric_excellent"
        raise ValidationError(
            {field: _("Values for 4 and 5 need a metric with a direction and a threshold.")}
        )
    try:
        scoring.measured_bands(case.metric_direction, case.metric_threshold, good, excellent)
    except ValueError as exc:
        better = _("lower") if case.metric_direction == Direction.LOWER else _("higher")
        if str(exc).startswith("good"):
            raise ValidationError(
                {
                    "metric_good": _(
                        "The value for 4 must be better (%(better)s) than the threshold."
                    )
                    % {"better": better}
                }
            ) from None
        raise ValidationError(
            {
                "metric_excellent": _(
                    "The value for 5 must be better (%(better)s) than the value for 4 and the "
                    "threshold."
                )
                % {"better": better}
            }
        ) from None


class TestCase(MetricFields):
    """A library case (seeded, admin-editable). Plans copy it, so later edits do not change a
    POC already under way."""

    __test__ = False  # not a pytest test class

    key = models.CharField(_("key"), max_length=60, unique=True, validators=[key_validator])
    group = models.ForeignKey(TestGroup, on_delete=models.PROTECT, related_name="cases")
    title = models.CharField(_("title"), max_length=200)
    steps = BoundedTextField(_("steps"), max_length=LONG_TEXT, blank=True)
    acceptance = BoundedTextField(_("acceptance criteria"), max_length=LONG_TEXT)
    default_weight = models.DecimalField(_("default weight"), default=Decimal("3"), **weight_field)
    sources = models.CharField(_("sources"), max_length=300, blank=True)
    verifies = models.ManyToManyField(
        Capability,
        blank=True,
        related_name="verifying_cases",
        verbose_name=_("verifies capabilities"),
        help_text=_("The catalog capabilities a pass of this case shows a candidate has."),
    )
    order = models.PositiveSmallIntegerField(_("order"), default=0)
    is_active = models.BooleanField(_("active"), default=True)

    class Meta:
        ordering = ["group__order", "order", "pk"]
        verbose_name = _("test case")
        verbose_name_plural = _("test cases")

    def __str__(self) -> str:
        return self.title


class ScenarioProfile(SignallingModel):
    """Group weights for one kind of evaluation. The scenarios it serves choose it as the
    default of an evaluation's plan (poc.selectors.plan_default_profile)."""

    key = models.CharField(_("key"), max_length=40, unique=True, validators=[key_validator])
    name = models.CharField(_("name"), max_length=100)
    order = models.PositiveSmallIntegerField(_("order"), default=0)
    scenarios = models.ManyToManyField(
        Scenario,
        blank=True,
        related_name="poc_profiles",
        verbose_name=_("serves scenarios"),
        help_text=_(
            "An evaluation whose scenarios all lead to this profile starts its POC plan from "
            "these weights."
        ),
    )

    class Meta:
        ordering = ["order", "pk"]
        verbose_name = _("scenario profile")
        verbose_name_plural = _("scenario profiles")

    def __str__(self) -> str:
        return self.name


class ProfileWeight(SignallingModel):
    profile = models.ForeignKey(ScenarioProfile, on_delete=models.CASCADE, related_name="weights")
    group = models.ForeignKey(TestGroup, on_delete=models.CASCADE, related_name="+")
    weight = models.DecimalField(_("weight"), **weight_field)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["profile", "group"], name="profile_weight_unique")
        ]

    def __str__(self) -> str:
        return f"{self.profile} · {self.group}: {self.weight}"


class PlanGroup(VersionedModel):
    """A group's weight in one evaluation's plan."""

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="poc_groups")
    group = models.ForeignKey(TestGroup, on_delete=models.PROTECT, related_name="+")
    weight = models.DecimalField(_("weight"), **weight_field)
    history = HistoricalRecords()

    class Meta:
        ordering = ["group__order"]
        constraints = [
            models.UniqueConstraint(fields=["evaluation", "group"], name="plan_group_unique")
        ]

    def __str__(self) -> str:
        return f"{self.evaluation} · {self.group}"


class PlanCase(MetricFields, VersionedModel):
    """One case of an evaluation's POC plan. It has no candidate: every candidate gets it."""

    evaluation = models.ForeignKey(Evaluation, on_delete=models.CASCADE, related_name="poc_cases")
    group = models.ForeignKey(TestGroup, on_delete=models.PROTECT, related_name="+")
    source_case = models.ForeignKey(
        TestCase, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    title = models.CharField(_("title"), max_length=200)
    steps = BoundedTextField(_("steps"), max_length=LONG_TEXT, blank=True)
    acceptance = BoundedTextField(_("acceptance criteria"), max_length=LONG_TEXT)
    weight = models.DecimalField(_("weight"), **weight_field)
    order = models.PositiveSmallIntegerField(_("order"), default=0)
    verifies = models.ManyToManyField(
        Capability,
        blank=True,
        related_name="verifying_plan_cases",
        verbose_name=_("verifies capabilities"),
        help_text=_("An own case's capabilities; a library case's are read from the library."),
    )
    history = HistoricalRecords()

    class Meta:
        ordering = ["group__order", "order", "pk"]
        verbose_name = _("plan case")
        verbose_name_plural = _("plan cases")
        constraints = [
            models.UniqueConstraint(
                fields=["evaluation", "source_case"],
                condition=models.Q(source_case__isnull=False),
                name="plan_case_once_per_library_case",
            )
        ]

    def __str__(self) -> str:
        return self.shown_title

    def text(self, field: str) -> str:
        """The text readers see: a library case's in the active language (its texts stay in
        the library, see plan_case_from_library), an own case's own."""
        own = getattr(self, field) or ""
        if self.source_case_id is None:
            return own
        return getattr(self.source_case, field) or own

    @property
    def shown_title(self) -> str:
        return self.text("title")

    @property
    def shown_steps(self) -> str:
        return self.text("steps")

    @property
    def shown_acceptance(self) -> str:
        return self.text("acceptance")

    @property
    def shown_metric_name(self) -> str:
        return self.text("metric_name")

    def verified_capabilities(self) -> list:
        """The capabilities this case verifies: a library case's read from the library (like its
        texts, so a corrected mapping reaches every plan), an own case's own. Reads
        `source_case__verifies` and `verifies` prefetched when they are."""
        if self.source_case_id is not None:
            return list(self.source_case.verifies.all())
        return list(self.verifies.all())


class Score(VersionedModel):
    """One reviewer's score for one candidate on one plan case. Submitted scores are final."""

    case = models.ForeignKey(PlanCase, on_delete=models.CASCADE, related_name="scores")
    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="poc_scores")
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="poc_scores"
    )
    score = models.DecimalField(
        _("score (0–5)"),
        max_digits=3,
        decimal_places=1,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("5"))],
    )
    measured_value = models.DecimalField(
        _("measured value"), max_digits=14, decimal_places=4, null=True, blank=True
    )
    outcome = models.CharField(
        _("outcome"), max_length=8, choices=Outcome.choices, default=Outcome.NOT_RUN
    )
    notes = BoundedTextField(_("notes"), blank=True)
    submitted_at = models.DateTimeField(_("submitted"), null=True, blank=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("score")
        verbose_name_plural = _("scores")
        constraints = [
            models.UniqueConstraint(
                fields=["case", "candidate", "reviewer"], name="score_one_per_reviewer"
            ),
            models.CheckConstraint(
                condition=models.Q(score__isnull=True)
                | (models.Q(score__gte=0) & models.Q(score__lte=5)),
                name="score_in_rubric",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.case} · {self.candidate} · {self.reviewer}"

    @property
    def submitted(self) -> bool:
        return self.submitted_at is not None


class Evidence(SignallingModel):
    """A file behind a score; served only to members, never from a public URL."""

    score = models.ForeignKey(Score, on_delete=models.CASCADE, related_name="evidence")
    file = models.FileField(upload_to="evidence/%Y/%m/")
    original_name = models.CharField(_("file name"), max_length=200)
    content_type = models.CharField(_("type"), max_length=100)
    size = models.PositiveIntegerField(_("size"))
    sha256 = models.CharField(_("SHA-256"), max_length=64)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    uploaded_at = models.DateTimeField(_("uploaded"), auto_now_add=True)

    class Meta:
        ordering = ["uploaded_at", "pk"]
        verbose_name = _("evidence")
        verbose_name_plural = _("evidence")

    def __str__(self) -> str:
        return self.original_name


class Consensus(VersionedModel):
    """The owner's agreed score for a cell where reviewers disagreed; it is what counts."""

    case = models.ForeignKey(PlanCase, on_delete=models.CASCADE, related_name="consensus")
    candidate = models.ForeignKey(Candidate, on_delete=models.CASCADE, related_name="+")
    score = models.DecimalField(
        _("agreed score"),
        max_digits=3,
        decimal_places=1,
        validators=[MinValueValidator(Decimal("0")), MaxValueValidator(Decimal("5"))],
    )
    reason = BoundedTextField(_("reason"))
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    decided_at = models.DateTimeField(_("decided"), auto_now=True)
    history = HistoricalRecords()

    class Meta:
        verbose_name = _("consensus")
        verbose_name_plural = _("consensus scores")
        constraints = [
            models.UniqueConstraint(fields=["case", "candidate"], name="consensus_unique"),
            models.CheckConstraint(condition=~models.Q(reason=""), name="consensus_has_reason"),
        ]

    def __str__(self) -> str:
        return f"{self.case} · {self.candidate}: {self.score}"
