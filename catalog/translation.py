import simple_history
from modeltranslation.translator import TranslationOptions, register

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
)


@register(SolutionType)
class SolutionTypeTranslation(TranslationOptions):
    fields = ("name", "fits", "boundary")
    required_languages = ("en", "zh-hans")


@register(Scenario)
class ScenarioTranslation(TranslationOptions):
    fields = ("name", "description")
    required_languages = ("en", "zh-hans")


@register(CapabilityGroup)
class CapabilityGroupTranslation(TranslationOptions):
    fields = ("name",)
    required_languages = ("en", "zh-hans")


@register(Capability)
class CapabilityTranslation(TranslationOptions):
    fields = ("name", "description")
    required_languages = {"en": ("name",), "zh-hans": ("name",)}


@register(Solution)
class SolutionTranslation(TranslationOptions):
    fields = ("name", "maintainer", "summary", "focus_points", "limits")
    required_languages = {"en": ("name", "summary"), "zh-hans": ("name", "summary")}


@register(CapabilityClaim)
class CapabilityClaimTranslation(TranslationOptions):
    fields = ("note",)


@register(ShortlistRule)
class ShortlistRuleTranslation(TranslationOptions):
    fields = ("reason",)
    required_languages = ("en", "zh-hans")


@register(AcceleratorFamily)
class AcceleratorFamilyTranslation(TranslationOptions):
    fields = ("name", "vendor")
    required_languages = {"en": ("name",), "zh-hans": ("name",)}


@register(AcceleratorSupport)
class AcceleratorSupportTranslation(TranslationOptions):
    fields = ("note",)


# History is registered here, after translation, so that the historical models also carry the
# per-language columns (a HistoricalRecords field on the model would be built without them).
simple_history.register(Solution)
simple_history.register(CapabilityClaim, m2m_fields=[CapabilityClaim.sources.field])
simple_history.register(AcceleratorSupport, m2m_fields=[AcceleratorSupport.sources.field])
simple_history.register(ShortlistRule, m2m_fields=[ShortlistRule.solutions.field])
