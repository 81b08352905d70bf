from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class EvaluationsConfig(AppConfig):
    name = "evaluations"
    verbose_name = _("Evaluations")

    def ready(self):
        from common.seeding import register

        from . import reminders  # noqa: F401  (registers the built-in reminders)
        from .services_seed import questions_load_seed

        register("questions", questions_load_seed)
