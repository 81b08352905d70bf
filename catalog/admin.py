from django.contrib import admin
from django.db.models import Count
from django.utils.translation import gettext_lazy as _
from modeltranslation.admin import TranslationAdmin, TranslationTabularInline
from simple_history.admin import SimpleHistoryAdmin

from .bundle.models import CatalogImport
from .forms import AcceleratorSupportAdminForm, CapabilityClaimAdminForm
from .models import (
    AcceleratorFamily,
    AcceleratorSupport,
    Capability,
    CapabilityClaim,
    CapabilityGroup,
    Scenario,
    ShortlistRule,
    Solution,
    SolutionType,
    Source,
)


@admin.register(SolutionType)
class SolutionTypeAdmin(TranslationAdmin):
    list_display = ("name", "slug", "order")
    search_fields = ("name_en", "name_zh_hans", "slug")
    ordering = ("order",)


@admin.register(Scenario)
class ScenarioAdmin(TranslationAdmin):
    list_display = ("name", "slug", "order")
    search_fields = ("name_en", "name_zh_hans", "slug")


class CapabilityInline(TranslationTabularInline):
    model = Capability
    extra = 0
    fields = ("slug", "name", "order")


@admin.register(CapabilityGroup)
class CapabilityGroupAdmin(TranslationAdmin):
    list_display = ("name", "slug", "order")
    inlines = [CapabilityInline]


@admin.register(Capability)
class CapabilityAdmin(TranslationAdmin):
    list_display = ("name", "slug", "group", "order")
    list_filter = ("group",)
    search_fields = ("name_en", "name_zh_hans", "slug")
    list_select_related = ("group",)


@admin.register(Source)
class SourceAdmin(admin.ModelAdmin):
    list_display = ("key", "title", "as_of", "checked_on", "claim_count")
    search_fields = ("key", "title", "url")

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(n_claims=Count("claims"))

    @admin.display(description=_("claims"), ordering="n_claims")
    def claim_count(self, obj):
        return obj.n_claims


class CapabilityClaimInline(TranslationTabularInline):
    model = CapabilityClaim
    form = CapabilityClaimAdminForm
    extra = 0
    # The checked-on day is edited on the app's solution page and the claim's own admin page:
    # one more column would push the Chinese note off a 1440 px screen.
    fields = ("capability", "level", "as_of_version", "sources", "verified_in_poc", "note")
    autocomplete_fields = ("sources",)
    ordering = ("capability__group__order", "capability__order")

    class Media:
        css = {"all": ("css/admin_claims.css",)}

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("capability__group", "solution")
            .prefetch_related("sources")
        )


@admin.register(Solution)
class SolutionAdmin(SimpleHistoryAdmin, TranslationAdmin):
    list_display = (
        "name",
        "slug",
        "solution_type",
        "maintainer",
        "latest_version",
        "release_version",
        "release_date",
        "is_active",
    )
    list_filter = ("solution_type", "scenarios", "is_active")
    search_fields = ("name_en", "name_zh_hans", "slug", "maintainer_en", "summary_en")
    list_select_related = ("solution_type",)
    filter_horizontal = ("scenarios",)
    autocomplete_fields = ("release_source",)
    inlines = [CapabilityClaimInline]
    view_on_site = True


@admin.register(CapabilityClaim)
class CapabilityClaimAdmin(SimpleHistoryAdmin, TranslationAdmin):
    form = CapabilityClaimAdminForm
    list_display = (
        "solution",
        "capability",
        "level",
        "as_of_version",
        "checked_on",
        "verified_in_poc",
    )
    list_filter = ("level", "verified_in_poc", "solution", "capability__group")
    search_fields = ("solution__name_en", "capability__name_en", "note_en", "note_zh_hans")
    list_select_related = ("solution", "capability")
    autocomplete_fields = ("sources",)


@admin.register(ShortlistRule)
class ShortlistRuleAdmin(SimpleHistoryAdmin, TranslationAdmin):
    list_display = ("key", "facts", "is_active", "order")
    list_filter = ("is_active",)
    search_fields = ("key", "reason_en", "reason_zh_hans")
    filter_horizontal = ("solutions",)


@admin.register(AcceleratorFamily)
class AcceleratorFamilyAdmin(TranslationAdmin):
    list_display = ("name", "slug", "vendor", "is_domestic", "order")
    list_filter = ("is_domestic",)
    search_fields = ("name_en", "name_zh_hans", "slug")


@admin.register(AcceleratorSupport)
class AcceleratorSupportAdmin(SimpleHistoryAdmin, TranslationAdmin):
    form = AcceleratorSupportAdminForm
    list_display = ("solution", "family", "level", "as_of_version", "checked_on")
    list_filter = ("level", "family", "solution")
    search_fields = ("solution__name_en", "family__name_en", "note_en", "note_zh_hans")
    list_select_related = ("solution", "family")
    autocomplete_fields = ("sources",)


@admin.register(CatalogImport)
class CatalogImportAdmin(admin.ModelAdmin):
    """Who imported which catalog bundle, and when (read only: an import is a fact)."""

    list_display = ("imported_at", "imported_by", "sha256", "format_version", "exported_by")
    list_select_related = ("imported_by",)
    search_fields = ("sha256", "exported_by", "imported_by__username")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
