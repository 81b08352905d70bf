from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ResponsibilityConfig(AppConfig):
    name = "responsibility"
    verbose_name = _("Responsibility and cost")

    def ready(self):
        from common.seeding import register

        from . import reminders, report
        from .services import responsibility_load_seed
        from .support import export as support_export
        from .support import reminders as support_reminders
        from .support import report as support_report
        from .support.demo import FILES as SUPPORT_DEMO
        from .support.demo import step as support_step

        register("responsibility", responsibility_load_seed)

        from common.demo import demo_check, demo_step

        from .demo import FILES, step

        demo_step(30, step.load, files=FILES)
        demo_check(30, step.missing)
        demo_step(31, support_step.load, files=SUPPORT_DEMO)

        from evaluations.signals import candidate_added

        from .services import matrix_start

        # A new candidate's matrix starts from the usual split for its type (docs/method.md).
        candidate_added.connect(matrix_start, dispatch_uid="responsibility-matrix-start")

        from evaluations.extensions import Contribution, Tab, combined, contribute

        from .selectors import parties_for

        contribute(
            Contribution(
                "responsibility",
                tabs=(
                    Tab("responsibility", _("Responsibilities"), "responsibility:matrices"),
                    Tab("costs", _("Cost of ownership"), "responsibility:costs"),
                    Tab("support", _("Support terms"), "responsibility:support"),
                ),
                party_source=lambda evaluation: [(p.key, p.name) for p in parties_for(evaluation)],
                reminders=reminders.REMINDERS + support_reminders.REMINDERS,
                lookups=combined(reminders.LOOKUPS, support_reminders.LOOKUPS),
                report_parts=report.PARTS + support_report.PARTS,
                workbook_sheets=(support_export.support_sheet,),
            )
        )
