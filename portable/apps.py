from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PortableConfig(AppConfig):
    """Evaluation archives read every app's rows of one evaluation, so this sits on top of them
    all (like the report builder)."""

    name = "portable"
    verbose_name = _("Portable evaluations")

    def ready(self):
        from evaluations.extensions import Contribution, PageLink, contribute

        contribute(
            Contribution(
                "portable",
                links=(
                    PageLink(
                        "overview",
                        _("Export archive"),
                        "portable:evaluation_archive",
                        perm="portable.export_evaluation",
                        testid="export-archive",
                        download=True,
                    ),
                    PageLink(
                        "evaluation_list",
                        _("Import an archive"),
                        "portable:evaluation_import",
                        perm="portable.import_evaluation",
                        testid="import-evaluation",
                    ),
                ),
            )
        )
