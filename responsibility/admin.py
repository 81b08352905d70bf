"""The shared parties and the area library are edited in Django admin. Matrices and costs belong
to evaluations and are private to their members, so they are not here."""

from django.contrib import admin
from modeltranslation.admin import TranslationAdmin, TranslationTabularInline

from .models import Area, AreaGroup, Party


@admin.register(Party)
class PartyAdmin(TranslationAdmin):
    list_display = ("name", "key", "kind", "order")
    list_filter = ("kind",)
    search_fields = ("key", "name_en", "name_zh_hans")
    fields = ("key", "name", "kind", "order")

    def get_queryset(self, request):
        return super().get_queryset(request).filter(evaluation=None)


class AreaInline(TranslationTabularInline):
    model = Area
    extra = 0
    fields = ("key", "name", "governance", "order", "is_active")


@admin.register(AreaGroup)
class AreaGroupAdmin(TranslationAdmin):
    list_display = ("name", "key", "order")
    inlines = [AreaInline]


@admin.register(Area)
class AreaAdmin(TranslationAdmin):
    list_display = ("name", "key", "group", "governance", "order", "is_active")
    list_filter = ("group", "governance", "is_active")
    search_fields = ("key", "name_en", "name_zh_hans")
    list_select_related = ("group",)
    # Which who-questions this area answers too (their answers and the matrix must agree).
    filter_horizontal = ("questions",)
