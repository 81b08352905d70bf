import django_filters
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from .models import Evaluation, Status


class EvaluationFilterSet(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=Status.choices, label=_("Status"))
    q = django_filters.CharFilter(method="filter_q", label=_("Search title or organisation"))

    class Meta:
        model = Evaluation
        fields = ["status", "q"]

    def filter_q(self, queryset, name, value):
        value = value.strip()
        if not value:
            return queryset
        return queryset.filter(Q(title__icontains=value) | Q(organisation__icontains=value))
