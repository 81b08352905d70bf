from django.urls import path

from . import views

app_name = "reports"

urlpatterns = [
    path("<int:pk>/reports/", views.ReportListView.as_view(), name="report_list"),
    path("<int:pk>/reports/preview/", views.ReportPreviewView.as_view(), name="report_preview"),
    path(
        "<int:pk>/reports/<int:run_id>/pdf/",
        views.ReportDownloadView.as_view(),
        name="report_download",
    ),
]
