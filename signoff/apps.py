from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SignoffConfig(AppConfig):
    """Sign-off: approvals of a decided evaluation's finished report. It names report runs, so
    it sits above reports; evaluations knows it only through its contribution."""

    name = "signoff"
    verbose_name = _("Sign-off")

    def ready(self):
        from evaluations.extensions import Contribution, Panel, contribute

        from .history import history_source
        from .report import report_part
        from .services import void_on_reopening
        from .views import home_requests

        contribute(
            Contribution(
                "signoff",
                history_sources=(history_source(),),
                report_parts=(report_part(),),
                status_hooks=(void_on_reopening,),
                panels=(
                    Panel("home", "signoff/partials/home_requests.html", home_requests),
                    Panel("decision", "signoff/partials/decision_link.html"),
                ),
            )
        )
