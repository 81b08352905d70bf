from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class EvaluationsConfig(AppConfig):
    name = "evaluations"
    verbose_name = _("Evaluations")

    def ready(self):
        from common.seeding import register

        from . import approvals, constraints, reminders, report, stacks
        from .extensions import Contribution, Lookups, ReportPart, contribute
        from .services_seed import questions_load_seed

        register("questions", questions_load_seed)
        contribute(
            Contribution(
                "evaluations",
                reminders=reminders.BUILT_IN,
                history_sources=(approvals.history_source(),),
                report_parts=(
                    *report.PARTS,
                    # The sign-off: printed with the report, outside its seal (the approvals
                    # name the sealed content's hash); their history follows the seal too.
                    ReportPart(
                        "signoff",
                        lambda context: approvals.signoff_snapshot(context.evaluation),
                        sealed=False,
                        unsealed_history=(approvals.HISTORY_KIND,),
                    ),
                ),
                lookups=Lookups(
                    candidate_prefetches=(*constraints.CANDIDATE_LOOKUPS, *stacks.CANDIDATE_LOOKUPS)
                ),
            )
        )
        from . import digests

        digests.connect()
