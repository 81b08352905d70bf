from django.urls import path

from . import views

app_name = "catalog"

urlpatterns = [
    path("", views.SolutionListView.as_view(), name="solution_list"),
    path("compare/", views.CompareView.as_view(), name="solution_compare"),
    path("<slug:slug>/", views.SolutionDetailView.as_view(), name="solution_detail"),
]
