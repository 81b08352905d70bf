from django.urls import path

from . import views

app_name = "apitokens"

urlpatterns = [
    path("", views.TokensView.as_view(), name="tokens"),
    path("revoke/", views.RevokeView.as_view(), name="revoke"),
]
