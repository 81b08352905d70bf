from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PocConfig(AppConfig):
    name = "poc"
    verbose_name = _("POC")

    def ready(self):
        from common.seeding import register
        from evaluations.extensions import Contribution, PageLink, Tab, contribute

        from . import (
            reminders,  # noqa: F401  (registers this app's risk reminders)
            testbeds,  # noqa: F401  (the test-bed reminder)
        )
        from .gate import decided_gate, gate_link
        from .services import poc_load_seed
        from .verification import shortlist_facts

        register("poc", poc_load_seed)
        contribute(
            Contribution(
                "poc",
                tabs=(Tab("poc", _("POC"), "poc:scorecard"),),
                candidate_facts=(("poc/partials/candidate_verification.html", shortlist_facts),),
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
        from .conflicts import register_history

        register_history()
