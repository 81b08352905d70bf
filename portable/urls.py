from django.urls import path

from . import views

app_name = "portable"

urlpatterns = [
    path("import/", views.EvaluationImportView.as_view(), name="evaluation_import"),
    path("<int:pk>/archive/", views.EvaluationArchiveView.as_view(), name="evaluation_archive"),
]
