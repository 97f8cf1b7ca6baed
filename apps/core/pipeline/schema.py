"""The OpenAPI document (drf-spectacular): request and response shapes, error bodies, headers, security.

ApiAutoSchema adds to every API operation what the shared conventions of apps/core produce, so a view
only declares its own success body:

- the docs/decisions.md error body (component `Error`) for 400, 401, 403, 404 (operations with path
  parameters or a body, or views that list it), 413 (operations with a body), 429 and 503, each with
  its headers (`X-Error`; `WWW-Authenticate` on 401, `Retry-After` on 429 and 503); a view's own entry
  for a status wins;
- the `X-RateLimit-*` headers on every success, and `Link` on lists (docs/decisions.md: Rate limit,
  Pagination);
- output fields a serializer names in `schema_optional_fields` are not required (shown to some viewers);
- a PATCH body keeps its required fields when its input serializer sets `schema_complete_on_patch`
  (the view parses it whole; drf-spectacular would document every PATCH body as partial);
- DELETE answering the 'ok' object is a 200 with that body (drf-spectacular would document a 204);
- every success status as the wire carries it (apps.core.pipeline.statuses): a view's 201 or 204 is a 200;
- the token in the `Authorization: Bearer` header or the `access_token` query parameter (spec §5 step 4);
- what the request parsing really accepts (docs/decisions.md: Requests): a body of `null` (or none) where no
  field is required, an empty optional query parameter (= absent), and for boolean and integer inputs
  the other spellings the field takes (form bodies carry text; spec §4.11's `thing_save` sends `is_wip`
  as a number). Fields that refuse those spellings (the Strict* fields) are documented as they are:
  the schema is derived by asking each field what it accepts.

JSON-P (`callback`) applies to every GET and is described once, in the document's description
(SPECTACULAR_SETTINGS), rather than on each operation: its answer is JavaScript, not the documented JSON.
"""
import copy

from django.conf import settings
from drf_spectacular.extensions import OpenApiAuthenticationExtension, OpenApiSerializerFieldExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import force_instance
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema_field
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.settings import api_settings

from apps.core.pipeline.authentication import BearerAuthentication
from apps.core.pipeline.parsers import LenientJSONParser
from apps.core.pipeline.routing import PATH_ALIASES
from apps.core.pipeline.statuses import NO_BODY_DESCRIPTION, wire_success_status

# docs/decisions.md: Errors. `errors` is {field: [messages]} on validation failures, [reasons] on publish.
_ERRORS_SCHEMA = {
    "oneOf": [
        {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}},
        {"type": "array", "items": {"type": "string"}},
    ],
    "description": "Validation failures: messages by field. Publish failures (NOT_PUBLISHABLE): the reasons.",
}


@extend_schema_field(_ERRORS_SCHEMA)
class _ErrorsField(serializers.JSONField):
    pass


class ErrorSerializer(serializers.Serializer):
    """docs/decisions.md's error body, for every error status of the API."""

    error = serializers.CharField(
        help_text="Short reason: exactly `Unauthorized`, `Forbidden` or `Not Found` for 401/403/404; "
        "a human message otherwise."
    )
    code = serializers.IntegerField(help_text="The HTTP status.")
    type = serializers.CharField(help_text="Machine-readable error type, e.g. `VALIDATION_FAILED`.")
    # The body's key; DRF's Serializer.errors is a property of bound serializers, never used on this one.
    errors = _ErrorsField(required=False)  # type: ignore[assignment]

    class Meta:
        ref_name = "Error"


def error(description: str) -> OpenApiResponse:
    """An error status a view documents itself, e.g. `responses={200: X, 404: error("Nothing matches.")}`."""
    return OpenApiResponse(ErrorSerializer, description=description)


_ERROR_DESCRIPTIONS = {
    400: "Bad input: `VALIDATION_FAILED` (with `errors` by field), `MALFORMED_JSON`, `INVALID_BODY`, "
    "`INVALID_CALLBACK`, or a domain rule refused the request.",
    401: "No token, or an unknown, expired or revoked one.",
    403: "The token is valid but may not do this (another user's object, an application's read-only "
    "token on a user endpoint, an application rule).",
    404: "No such object, or one the caller may not know about.",
    413: "The request body is too large.",
    429: "Rate limit exceeded (`RATE_LIMITED`); retry after `Retry-After` seconds.",
    503: "A backing service (database, broker, object store) is unavailable (`SERVICE_UNAVAILABLE`, "
    "`STORE_UNAVAILABLE`); retry after `Retry-After` seconds.",
}
_INT_HEADER = {"type": "integer"}
_STRING_HEADER = {"type": "string"}
RATE_LIMIT_HEADERS = {
    "X-RateLimit-Limit": ("Requests allowed per window.", _INT_HEADER),
    "X-RateLimit-Remaining": ("Requests left in the current window.", _INT_HEADER),
    "X-RateLimit-Reset": ("When the window ends, in epoch seconds.", _INT_HEADER),
}


def _header(description: str, schema: dict, required: bool = False) -> dict:
    return {"schema": dict(schema), "description": description, "required": required}


class ApiAutoSchema(AutoSchema):
    def map_parsers(self):
        # The parser accepts any Content-Type only for compat (docs/decisions.md: Requests); the contract is
        # JSON (spec §1), so that is what the document promises and what generated clients send.
        return [
            "application/json" if media_type == LenientJSONParser.media_type else media_type
            for media_type in super().map_parsers()
        ]

    # drf-spectacular's AutoSchema narrows DRF's signature itself (and ignores the override there too).
    def get_description(self):  # type: ignore[override]
        description = super().get_description() or ""
        for prefix, alias in PATH_ALIASES.items():
            if self.path.startswith("/" + alias):
                spec_path = "/" + prefix + self.path[len(alias) + 1:]
                note = f"Alias of `{spec_path}` (compat: the path modern clients call); it answers the same."
                return f"{description}\n\n{note}" if description else note
        return description

    def _is_list_view(self, serializer=None):
        # A response serializer that documents a paginated list in another shape than a bare array
        # (search's array-or-{total, hits}) says so; spectacular only recognises `many=True`.
        if serializer is None:
            serializer = self.get_response_serializers()
        if isinstance(serializer, dict) and serializer:
            serializer = {str(code): s for code, s in serializer.items()}
            serializer = serializer[min(serializer)]
        if getattr(serializer, "paginated_list", False):
            return True
        return super()._is_list_view(serializer)

    def _get_paginator(self):
        # Our list views are plain APIViews that paginate through core.api.paginated_response with the
        # default pagination class; drf-spectacular only looks for GenericAPIView's attribute. A list
        # view that answers a whole array says so with `pagination_class = None`.
        pagination_class = getattr(self.view, "pagination_class", api_settings.DEFAULT_PAGINATION_CLASS)
        # api_settings imports the dotted path at run time; the stubs type the setting as its str.
        return pagination_class() if pagination_class else None  # type: ignore[operator]

    def _get_parameters(self):
        parameters = super()._get_parameters()
        for parameter in parameters:
            # An empty optional query parameter counts as absent (DRF's form semantics, search's parser).
            if parameter.get("in") == "query" and not parameter.get("required"):
                parameter["allowEmptyValue"] = True
        return parameters

    def _get_request_for_media_type(self, serializer, direction="request"):
        if self.method == "PATCH" and getattr(serializer, "schema_complete_on_patch", False):
            # drf-spectacular documents every PATCH body as partial (DRF's partial_update); an input
            # the view parses whole (parse_input without partial=True) keeps its required fields.
            return self._get_complete_request(serializer, direction)
        schema, required = super()._get_request_for_media_type(serializer, direction)
        if schema is not None and not required and "$ref" in schema:
            # docs/decisions.md: the literal `null` (and an empty body) mean "no fields".
            schema = {"allOf": [schema], "nullable": True}
        return schema, required

    def _get_complete_request(self, serializer, direction):
        component = self.resolve_serializer(force_instance(serializer), direction)
        return component.ref, bool(component.schema.get("required"))

    def _map_basic_serializer(self, serializer, direction):
        schema = super()._map_basic_serializer(serializer, direction)
        # Output fields a serializer leaves out for some viewers (e.g. a user's e-mail for others).
        optional = set(getattr(serializer, "schema_optional_fields", ()))
        if optional and schema.get("required"):
            schema["required"] = [name for name in schema["required"] if name not in optional]
            if not schema["required"]:
                del schema["required"]
        return schema

    def _get_response_bodies(self, direction="response"):
        serializer = self.get_response_serializers()
        if self.method == "DELETE" and serializer is not None and not isinstance(serializer, dict):
            # A DELETE that answers a body (the 'ok' object, spec §4) is a 200 with it; views that
            # really answer 204 say so with `responses={204: None}`.
            responses = {"200": self._get_response_for_code(serializer, "200", direction=direction)}
        else:
            responses = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        responses = _wire_success_statuses(responses)
        authenticated = self._requires_token()
        for code, response in responses.items():
            if code.startswith("2"):
                self._add_success_headers(response, authenticated)
        for status in self._error_statuses(authenticated):
            if str(status) not in responses:
                responses[str(status)] = self._get_response_for_code(
                    error(_ERROR_DESCRIPTIONS[status]), str(status)
                )
        for code, response in responses.items():
            if code.startswith(("4", "5")):
                self._add_error_headers(response, int(code))
        return dict(sorted(responses.items()))

    def _requires_token(self) -> bool:
        bearer = any(isinstance(a, BearerAuthentication) for a in self.view.get_authenticators())
        return bearer and not any(isinstance(p, AllowAny) for p in self.view.get_permissions())

    def _error_statuses(self, authenticated: bool) -> list[int]:
        statuses = [400, 503]
        if authenticated:
            statuses += [401, 403, 429]
        has_body = bool(self._get_request_body())
        if "{" in self.path or has_body:
            statuses.append(404)  # the object of the path, or one the body names (target_id, ancestors)
        if has_body:
            statuses.append(413)
        return sorted(statuses)

    def _add_success_headers(self, response: dict, authenticated: bool) -> None:
        headers = response.setdefault("headers", {})
        if authenticated:
            for name, (description, schema) in RATE_LIMIT_HEADERS.items():
                headers.setdefault(name, _header(description, schema, required=True))
        if self.method == "GET" and self._is_list_view():
            headers.setdefault(
                "Link",
                _header(
                    'Pagination links (GitHub style): rel "first" and "last" always, "prev" and "next" '
                    "where those pages exist. Absent on unpaginated answers.",
                    _STRING_HEADER,
                ),
            )
        if not headers:
            del response["headers"]

    def _add_error_headers(self, response: dict, status: int) -> None:
        headers = response.setdefault("headers", {})
        headers.setdefault("X-Error", _header("The body's `error` reason.", _STRING_HEADER, required=True))
        if status == 401:
            headers.setdefault("WWW-Authenticate", _header("`Bearer`.", _STRING_HEADER, required=True))
        if status in (429, 503):
            headers.setdefault("Retry-After", _header("Seconds to wait before retrying.", _INT_HEADER, True))
        for name, (description, schema) in RATE_LIMIT_HEADERS.items():
            if status != 401:
                # Present once the token was checked (docs/decisions.md), so not on every 4xx.
                headers.setdefault(name, _header(description, schema))


def _wire_success_statuses(responses: dict) -> dict:
    """The success-status policy (apps.core.pipeline.statuses) applied to the documented statuses: a view's
    `201` is documented as the `200` the wire carries, a `204` as a `200` with an empty body."""
    out = {}
    for code, response in responses.items():
        wire = str(wire_success_status(int(code))) if code.isdigit() else code
        if wire != code and "content" not in response:
            response = {**response, "description": NO_BODY_DESCRIPTION}
        if wire in out:
            raise ValueError(f"{code} and {wire} both documented: the wire answers {wire} for both")
        out[wire] = response
    return out


def _accepts(field, value) -> bool:
    """Whether the field parses `value` (its type, not its range: validators are not run)."""
    try:
        field.to_internal_value(value)
    except Exception:  # ValidationError, or a field that cannot handle the probe at all
        return False
    return True


class LenientBooleanFieldSchema(OpenApiSerializerFieldExtension):
    """A boolean input as the field really takes it: JSON booleans, and the spellings it knows."""

    target_class = "rest_framework.fields.BooleanField"
    match_subclasses = True

    def map_serializer_field(self, auto_schema, direction):
        schema = auto_schema._map_serializer_field(self.target, direction, bypass_extensions=True)
        if direction != "request":
            return schema
        field = self.target
        alternatives = [schema]
        if _accepts(field, 1) and _accepts(field, 0):
            alternatives.append({"type": "integer", "enum": [0, 1]})
        spellings = sorted(
            value for value in field.TRUE_VALUES | field.FALSE_VALUES
            if isinstance(value, str) and _accepts(field, value)
        )
        if spellings:
            alternatives.append({"type": "string", "enum": spellings})
        return schema if len(alternatives) == 1 else {"oneOf": alternatives}


class LenientIntegerFieldSchema(OpenApiSerializerFieldExtension):
    """An integer input as the field really takes it: a JSON integer, or its decimal text if it takes it."""

    target_class = "rest_framework.fields.IntegerField"
    match_subclasses = True

    def map_serializer_field(self, auto_schema, direction):
        schema = auto_schema._map_serializer_field(self.target, direction, bypass_extensions=True)
        if direction != "request" or not _accepts(self.target, "1"):
            return schema
        # DRF reads the text with int() after dropping a trailing ".0": " 12 ", "+12", "12.0" all work.
        text = {"type": "string", "pattern": r"^\s*[+-]?[0-9]+(_[0-9]+)*(\.0*)?\s*$"}
        min_value = getattr(self.target, "min_value", None)
        if min_value is not None and min_value >= 1:
            # Ids and other positive numbers: no `-`, and a digit other than 0 ("0" is a 400 too).
            text["pattern"] = r"^\s*\+?[0-9_]*[1-9][0-9_]*(\.0*)?\s*$"
        return {"oneOf": [schema, text]}


class LicenseFieldSchema(OpenApiSerializerFieldExtension):
    """A license input: a code, or the display name the API shows for it (apps.core.pipeline.fields)."""

    target_class = "apps.core.pipeline.fields.LicenseField"

    def map_serializer_field(self, auto_schema, direction):
        schema = auto_schema._map_serializer_field(self.target, direction, bypass_extensions=True)
        if direction == "request":
            schema["enum"] = [*self.target.choices, *self.target.choices.values()]
        return schema


class BearerTokenScheme(OpenApiAuthenticationExtension):
    """spec §5 step 4: `Authorization: Bearer <token>` or the `access_token` query parameter."""

    target_class = "apps.core.pipeline.authentication.BearerAuthentication"
    match_subclasses = True
    name = ["bearerAuth", "accessTokenQuery"]

    def get_security_requirement(self, auto_schema):
        return [{"bearerAuth": []}, {"accessTokenQuery": []}]  # either one (OR)

    def get_security_definition(self, auto_schema):
        return [
            {"type": "http", "scheme": "bearer", "description": "An OAuth access token (32 hex characters)."},
            {"type": "apiKey", "in": "query", "name": "access_token", "description": "The same token."},
        ]


# Path parameters shared by the views of several apps (one description each in the schema).
THING_PARAM = OpenApiParameter("thing_id", int, OpenApiParameter.PATH, description="A Thing id.")
USERNAME_PARAM = OpenApiParameter(
    "username", str, OpenApiParameter.PATH, description="A user name, or `me` for the token's user."
)


def oauth_flow_urls_absolute(result, generator, request, public):
    """drf-spectacular postprocessing hook: the OAuth flow's URLs under {auth_url}, read at generation
    time, so Swagger UI's Authorize (and any generated client) finds the provider even when it lives on
    another host than the API."""
    auth_base = settings.AUTH_BASE_URL.rstrip("/")
    schemes = result.get("components", {}).get("securitySchemes", {})
    if "oauth2" not in schemes:
        return result
    # A copy: the scheme is SPECTACULAR_SETTINGS' own dict, which must keep its relative paths.
    schemes["oauth2"] = oauth2 = copy.deepcopy(schemes["oauth2"])
    for flow in oauth2.get("flows", {}).values():
        for key in ("authorizationUrl", "tokenUrl", "refreshUrl"):
            if flow.get(key, "").startswith("/"):
                flow[key] = auth_base + flow[key]
    return result
