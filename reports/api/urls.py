from django.urls import path

from . import views

app_name = "reports-api"

REPORTS = "evaluations/<int:evaluation_pk>/reports/"

urlpatterns = [
    path(REPORTS, views.ReportListView.as_view(), name="report_list"),
    path(REPORTS + "<int:run_pk>/", views.ReportDetailView.as_view(), name="report_detail"),
    path(REPORTS + "<int:run_pk>/retry/", views.ReportRetryView.as_view(), name="report_retry"),
    path(REPORTS + "<int:run_pk>/pdf/", views.ReportPdfView.as_view(), name="report_pdf"),
]
