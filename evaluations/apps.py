from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class EvaluationsConfig(AppConfig):
    name = "evaluations"
    verbose_name = _("Evaluations")

    def ready(self):
        from . import reminders  # noqa: F401  (registers the built-in reminders)
