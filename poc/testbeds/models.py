"""The test bed each candidate's POC ran on: versions under test, accelerators, scale, dates."""

from django.conf import settings
from django.core.validators import MaxValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from common.concurrency import VersionedModel
from common.fields import LONG_TEXT, BoundedTextField
from evaluations.models import Candidate, Evaluation

MAX_ACCELERATORS = 100_000
MAX_NODES = 10_000


class TestBed(VersionedModel):
    """Where one candidate was tested. The seeds ask for the same tasks under the same
    constraints: poc.testbeds compares the beds of an evaluation's candidates."""

    __test__ = False  # not a pytest test class

    candidate = models.OneToOneField(Candidate, on_delete=models.CASCADE, related_name="test_bed")
    product_version = models.CharField(
        _("product version"),
        max_length=200,
        blank=True,
        help_text=_("The version of the candidate under test, e.g. Volcano 1.10."),
    )
    components = BoundedTextField(
        _("component versions"),
        max_length=LONG_TEXT,
        blank=True,
        help_text=_("Other versions that matter, one a line: Kubernetes, drivers, CUDA or CANN."),
    )
    accelerator_vendor = models.CharField(_("accelerator vendor"), max_length=100, blank=True)
    accelerator_model = models.CharField(
        _("accelerator model"),
        max_length=100,
        blank=True,
        help_text=_("e.g. NVIDIA A800, Huawei Ascend 910B, Cambricon MLU370."),
    )
    accelerator_count = models.PositiveIntegerField(
        _("accelerators"), null=True, blank=True, validators=[MaxValueValidator(MAX_ACCELERATORS)]
    )
    nodes = models.PositiveIntegerField(
        _("nodes"), null=True, blank=True, validators=[MaxValueValidator(MAX_NODES)]
    )
    tested_from = models.DateField(_("tested from"), null=True, blank=True)
    tested_to = models.DateField(_("tested to"), null=True, blank=True)
    notes = BoundedTextField(_("notes"), max_length=LONG_TEXT, blank=True)
    updated_at = models.DateTimeField(_("updated"), auto_now=True)
    history = HistoricalRecords()

    class Meta:
        app_label = "poc"
        verbose_name = _("test bed")
        verbose_name_plural = _("test beds")

    def __str__(self) -> str:
        return f"{self.candidate} · {self.accelerator_model or '?'}"

    @property
    def accelerator(self) -> str:
        """ "Huawei Ascend 910B" (vendor and model, whichever are given)."""
        return " ".join(p for p in (self.accelerator_vendor, self.accelerator_model) if p)


class BedEquivalence(VersionedModel):
    """The owner's declaration that two test beds of an evaluation count as the same test
    conditions, with the reason. It names the conditions as they were when declared (`first_key`
    and `second_key`, see poc.testbeds.comparable): once a bed is changed, the declaration no
    longer matches it and the candidates are compared apart again until the owner declares anew."""

    evaluation = models.ForeignKey(
        Evaluation, on_delete=models.CASCADE, related_name="bed_equivalences"
    )
    first = models.ForeignKey(
        Candidate, on_delete=models.CASCADE, related_name="+", verbose_name=_("first candidate")
    )
    second = models.ForeignKey(
        Candidate, on_delete=models.CASCADE, related_name="+", verbose_name=_("second candidate")
    )
    # The conditions as declared (comparable.conditions_key, a digest of accelerator, counts
    # and versions).
    first_key = models.CharField(max_length=64, editable=False)
    second_key = models.CharField(max_length=64, editable=False)
    first_label = models.CharField(max_length=300, editable=False)
    second_label = models.CharField(max_length=300, editable=False)
    reason = BoundedTextField(_("reason"), max_length=LONG_TEXT)
    declared_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", editable=False
    )
    declared_at = models.DateTimeField(_("declared"), auto_now_add=True)
    history = HistoricalRecords()

    class Meta:
        app_label = "poc"
        verbose_name = _("test-bed equivalence")
        verbose_name_plural = _("test-bed equivalences")
        ordering = ("pk",)
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(reason=""), name="bed_equivalence_has_reason"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.first_label} ≡ {self.second_label}"
