from django.urls import path

from . import views
from .support.views import SupportView

app_name = "responsibility"

urlpatterns = [
    path("<int:pk>/responsibility/", views.MatricesView.as_view(), name="matrices"),
    path("<int:pk>/responsibility/<int:cid>/", views.MatrixEditView.as_view(), name="matrix"),
    path(
        "<int:pk>/responsibility/<int:cid>/save/",
        views.MatrixRowSaveView.as_view(),
        name="matrix_save",
    ),
    path("<int:pk>/costs/", views.CostsView.as_view(), name="costs"),
    path("<int:pk>/support/", SupportView.as_view(), name="support"),
]
