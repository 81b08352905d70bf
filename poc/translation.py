from modeltranslation.translator import TranslationOptions, register

from .models import ScenarioProfile, TestCase, TestGroup


@register(TestGroup)
class TestGroupTranslation(TranslationOptions):
    fields = ("name", "description")


@register(TestCase)
class TestCaseTranslation(TranslationOptions):
    fields = ("title", "steps", "acceptance", "metric_name")


@register(ScenarioProfile)
class ScenarioProfileTranslation(TranslationOptions):
    fields = ("name",)
