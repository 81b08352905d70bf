from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PocConfig(AppConfig):
    name = "poc"
    verbose_name = _("POC")

    def ready(self):
        from common.seeding import register
        from evaluations.tabs import Tab, register_tab

        from . import reminders  # noqa: F401  (registers this app's risk reminders)
        from .services import poc_load_seed

        register("poc", poc_load_seed)
        register_tab(Tab("poc", _("POC"), "poc:scorecard"))
        from .conflicts import register_history

        register_history()
