from django.urls import path

from . import views

app_name = "signoff-api"

APPROVALS = "evaluations/<int:evaluation_pk>/approvals/"
APPROVAL = APPROVALS + "<int:approval_pk>/"

urlpatterns = [
    path(APPROVALS, views.ApprovalListView.as_view(), name="approval_list"),
    path(APPROVAL, views.ApprovalDetailView.as_view(), name="approval_detail"),
    path(APPROVAL + "decide/", views.ApprovalDecideView.as_view(), name="approval_decide"),
    path(APPROVAL + "withdraw/", views.ApprovalWithdrawView.as_view(), name="approval_withdraw"),
]
