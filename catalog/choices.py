"""The fixed vocabularies of catalog rows: support levels, with the rule that says when each
level applies (LEVEL_RULES, the help of every level field), and deployment modes."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class SupportLevel(models.TextChoices):
    """How well a solution does one capability; LEVEL_RULES says when each level applies."""

    NATIVE = "native", _("Native")
    ADDON = "add-on", _("Via add-on")
    PARTIAL = "partial", _("Partial")
    NONE = "none", _("None")
    UNKNOWN = "unknown", _("Unknown")


LEVEL_RULES = _(
    "Native: the product's own release does it, as its documentation says. Via add-on: a "
    "separately installed component does it; name the component in the note. Partial: "
    "documented, with a limit; say which in the note. None: the product's documentation for "
    "the stated version was read and does not offer it, or says it is out of scope. Unknown: "
    "the documentation does not say, or was not checked; never a guess. Every level except "
    "unknown needs a source and the version it describes."
)


class DeploymentMode(models.TextChoices):
    BARE_METAL = "bare-metal", _("Bare metal / VMs")
    KUBERNETES = "kubernetes", _("On Kubernetes")
    CLOUD_MANAGED = "cloud-managed", _("Cloud-managed")
    AIR_GAPPED = "air-gapped", _("Air-gapped / private")
    SAAS = "saas", _("SaaS / multi-tenant edition")
