from modeltranslation.translator import TranslationOptions, register

from .models import Constraint, ContextQuestion, FiveQuestion


@register(ContextQuestion)
class ContextQuestionTranslation(TranslationOptions):
    fields = ("text", "help_text", "detail_label")
    required_languages = {"en": ("text",), "zh-hans": ("text",)}


@register(FiveQuestion)
class FiveQuestionTranslation(TranslationOptions):
    fields = ("text", "help_text")
    required_languages = {"en": ("text",), "zh-hans": ("text",)}


@register(Constraint)
class ConstraintTranslation(TranslationOptions):
    fields = ("name", "description")
    required_languages = {"en": ("name",), "zh-hans": ("name",)}
