"""The test-case library and scenario profiles are edited in Django admin. Plans and scores
belong to evaluations and are private to their members, so they are not here."""

from django.contrib import admin
from modeltranslation.admin import TranslationAdmin

from .models import ProfileWeight, ScenarioProfile, TestCase, TestGroup


@admin.register(TestGroup)
class TestGroupAdmin(TranslationAdmin):
    list_display = ("name", "key", "default_weight", "happy_path", "order")


@admin.register(TestCase)
class TestCaseAdmin(TranslationAdmin):
    list_display = ("title", "key", "group", "default_weight", "metric_direction", "is_active")
    list_filter = ("group", "is_active", "metric_direction")
    search_fields = ("key", "title_en", "title_zh_hans", "acceptance_en")
    list_select_related = ("group",)


class ProfileWeightInline(admin.TabularInline):
    model = ProfileWeight
    extra = 0


@admin.register(ScenarioProfile)
class ScenarioProfileAdmin(TranslationAdmin):
    list_display = ("name", "key", "order")
    inlines = [ProfileWeightInline]
