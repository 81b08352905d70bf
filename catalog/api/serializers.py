from django.utils.translation import gettext_lazy as _
from rest_framework import serializers

from common.http import ModelSerializer

from ..models import (
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
from ..selectors import MAX_COMPARE, MIN_COMPARE
from ..services import claim_validate_sources


def bilingual(*names: str) -> tuple[str, ...]:
    """Field names for the active-language value plus both stored languages."""
    out: list[str] = []
    for name in names:
        out += [name, f"{name}_en", f"{name}_zh_hans"]
    return tuple(out)


class BilingualModelSerializer(ModelSerializer):
    """The plain field (e.g. `name`) is read-only: it shows the request's language.

    Writes go to `<field>_en` and `<field>_zh_hans`; required languages are enforced on create.
    """

    translated: tuple[str, ...] = ()
    required_translated: tuple[str, ...] = ()

    def get_fields(self):
        fields = super().get_fields()
        for name in self.translated:
            fields[name].read_only = True
            for suffix in ("en", "zh_hans"):
                f = fields[f"{name}_{suffix}"]
                f.allow_null = False
                if name in self.required_translated:
                    f.required = self.instance is None and not self.partial
                    f.allow_blank = False
                else:
                    f.required = False
                    f.allow_blank = True
        return fields

    def to_representation(self, instance):
        data = super().to_representation(instance)
        # A translation nobody wrote is stored as NULL (modeltranslation's columns are
        # nullable); like a blank one, it reads as "".
        for name in self.translated:
            for key in (name, f"{name}_en", f"{name}_zh_hans"):
                if data.get(key, "") is None:
                    data[key] = ""
        return data


class SolutionTypeSerializer(BilingualModelSerializer):
    translated = required_translated = ("name", "fits", "boundary")

    class Meta:
        model = SolutionType
        fields = ("id", "slug", "order", *bilingual("name", "fits", "boundary"))


class ScenarioSerializer(BilingualModelSerializer):
    translated = required_translated = ("name", "description")

    class Meta:
        model = Scenario
        fields = ("id", "slug", "order", *bilingual("name", "description"))


class CapabilityGroupSerializer(BilingualModelSerializer):
    translated = required_translated = ("name",)

    class Meta:
        model = CapabilityGroup
        fields = ("id", "slug", "order", *bilingual("name"))


class CapabilitySerializer(BilingualModelSerializer):
    translated = ("name", "description")
    required_translated = ("name",)
    group = serializers.SlugRelatedField(slug_field="slug", queryset=CapabilityGroup.objects)

    class Meta:
        model = Capability
        fields = ("id", "slug", "group", "order", *bilingual("name", "description"))


class SourceSerializer(ModelSerializer):
    class Meta:
        model = Source
        fields = ("id", "key", "title", "url", "as_of", "checked_on")


class SolutionSerializer(BilingualModelSerializer):
    translated = ("name", "maintainer", "summary", "focus_points", "limits")
    required_translated = ("name", "maintainer", "summary")
    solution_type = serializers.SlugRelatedField(slug_field="slug", queryset=SolutionType.objects)
    scenarios = serializers.SlugRelatedField(
        slug_field="slug", queryset=Scenario.objects, many=True, required=False
    )
    url = serializers.CharField(source="get_absolute_url", read_only=True)

    class Meta:
        model = Solution
        fields = (
            "id",
            "slug",
            "url",
            "solution_type",
            "licence",
            "latest_version",
            "website",
            "deployment_modes",
            "aliases",
            "reference_stack",
            "scenarios",
            "is_active",
            *bilingual("name", "maintainer", "summary", "focus_points", "limits"),
        )

    def validate(self, attrs):
        attrs = super().validate(attrs)
        instance = Solution(**{k: v for k, v in attrs.items() if k != "scenarios"})
        if "deployment_modes" in attrs or "reference_stack" in attrs:
            instance.clean()  # raises a field error the exception handler turns into 400
        return attrs


class CapabilityClaimSerializer(BilingualModelSerializer):
    translated = ("note",)
    solution = serializers.SlugRelatedField(slug_field="slug", queryset=Solution.objects)
    capability = serializers.SlugRelatedField(slug_field="slug", queryset=Capability.objects)
    sources = serializers.SlugRelatedField(
        slug_field="key", queryset=Source.objects, many=True, required=False
    )

    class Meta:
        model = CapabilityClaim
        fields = (
            "id",
            "solution",
            "capability",
            "level",
            "as_of_version",
            "checked_on",
            "verified_in_poc",
            "sources",
            *bilingual("note"),
        )

    def validate(self, attrs):
        attrs = super().validate(attrs)
        level = attrs.get("level", getattr(self.instance, "level", None))
        if "sources" in attrs:
            sources = attrs["sources"]
        elif self.instance is not None:
            sources = list(self.instance.sources.all())
        else:
            sources = []
        try:
            claim_validate_sources(level=level, sources=sources)
        except Exception as exc:
            raise serializers.ValidationError(exc.message_dict) from exc
        return attrs


class AcceleratorFamilySerializer(BilingualModelSerializer):
    translated = ("name", "vendor")
    required_translated = ("name",)

    class Meta:
        model = AcceleratorFamily
        fields = ("id", "slug", "order", "is_domestic", *bilingual("name", "vendor"))


class AcceleratorSupportSerializer(CapabilityClaimSerializer):
    """Whether a solution schedules an accelerator family; the same source rule as a claim's."""

    capability = None
    family = serializers.SlugRelatedField(slug_field="slug", queryset=AcceleratorFamily.objects)

    class Meta:
        model = AcceleratorSupport
        fields = (
            "id",
            "solution",
            "family",
            "level",
            "as_of_version",
            "checked_on",
            "sources",
            *bilingual("note"),
        )


class ShortlistRuleSerializer(BilingualModelSerializer):
    translated = required_translated = ("reason",)
    solutions = serializers.SlugRelatedField(
        slug_field="slug", queryset=Solution.objects, many=True
    )

    class Meta:
        model = ShortlistRule
        fields = (
            "id",
            "key",
            "order",
            "facts",
            "solutions",
            "by_detail",
            "is_active",
            *bilingual("reason"),
        )

    def validate(self, attrs):
        attrs = super().validate(attrs)
        if "facts" in attrs:
            ShortlistRule(facts=attrs["facts"]).clean()
        return attrs


class CompareQuerySerializer(serializers.Serializer):
    solutions = serializers.ListField(
        child=serializers.SlugField(),
        min_length=MIN_COMPARE,
        max_length=MAX_COMPARE,
        error_messages={
            "min_length": _("Choose at least {min_length} solutions to compare."),
            "max_length": _("Choose at most {max_length} solutions to compare."),
        },
    )

    def validate_solutions(self, slugs):
        found = {
            s.slug: s
            for s in Solution.objects.select_related("solution_type").filter(slug__in=slugs)
        }
        missing = [s for s in slugs if s not in found]
        if missing:
            raise serializers.ValidationError(
                _("Unknown solution(s): %(slugs)s.") % {"slugs": ", ".join(missing)}
            )
        if len(set(slugs)) != len(slugs):
            raise serializers.ValidationError(_("Each solution may appear only once."))
        return [found[s] for s in slugs]
