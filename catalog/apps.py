from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CatalogConfig(AppConfig):
    name = "catalog"
    verbose_name = _("Solution catalog")

    def ready(self):
        from common.seeding import register

        from .services import catalog_load_seed

        register("catalog", catalog_load_seed)
