from django.urls import path

from . import claim_edit, views
from .bundle import views as bundle_views

app_name = "catalog"

urlpatterns = [
    path("", views.SolutionListView.as_view(), name="solution_list"),
    path("compare/", views.CompareView.as_view(), name="solution_compare"),
    path("bundle/", bundle_views.BundleView.as_view(), name="bundle"),
    path("bundle/export/", bundle_views.BundleExportView.as_view(), name="bundle_export"),
    path("<slug:slug>/", views.SolutionDetailView.as_view(), name="solution_detail"),
    path(
        "<slug:slug>/claims/<slug:capability>/edit/",
        claim_edit.ClaimEditView.as_view(),
        name="claim_edit",
    ),
    path(
        "<slug:slug>/claims/<slug:capability>/",
        claim_edit.ClaimRowView.as_view(),
        name="claim_row",
    ),
]
