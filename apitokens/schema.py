"""How the OpenAPI schema describes the API's sign-in: a bearer token, and HTTP Basic where an
installation has turned it on (loaded by ApiTokensConfig.ready)."""

from django.conf import settings
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.plumbing import build_bearer_security_scheme_object


class TokenScheme(OpenApiAuthenticationExtension):
    target_class = "apitokens.auth.TokenAuthentication"
    name = "apiToken"

    def get_security_definition(self, auto_schema):
        scheme = build_bearer_security_scheme_object(
            header_name="Authorization", token_prefix="Bearer"
        )
        return {**scheme, "description": "A personal API token (Account → API tokens)."}


class OptionalBasicScheme(OpenApiAuthenticationExtension):
    target_class = "apitokens.auth.OptionalBasicAuthentication"
    name = "basicAuth"

    def get_security_requirement(self, auto_schema):
        return {self.name: []} if settings.API_BASIC_AUTH else {}

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "basic",
            "description": "Only where API_BASIC_AUTH is on.",
        }
