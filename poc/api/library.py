"""POC API: the test-case library (groups, cases, scenario profiles), for any signed-in user."""

from __future__ import annotations

import django_filters
from django.db.models import Prefetch
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import generics

from ..models import ProfileWeight, ScenarioProfile, TestCase, TestGroup
from . import serializers as s


@extend_schema_view(get=extend_schema(summary="The test groups of the case library"))
class GroupLibraryView(generics.ListAPIView):
    serializer_class = s.TestGroupSerializer
    pagination_class = None
    filter_backends: list = []
    queryset = TestGroup.objects.all()


class CaseLibraryFilterSet(django_filters.FilterSet):
    group = django_filters.CharFilter(field_name="group__key", help_text="A test group's key.")

    class Meta:
        model = TestCase
        fields: list = []


@extend_schema_view(get=extend_schema(summary="The active cases of the library, in order"))
class CaseLibraryView(generics.ListAPIView):
    serializer_class = s.TestCaseSerializer
    pagination_class = None
    filterset_class = CaseLibraryFilterSet

    def get_queryset(self):
        return TestCase.objects.filter(is_active=True).select_related("group")


@extend_schema_view(get=extend_schema(summary="Scenario profiles and their group weights"))
class ProfileLibraryView(generics.ListAPIView):
    serializer_class = s.ScenarioProfileSerializer
    pagination_class = None
    filter_backends: list = []

    def get_queryset(self):
        weights = ProfileWeight.objects.select_related("group").order_by("group__order", "pk")
        return ScenarioProfile.objects.prefetch_related(
            Prefetch("weights", queryset=weights), "scenarios"
        )
