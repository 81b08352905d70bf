from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class EvaluationsConfig(AppConfig):
    name = "evaluations"
    verbose_name = _("Evaluations")

    def ready(self):
        from common.seeding import register

        from . import acknowledgements, constraints, reminders, report, stacks
        from .extensions import Contribution, Lookups, contribute
        from .services.seed import questions_load_seed

        register("questions", questions_load_seed)
        contribute(
            Contribution(
                "evaluations",
                reminders=reminders.BUILT_IN,
                report_parts=report.PARTS,
                history_sources=(acknowledgements.history_source(),),
                lookups=Lookups(
                    candidate_prefetches=(*constraints.CANDIDATE_LOOKUPS, *stacks.CANDIDATE_LOOKUPS)
                ),
            )
        )
        from . import digests

        digests.connect()

        from common.demo import demo_check, demo_step

        from .demo import FILES, step

        demo_step(20, step.load, files=FILES, existing=step.existing, summary=step.summary)
        demo_check(20, step.missing_questions)
        demo_check(90, step.missing_solutions)  # after every app's: the message names it last
