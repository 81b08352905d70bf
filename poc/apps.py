from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PocConfig(AppConfig):
    name = "poc"
    verbose_name = _("POC")
