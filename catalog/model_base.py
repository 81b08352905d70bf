"""Base pieces of the catalog's models: slug and key validators, ordered rows, and the
evidence (level, note, as-of version, checked-on day) that claims and accelerator support
share."""

from django.core.validators import RegexValidator
from django.db import models
from django.utils.translation import gettext_lazy as _

from common.fields import BoundedTextField
from common.querysets import SignallingModel

from .choices import LEVEL_RULES, SupportLevel

slug_validator = RegexValidator(
    r"^[a-z0-9]+(?:-[a-z0-9]+)*$",
    _("Use lowercase letters, digits and single hyphens, e.g. 'gang-scheduling'."),
)
fact_key_validator = RegexValidator(
    r"^[a-z][a-z0-9_]*$",
    _("Use lowercase letters, digits and underscores, starting with a letter."),
)


class OrderedModel(SignallingModel):
    order = models.PositiveSmallIntegerField(_("order"), default=0)

    class Meta:
        abstract = True
        ordering = ["order", "pk"]


class Evidence(SignallingModel):
    """A level and what backs it: shared by claims and accelerator support (each adds its own
    sources, whose reverse names differ)."""

    level = models.CharField(
        _("support level"),
        max_length=10,
        choices=SupportLevel.choices,
        default=SupportLevel.UNKNOWN,
        help_text=LEVEL_RULES,
    )
    note = BoundedTextField(_("note"), blank=True)
    as_of_version = models.CharField(_("as-of version"), max_length=100, blank=True)
    checked_on = models.DateField(
        _("checked on"),
        null=True,
        blank=True,
        help_text=_("The day the claim was last checked against its sources."),
    )

    class Meta:
        abstract = True
