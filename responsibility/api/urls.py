from django.urls import path

from ..support import api as support
from . import views

app_name = "responsibility-api"

EVALUATION = "evaluations/<int:evaluation_pk>/"
MATRIX = EVALUATION + "matrices/<int:candidate_pk>/"
ROW = MATRIX + "rows/<str:area_key>/"
SUPPORT = EVALUATION + "support-terms/"

urlpatterns = [
    path("parties/", views.PartyLibraryView.as_view(), name="party_library"),
    path("areas/", views.AreaLibraryView.as_view(), name="area_library"),
    path(EVALUATION + "parties/", views.EvaluationPartyListView.as_view(), name="party_list"),
    path(EVALUATION + "matrices/", views.MatrixListView.as_view(), name="matrix_list"),
    path(MATRIX, views.MatrixDetailView.as_view(), name="matrix_detail"),
    path(MATRIX + "prefill/", views.MatrixPrefillView.as_view(), name="matrix_prefill"),
    path(ROW, views.RowView.as_view(), name="matrix_row"),
    path(ROW + "cells/<str:party_key>/", views.CellView.as_view(), name="matrix_cell"),
    path(EVALUATION + "costs/", views.CostListView.as_view(), name="cost_list"),
    path(EVALUATION + "costs/settings/", views.CostSettingsView.as_view(), name="cost_settings"),
    path(
        EVALUATION + "costs/candidates/<int:candidate_pk>/",
        views.CostInputView.as_view(),
        name="cost_input",
    ),
    path(SUPPORT, support.SupportComparisonView.as_view(), name="support_list"),
    path(
        SUPPORT + "<int:candidate_pk>/<str:term>/",
        support.SupportTermView.as_view(),
        name="support_term",
    ),
]
