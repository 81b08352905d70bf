from django.urls import path

from . import views

app_name = "signoff"

urlpatterns = [
    path("<int:pk>/decision/approvals/", views.ApprovalsView.as_view(), name="approvals"),
]
