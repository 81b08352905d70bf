from csp.decorators import csp_update
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from common.directory import SignInForm
from common.docs import docs
from common.oidc import SignInCallbackView, SignInRequestView, SignInView, SignOutView
from common.views import favicon, healthz, livez, metrics, readyz
from evaluations.views import HomeView

urlpatterns = [
    path("", HomeView.as_view(), name="home"),
    # Pages that do not name an icon (Django admin, API docs) make browsers ask for this one.
    path("favicon.ico", favicon),
    # Probes: liveness (the process answers) and readiness (database, broker, storage);
    # /healthz is readiness under the name monitoring set up before the split uses.
    path("livez", livez, name="livez"),
    path("readyz", readyz, name="readyz"),
    path("healthz", healthz, name="healthz"),
    # Prometheus scrapes; 404 unless METRICS_TOKEN or METRICS_ALLOWED_IPS lets the caller in.
    path("metrics", metrics, name="metrics"),
    path("accounts/login/", SignInView.as_view(authentication_form=SignInForm), name="login"),
    path("accounts/logout/", SignOutView.as_view(), name="logout"),
    # Company sign-in with OpenID Connect (404 while it is off).
    path("oidc/authenticate/", SignInRequestView.as_view(), name="oidc_authentication_init"),
    path("oidc/callback/", SignInCallbackView.as_view(), name="oidc_authentication_callback"),
    path(
        "accounts/password/",
        auth_views.PasswordChangeView.as_view(),
        name="password_change",
    ),
    path(
        "accounts/password/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
    path("accounts/tokens/", include("apitokens.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("catalog/", include("catalog.urls")),
    path("evaluations/", include("evaluations.urls")),
    path("evaluations/", include("responsibility.urls")),
    path("evaluations/", include("poc.urls")),
    path("evaluations/", include("reports.urls")),
    path("evaluations/", include("signoff.urls")),
    path("evaluations/", include("portable.urls")),
    path("admin/", admin.site.urls),
    path("api/catalog/", include("catalog.api.urls")),
    path("api/", include("evaluations.api.urls")),
    path("api/", include("responsibility.api.urls")),
    path("api/", include("poc.api.urls")),
    path("api/", include("reports.api.urls")),
    path("api/", include("signoff.api.urls")),
    path("api/", include("portable.api.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # Swagger UI (served by the app) adds <style> elements as it draws: the docs page alone may.
    path(
        "api/docs/",
        csp_update({"style-src": ["'unsafe-inline'"]})(
            SpectacularSwaggerSplitView.as_view(url_name="api-schema")
        ),
        name="api-docs",
    ),
    # This documentation (MkDocs, built by `make docs`), for anyone: the theme's inline scripts
    # are allowed by their hashes on these pages alone (common/docs.py).
    path("docs/", docs, name="docs-index"),
    path("docs/<path:path>", docs, name="docs"),
]

handler404 = "common.api.not_found"
