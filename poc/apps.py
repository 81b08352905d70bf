from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PocConfig(AppConfig):
    name = "poc"
    verbose_name = _("POC")

    def ready(self):
        from common.seeding import register
        from evaluations.extensions import Contribution, PageLink, Tab, combined, contribute

        from . import reminders, report, testbeds
        from .conflicts import history_source
        from .gate import decided_gate, gate_link
        from .services import poc_load_seed
        from .verification import shortlist_facts

        register("poc", poc_load_seed)
        contribute(
            Contribution(
                "poc",
                tabs=(Tab("poc", _("POC"), "poc:scorecard"),),
                candidate_facts=(("poc/partials/candidate_verification.html", shortlist_facts),),
                reminders=(*reminders.REMINDERS, *testbeds.REMINDERS),
                lookups=combined(reminders.LOOKUPS, testbeds.LOOKUPS),
                history_sources=(history_source(),),
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
                    "poc/partials/verify_capability.html",
                    "poc.change_plan",
                ),
            )
        )
