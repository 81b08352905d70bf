from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PocConfig(AppConfig):
    name = "poc"
    verbose_name = _("POC")

    def ready(self):
        from common.seeding import register
        from evaluations.extensions import Contribution, PageLink, Tab, combined, contribute

        from . import reminders, report
        from .conflicts import history_source
        from .gate import decided_gate, gate_link
        from .services.seed import poc_load_seed
        from .testbeds import comparable
        from .testbeds import reminders as bed_reminders
        from .verification import shortlist_facts

        register("poc", poc_load_seed)
        contribute(
            Contribution(
                "poc",
                tabs=(Tab("poc", _("POC"), "poc:scorecard"),),
                candidate_facts=(("poc/candidate_verification.jinja", shortlist_facts),),
                reminders=(*reminders.REMINDERS, *bed_reminders.REMINDERS),
                lookups=combined(reminders.LOOKUPS, bed_reminders.LOOKUPS),
                history_sources=(history_source(), comparable.history_source()),
                report_parts=report.PARTS,
                decided_gate=decided_gate,
                gate_links={"poc": gate_link},
                links=(
                    PageLink(
                        "catalog_review",
                        _("POC verifications to review"),
                        "poc:verification_review",
                        perm="",
                    ),
                ),
                capability_action=(
                    "poc/verify_capability.jinja",
                    "poc.change_plan",
                ),
            )
        )

        from common.demo import demo_check, demo_step

        from .demo import FILES, step

        demo_step(40, step.load, files=FILES, summary=step.summary)
        demo_check(40, step.missing)
