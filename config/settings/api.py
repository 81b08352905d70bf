"""The REST API's settings: Django REST framework, the OpenAPI schema (drf-spectacular) and
personal API tokens (django-rest-knox, apitokens/). Imported by base.py; the settings read from
the environment (API_TOKEN_MAX_DAYS, API_BASIC_AUTH, API_BASIC_AUTH_RATE) stay there."""

REST_FRAMEWORK = {
    # The token first: an API call without valid credentials answers 401 with
    # WWW-Authenticate: Bearer. HTTP Basic only when API_BASIC_AUTH is on (apitokens/auth.py).
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "apitokens.auth.TokenAuthentication",
        "apitokens.auth.OptionalBasicAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": [
        "common.drf.JSONParser",
        "rest_framework.parsers.FormParser",
        "common.drf.MultiPartParser",
    ],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "common.drf.Pagination",
    "DEFAULT_METADATA_CLASS": "common.drf.Metadata",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "common.http.AutoSchema",
    "EXCEPTION_HANDLER": "common.api.exception_handler",
}
# Personal API tokens (apitokens/, django-rest-knox): sent as "Authorization: Bearer <token>",
# stored as their SHA-512 digest, every one with an end date no further than API_TOKEN_MAX_DAYS.
KNOX_TOKEN_MODEL = "apitokens.ApiToken"
REST_KNOX = {"AUTH_HEADER_PREFIX": "Bearer", "TOKEN_PREFIX": "sl_", "TOKEN_TTL": None}
SPECTACULAR_SETTINGS = {
    "TITLE": "Shortlist API",
    "DESCRIPTION": "Catalog, evaluations and reports for choosing a GPU scheduling platform.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI assets come from drf-spectacular-sidecar: nothing is fetched from a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Choice sets that share a field name (status, role, level) get distinct names.
    "ENUM_NAME_OVERRIDES": {
        "EvaluationStatusEnum": "evaluations.models.Status",
        "ReportRunStatusEnum": "reports.models.RunStatus",
        "LayerRoleEnum": "evaluations.models.LayerRole",
        "MemberRoleEnum": "evaluations.models.MemberRole",
        "SupportLevelEnum": "catalog.models.SupportLevel",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "common.schema_hooks.document_unsupported_media_type",
    ],
}
