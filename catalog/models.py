"""The solution catalog: types, scenarios, solutions, capabilities, claims and shortlist rules.

Bilingual texts are registered with django-modeltranslation (catalog/translation.py), which adds
`<field>_en` and `<field>_zh_hans` columns and returns the active language on `<field>`.
"""

from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from common.concurrency import VersionedModel
from common.fields import LONG_TEXT, BoundedTextField
from common.querysets import SignallingModel
from common.validators import no_hidden_characters

from .accelerator_models import AcceleratorFamily, AcceleratorSupport  # noqa: F401
from .bundle.models import CatalogImport  # noqa: F401  (a catalog model: registered from here)
from .choices import LEVEL_RULES, DeploymentMode, SupportLevel  # noqa: F401
from .model_base import (  # noqa: F401  (names other modules import from here)
    Evidence,
    OrderedModel,
    fact_key_validator,
    slug_validator,
)
from .names import alias_list, names_in


class SolutionType(OrderedModel):
    """A delivery model with its own responsibility boundary (SPEC §1.2)."""

    slug = models.SlugField(_("slug"), max_length=50, unique=True, validators=[slug_validator])
    name = models.CharField(_("name"), max_length=100)
    fits = BoundedTextField(
        _("fits"), max_length=LONG_TEXT, help_text=_("The situations this type suits.")
    )
    boundary = BoundedTextField(
        _("boundary"),
        max_length=LONG_TEXT,
        help_text=_("Who carries what, and where this type stops."),
    )

    class Meta(OrderedModel.Meta):
        verbose_name = _("solution type")
        verbose_name_plural = _("solution types")

    def __str__(self) -> str:
        return self.name


class Scenario(OrderedModel):
    """A business scenario an evaluation starts from (training, inference, ...)."""

    slug = models.SlugField(_("slug"), max_length=50, unique=True, validators=[slug_validator])
    name = models.CharField(_("name"), max_length=100)
    description = BoundedTextField(_("description"), max_length=LONG_TEXT)

    class Meta(OrderedModel.Meta):
        verbose_name = _("scenario")
        verbose_name_plural = _("scenarios")

    def __str__(self) -> str:
        return self.name


class CapabilityGroup(OrderedModel):
    slug = models.SlugField(_("slug"), max_length=50, unique=True, validators=[slug_validator])
    name = models.CharField(_("name"), max_length=100)

    class Meta(OrderedModel.Meta):
        verbose_name = _("capability group")
        verbose_name_plural = _("capability groups")

    def __str__(self) -> str:
        return self.name


class Capability(OrderedModel):
    group = models.ForeignKey(
        CapabilityGroup,
        on_delete=models.PROTECT,
        related_name="capabilities",
        verbose_name=_("group"),
    )
    slug = models.SlugField(_("slug"), max_length=60, unique=True, validators=[slug_validator])
    name = models.CharField(_("name"), max_length=120)
    description = BoundedTextField(_("description"), max_length=LONG_TEXT, blank=True)

    class Meta:
        ordering = ["group__order", "order", "pk"]
        verbose_name = _("capability")
        verbose_name_plural = _("capabilities")

    def __str__(self) -> str:
        return self.name


class Source(SignallingModel):
    """A document a claim rests on: a repository at a commit, or a documentation page."""

    key = models.CharField(
        _("key"),
        max_length=40,
        unique=True,
        validators=[
            RegexValidator(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", _("Letters, digits, '-', '_', '.'."))
        ],
    )
    title = models.CharField(_("title"), max_length=300)
    url = models.URLField(_("URL"), max_length=500, blank=True, validators=[no_hidden_characters])
    as_of = models.CharField(
        _("as of"), max_length=120, blank=True, help_text=_("Version, commit or date read.")
    )
    checked_on = models.DateField(
        _("checked on"), null=True, blank=True, help_text=_("The day someone last read it.")
    )

    class Meta:
        ordering = ["key"]
        verbose_name = _("source")
        verbose_name_plural = _("sources")

    def __str__(self) -> str:
        return self.key


class Solution(SignallingModel):
    slug = models.SlugField(_("slug"), max_length=60, unique=True, validators=[slug_validator])
    name = models.CharField(_("name"), max_length=120)
    solution_type = models.ForeignKey(
        SolutionType,
        on_delete=models.PROTECT,
        related_name="solutions",
        verbose_name=_("type"),
    )
    maintainer = models.CharField(_("maintainer / vendor"), max_length=200)
    licence = models.CharField(_("licence"), max_length=200, blank=True)
    latest_version = models.CharField(_("latest version seen"), max_length=100, blank=True)
    release_version = models.CharField(
        _("latest known release"),
        max_length=40,
        blank=True,
        validators=[
            RegexValidator(
                r"^v?\d+\.\d+(?:\.\d+)?$",
                _("Write a plain version number, e.g. v1.15.1 or 26.05.3."),
            )
        ],
        help_text=_(
            "The newest release its maintainer has published, as a plain version number. "
            "Claims about an older minor release count as stale."
        ),
    )
    release_date = models.DateField(
        _("release date"), null=True, blank=True, help_text=_("The day that release came out.")
    )
    release_source = models.ForeignKey(
        Source,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="releases",
        verbose_name=_("release source"),
        help_text=_("Where the release and its date were read (release notes, tags)."),
    )
    website = models.URLField(
        _("website"), max_length=300, blank=True, validators=[no_hidden_characters]
    )
    deployment_modes = models.JSONField(
        _("deployment modes"),
        default=list,
        blank=True,
        help_text=_("Any of: %(modes)s") % {"modes": ", ".join(DeploymentMode.values)},
    )
    summary = BoundedTextField(_("summary"), max_length=LONG_TEXT)
    focus_points = BoundedTextField(
        _("selection focus points"),
        max_length=LONG_TEXT,
        blank=True,
        help_text=_("One point per line."),
    )
    limits = BoundedTextField(
        _("limits"), max_length=LONG_TEXT, blank=True, help_text=_("One limit per line.")
    )
    scenarios = models.ManyToManyField(
        Scenario, related_name="solutions", blank=True, verbose_name=_("fitting scenarios")
    )
    aliases = models.CharField(
        _("aliases"),
        max_length=300,
        blank=True,
        help_text=_(
            "Other names that identify it in an answer's detail, comma-separated "
            "(e.g. Aliyun, 阿里云); shortlist rules that read the detail use them."
        ),
    )
    reference_stack = models.JSONField(
        _("reference stack"),
        default=dict,
        blank=True,
        help_text=_(
            "The catalog entries this one is assembled from, by stack layer, and the layer "
            'that carries the main responsibility, e.g. {"main": "batch_queue", "layers": '
            '{"execution": "nvidia-gpu-operator", "batch_queue": "kueue"}}. The shortlist '
            "offers it as a ready-made stack."
        ),
    )
    is_active = models.BooleanField(_("active"), default=True)

    class Meta:
        ordering = ["solution_type__order", "name"]
        verbose_name = _("solution")
        verbose_name_plural = _("solutions")

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("catalog:solution_detail", kwargs={"slug": self.slug})

    def clean(self) -> None:
        stack = self.reference_stack
        if stack and (not isinstance(stack, dict) or not isinstance(stack.get("layers"), dict)):
            raise ValidationError(
                {"reference_stack": _('Give {"main": layer, "layers": {layer: slug, …}}.')}
            )
        unknown = sorted(
            set(self.reference_layers().values())
            - set(
                Solution.objects.filter(slug__in=self.reference_layers().values()).values_list(
                    "slug", flat=True
                )
            )
        )
        if unknown:
            raise ValidationError(
                {
                    "reference_stack": _("No catalog entry has the slug %(s)s.")
                    % {"s": ", ".join(unknown)}
                }
            )
        if bool(self.release_version) != bool(self.release_date):
            raise ValidationError(
                {"release_date": _("Give a release's version and its date together.")}
            )
        modes = self.deployment_modes
        if not isinstance(modes, list) or not all(isinstance(m, str) for m in modes):
            raise ValidationError({"deployment_modes": _("Give a list of deployment modes.")})
        unknown = sorted(set(modes) - set(DeploymentMode.values))
        if unknown:
            raise ValidationError(
                {
                    "deployment_modes": _("Unknown deployment mode(s): %(bad)s. Use: %(good)s.")
                    % {"bad": ", ".join(unknown), "good": ", ".join(DeploymentMode.values)}
                }
            )

    def known_version(self) -> str:
        """The version claims are compared with: the latest known release when one is
        recorded, else the free-text latest version seen."""
        return self.release_version or self.latest_version

    def reference_layers(self) -> dict[str, str]:
        """Layer role -> catalog slug of the reference stack ({} when it is not one)."""
        layers = (self.reference_stack or {}).get("layers") or {}
        return {str(k): str(v) for k, v in layers.items()} if isinstance(layers, dict) else {}

    def deployment_mode_labels(self) -> list[str]:
        labels = dict(DeploymentMode.choices)
        return [str(labels.get(m, m)) for m in self.deployment_modes]

    def alias_list(self) -> list[str]:
        return alias_list(self.aliases)

    def named_in(self, text: str) -> bool:
        """Whether `text` names this solution by its name or an alias."""
        return names_in(text, [self.name_en or "", *self.alias_list()])

    def focus_point_list(self) -> list[str]:
        return [line.strip() for line in (self.focus_points or "").splitlines() if line.strip()]

    def limit_list(self) -> list[str]:
        return [line.strip() for line in (self.limits or "").splitlines() if line.strip()]


class CapabilityClaim(Evidence, VersionedModel):
    """What a solution can do for one capability, with its evidence. Every save, wherever it
    comes from (the solution page, the admin, the API, a seed or bundle load), moves the version,
    so an edit opened on an older one is refused."""

    solution = models.ForeignKey(
        Solution, on_delete=models.CASCADE, related_name="claims", verbose_name=_("solution")
    )
    capability = models.ForeignKey(
        Capability, on_delete=models.CASCADE, related_name="claims", verbose_name=_("capability")
    )
    sources = models.ManyToManyField(
        Source, blank=True, related_name="claims", verbose_name=_("sources")
    )
    verified_in_poc = models.BooleanField(_("verified in a POC"), default=False)

    class Meta:
        ordering = ["solution", "capability"]
        verbose_name = _("capability claim")
        verbose_name_plural = _("capability claims")
        constraints = [
            models.UniqueConstraint(
                fields=["solution", "capability"], name="catalog_claim_unique_per_capability"
            ),
            models.CheckConstraint(
                condition=models.Q(level__in=SupportLevel.values),
                name="catalog_claim_level_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.solution} · {self.capability}: {self.get_level_display()}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            self.version = (self.version or 0) + 1
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "version"}
        super().save(*args, **kwargs)


class ShortlistRule(OrderedModel):
    """Context facts that put solutions on the shortlist, with the reason (SPEC §1.4).

    `facts` lists context question keys that must all be answered "yes"; evaluations own the
    questions, the catalog only names them.
    """

    key = models.SlugField(_("key"), max_length=60, unique=True, validators=[slug_validator])
    facts = models.JSONField(
        _("required facts"), default=list, help_text=_("Context question keys, all answered yes.")
    )
    solutions = models.ManyToManyField(
        Solution, related_name="shortlist_rules", verbose_name=_("suggested solutions")
    )
    reason = BoundedTextField(_("reason"))
    by_detail = models.BooleanField(
        _("picks by detail"),
        default=False,
        help_text=_(
            "Suggest only the solutions that the facts' answer details name (by name or "
            "alias); when they name none, the rule's solutions without aliases."
        ),
    )
    is_active = models.BooleanField(_("active"), default=True)

    class Meta(OrderedModel.Meta):
        verbose_name = _("shortlist rule")
        verbose_name_plural = _("shortlist rules")

    def __str__(self) -> str:
        return self.key

    def clean(self) -> None:
        facts = self.facts
        if not isinstance(facts, list) or not facts:
            raise ValidationError({"facts": _("Name at least one context fact key.")})
        for fact in facts:
            if not isinstance(fact, str):
                raise ValidationError({"facts": _("Fact keys must be text.")})
            try:
                fact_key_validator(fact)
            except ValidationError as exc:
                raise ValidationError({"facts": f"{fact}: {exc.messages[0]}"}) from exc
