from rest_framework.routers import DefaultRouter

from . import views

app_name = "catalog-api"

router = DefaultRouter()
router.register("solution-types", views.SolutionTypeViewSet)
router.register("scenarios", views.ScenarioViewSet)
router.register("capability-groups", views.CapabilityGroupViewSet)
router.register("capabilities", views.CapabilityViewSet)
router.register("sources", views.SourceViewSet)
router.register("solutions", views.SolutionViewSet)
router.register("claims", views.CapabilityClaimViewSet)
router.register("shortlist-rules", views.ShortlistRuleViewSet)
router.register("accelerator-families", views.AcceleratorFamilyViewSet)
router.register("accelerator-support", views.AcceleratorSupportViewSet)

urlpatterns = router.urls
