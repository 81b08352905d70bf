from modeltranslation.translator import TranslationOptions, register

from .models import Area, AreaGroup, Party


@register(Party)
class PartyTranslation(TranslationOptions):
    fields = ("name",)


@register(AreaGroup)
class AreaGroupTranslation(TranslationOptions):
    fields = ("name",)


@register(Area)
class AreaTranslation(TranslationOptions):
    fields = ("name", "description")
