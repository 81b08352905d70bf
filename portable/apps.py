from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PortableConfig(AppConfig):
    """Evaluation archives read every app's rows of one evaluation, so this sits on top of them
    all (like the report builder)."""

    name = "portable"
    verbose_name = _("Portable evaluations")
