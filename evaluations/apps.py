from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class EvaluationsConfig(AppConfig):
    name = "evaluations"
    verbose_name = _("Evaluations")

    def ready(self):
        from common.seeding import register

        from . import approvals, constraints, reminders, stacks
        from .extensions import Contribution, Lookups, contribute
        from .services.seed import questions_load_seed

        register("questions", questions_load_seed)
        contribute(
            Contribution(
                "evaluations",
                reminders=reminders.BUILT_IN,
                history_sources=(approvals.history_source(),),
                lookups=Lookups(
                    candidate_prefetches=(*constraints.CANDIDATE_LOOKUPS, *stacks.CANDIDATE_LOOKUPS)
                ),
            )
        )
        from . import digests

        digests.connect()
