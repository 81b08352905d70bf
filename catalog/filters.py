import django_filters
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from .models import CapabilityClaim, Scenario, Solution, SolutionType, SupportLevel


class SolutionFilterSet(django_filters.FilterSet):
    """One filter set for the catalog page and the API."""

    q = django_filters.CharFilter(method="filter_q", label=_("Search"))
    type = django_filters.ModelChoiceFilter(
        field_name="solution_type",
        queryset=SolutionType.objects.all(),
        to_field_name="slug",
        label=_("Type"),
        empty_label=_("All types"),
    )
    scenario = django_filters.ModelChoiceFilter(
        field_name="scenarios",
        queryset=Scenario.objects.all(),
        to_field_name="slug",
        label=_("Scenario"),
        empty_label=_("All scenarios"),
    )

    class Meta:
        model = Solution
        fields = ["q", "type", "scenario"]

    def filter_q(self, queryset, name, value):
        value = value.strip()
        if not value:
            return queryset
        return queryset.filter(
            Q(name_en__icontains=value)
            | Q(name_zh_hans__icontains=value)
            | Q(summary_en__icontains=value)
            | Q(summary_zh_hans__icontains=value)
            | Q(maintainer_en__icontains=value)
        )


class CapabilityClaimFilterSet(django_filters.FilterSet):
    solution = django_filters.CharFilter(field_name="solution__slug", label=_("Solution slug"))
    capability = django_filters.CharFilter(
        field_name="capability__slug", label=_("Capability slug")
    )
    level = django_filters.ChoiceFilter(choices=SupportLevel.choices, label=_("Support level"))

    class Meta:
        model = CapabilityClaim
        fields = ["solution", "capability", "level", "verified_in_poc"]
