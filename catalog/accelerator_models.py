"""Accelerator families and which catalog entries schedule them (registered from models.py).

Every entry has one row per family: a level, a note and sources, or "unknown" with what was
read and when (catalog.accelerators checks the table for holes and contradictions)."""

from django.db import models
from django.utils.translation import gettext_lazy as _

from .choices import SupportLevel
from .model_base import Evidence, OrderedModel, slug_validator
from .names import alias_list, names_in


class AcceleratorFamily(OrderedModel):
    """A family of accelerators an organisation may need scheduled (NVIDIA GPU, Ascend NPU…)."""

    slug = models.SlugField(_("slug"), max_length=60, unique=True, validators=[slug_validator])
    name = models.CharField(_("name"), max_length=120)
    vendor = models.CharField(_("vendor"), max_length=200, blank=True)
    aliases = models.CharField(
        _("aliases"),
        max_length=300,
        blank=True,
        help_text=_(
            "Other names and models that identify the family in an answer's detail, "
            "comma-separated (e.g. Ascend, 昇腾, 910B)."
        ),
    )
    is_domestic = models.BooleanField(
        _("domestic (China)"),
        default=False,
        help_text=_("Made in China: what a localisation requirement usually asks for."),
    )

    class Meta(OrderedModel.Meta):
        verbose_name = _("accelerator family")
        verbose_name_plural = _("accelerator families")

    def __str__(self) -> str:
        return self.name

    def alias_list(self) -> list[str]:
        return alias_list(self.aliases)

    def named_in(self, text: str) -> bool:
        """Whether `text` names this family by its name or an alias."""
        return names_in(text, [self.name_en or "", *self.alias_list()])


class AcceleratorSupport(Evidence):
    """Whether a solution schedules one accelerator family, with its evidence. A pair with no
    row was not documented (unknown)."""

    solution = models.ForeignKey(
        "catalog.Solution",
        on_delete=models.CASCADE,
        related_name="accelerator_support",
        verbose_name=_("solution"),
    )
    family = models.ForeignKey(
        AcceleratorFamily,
        on_delete=models.CASCADE,
        related_name="support",
        verbose_name=_("accelerator family"),
    )
    sources = models.ManyToManyField(
        "catalog.Source", blank=True, related_name="accelerator_support", verbose_name=_("sources")
    )

    class Meta:
        ordering = ["solution", "family"]
        verbose_name = _("accelerator support")
        verbose_name_plural = _("accelerator support")
        constraints = [
            models.UniqueConstraint(
                fields=["solution", "family"], name="catalog_accelerator_unique_per_family"
            ),
            models.CheckConstraint(
                condition=models.Q(level__in=SupportLevel.values),
                name="catalog_accelerator_level_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.solution} · {self.family}: {self.get_level_display()}"
