from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from common.http import error_responses
from common.permissions import AdminWriteSignedInRead

from ..filters import CapabilityClaimFilterSet, SolutionFilterSet
from ..models import (
    AcceleratorFamily,
    AcceleratorSupport,
    Capability,
    CapabilityClaim,
    CapabilityGroup,
    Scenario,
    ShortlistRule,
    SolutionType,
    Source,
)
from ..selectors import solution_comparison, solution_queryset
from . import serializers as s


# Deleting a row that others refer to (a solution candidates name, a type solutions have): 409.
@extend_schema_view(destroy=extend_schema(responses={204: None, **error_responses(409)}))
class CatalogViewSet(viewsets.ModelViewSet):
    permission_classes = [AdminWriteSignedInRead]
    lookup_field = "slug"


class SolutionTypeViewSet(CatalogViewSet):
    queryset = SolutionType.objects.all()
    serializer_class = s.SolutionTypeSerializer


class ScenarioViewSet(CatalogViewSet):
    queryset = Scenario.objects.all()
    serializer_class = s.ScenarioSerializer


class CapabilityGroupViewSet(CatalogViewSet):
    queryset = CapabilityGroup.objects.all()
    serializer_class = s.CapabilityGroupSerializer


class CapabilityViewSet(CatalogViewSet):
    queryset = Capability.objects.select_related("group")
    serializer_class = s.CapabilitySerializer
    filterset_fields = ["group__slug"]


class SourceViewSet(CatalogViewSet):
    queryset = Source.objects.all()
    serializer_class = s.SourceSerializer
    lookup_field = "key"


class SolutionViewSet(CatalogViewSet):
    queryset = solution_queryset()
    serializer_class = s.SolutionSerializer
    filterset_class = SolutionFilterSet

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "solutions",
                str,
                many=True,
                description="2 to 8 solution slugs, repeated or comma-separated.",
            )
        ],
        responses={200: dict},
    )
    @action(detail=False, methods=["get"])
    def compare(self, request):
        """Capability matrix of 2–8 solutions: one row per capability, one cell per solution."""
        raw = request.query_params.getlist("solutions")
        slugs = [part.strip() for item in raw for part in item.split(",") if part.strip()]
        query = s.CompareQuerySerializer(data={"solutions": slugs})
        query.is_valid(raise_exception=True)
        comparison = solution_comparison(solutions=query.validated_data["solutions"])
        return Response(
            {
                "solutions": [
                    {"slug": sol.slug, "name": sol.name, "type": sol.solution_type.slug}
                    for sol in comparison.solutions
                ],
                "groups": [
                    {
                        "group": g.group.slug,
                        "name": g.group.name,
                        "rows": [
                            {
                                "capability": row.capability.slug,
                                "name": row.capability.name,
                                "levels": {
                                    sol.slug: (claim.level if claim else "unknown")
                                    for sol, claim in zip(
                                        comparison.solutions, row.claims, strict=True
                                    )
                                },
                            }
                            for row in g.rows
                        ],
                    }
                    for g in comparison.groups
                ],
            }
        )


class CapabilityClaimViewSet(CatalogViewSet):
    queryset = CapabilityClaim.objects.select_related("solution", "capability").prefetch_related(
        "sources"
    )
    serializer_class = s.CapabilityClaimSerializer
    filterset_class = CapabilityClaimFilterSet
    lookup_field = "pk"


class AcceleratorFamilyViewSet(CatalogViewSet):
    queryset = AcceleratorFamily.objects.all()
    serializer_class = s.AcceleratorFamilySerializer


class AcceleratorSupportViewSet(CatalogViewSet):
    queryset = AcceleratorSupport.objects.select_related("solution", "family").prefetch_related(
        "sources"
    )
    serializer_class = s.AcceleratorSupportSerializer
    lookup_field = "pk"
    filterset_fields = ["solution__slug", "family__slug", "level"]


class ShortlistRuleViewSet(CatalogViewSet):
    queryset = ShortlistRule.objects.prefetch_related("solutions")
    serializer_class = s.ShortlistRuleSerializer
    lookup_field = "key"
