from django.urls import path

from . import views

app_name = "portable-api"

urlpatterns = [
    path(
        "evaluations/<int:evaluation_pk>/archive/",
        views.EvaluationArchiveView.as_view(),
        name="evaluation_archive",
    ),
]
