from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ReportsConfig(AppConfig):
    """The report builder reads every other app, so it sits on top of them all."""

    name = "reports"
    verbose_name = _("Reports")

    def ready(self):
        from evaluations.extensions import Contribution, Tab, contribute

        contribute(
            Contribution("reports", tabs=(Tab("reports", _("Reports"), "reports:report_list"),))
        )

        from common.metrics import APP_METRICS

        from .metrics import ReportRunsCollector

        APP_METRICS.register(ReportRunsCollector())

        # Registers the Celery tasks: report_enqueue sends the render task by its name.
        from . import tasks  # noqa: F401
