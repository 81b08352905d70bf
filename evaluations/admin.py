"""Only the question libraries are in Django admin: evaluations themselves are private to their
members, so admins do not see them here either."""

from django.contrib import admin
from modeltranslation.admin import TranslationAdmin

from .models import ContextQuestion, FiveQuestion


@admin.register(ContextQuestion)
class ContextQuestionAdmin(TranslationAdmin):
    list_display = ("key", "text", "order", "is_active")
    list_filter = ("is_active",)
    search_fields = ("key", "text_en", "text_zh_hans")
    ordering = ("order",)


@admin.register(FiveQuestion)
class FiveQuestionAdmin(TranslationAdmin):
    list_display = ("key", "text", "order", "is_active")
    list_filter = ("is_active",)
    search_fields = ("key", "text_en", "text_zh_hans")
    ordering = ("order",)

    def get_readonly_fields(self, request, obj=None):
        # Keys are stable: answers and reports refer to them.
        return ("key",) if obj else ()
