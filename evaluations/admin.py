"""Only the question and constraint libraries are in Django admin: evaluations themselves are
private to their members, so admins do not see them here either."""

from django.contrib import admin
from modeltranslation.admin import TranslationAdmin

from .models import Constraint, ContextQuestion, FiveQuestion


@admin.register(ContextQuestion)
class ContextQuestionAdmin(TranslationAdmin):
    list_display = ("key", "text", "order", "is_active")
    list_filter = ("is_active",)
    search_fields = ("key", "text_en", "text_zh_hans")
    ordering = ("order",)


@admin.register(FiveQuestion)
class FiveQuestionAdmin(TranslationAdmin):
    list_display = ("key", "text", "scale", "order", "is_active")
    list_filter = ("is_active", "scale")
    search_fields = ("key", "text_en", "text_zh_hans")
    ordering = ("order",)

    def get_readonly_fields(self, request, obj=None):
        # Keys are stable: answers and reports refer to them.
        return ("key",) if obj else ()


@admin.register(Constraint)
class ConstraintAdmin(TranslationAdmin):
    list_display = ("key", "name", "flag", "order", "is_active")
    list_filter = ("is_active", "flag")
    search_fields = ("key", "name_en", "name_zh_hans")
    filter_horizontal = ("capabilities",)
    ordering = ("order",)

    def get_readonly_fields(self, request, obj=None):
        # Keys are stable: waivers and the seed file refer to them.
        return ("key",) if obj else ()
