from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ResponsibilityConfig(AppConfig):
    name = "responsibility"
    verbose_name = _("Responsibility")
