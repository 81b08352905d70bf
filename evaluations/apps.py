from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class EvaluationsConfig(AppConfig):
    name = "evaluations"
    verbose_name = _("Evaluations")
