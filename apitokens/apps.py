from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ApiTokensConfig(AppConfig):
    name = "apitokens"
    verbose_name = _("API tokens")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from . import schema  # noqa: F401 - the schema's description of the sign-in
