"""The base of every API view (the one request pipeline) and Django's error handlers.

Every API answer is docs/decisions.md's JSON body, never HTML: inside DRF through apps.core.handlers,
outside it (unknown paths, crashes in middleware or site pages) through the handlers at the end of this
module. The one exception is a site page (a route that is not an API view) answering 404 to a browser:
a person gets the site's own "not found" page rather than the API's JSON body.
"""
import json
import sys
from dataclasses import dataclass
from functools import cache

from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage
from django.http import Http404, HttpResponse
from django.views.decorators.http import require_safe
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.utils.decorators import method_decorator
from django.views.decorators.gzip import gzip_page
from django.utils.cache import patch_vary_headers
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularJSONAPIView, SpectacularSwaggerView
from rest_framework.permissions import SAFE_METHODS
from rest_framework.renderers import JSONRenderer
from rest_framework.views import APIView

from apps.core.exceptions import InsufficientScope
from apps.core.handlers import error_body, service_unavailable_from, service_unavailable_log, x_error_header
from apps.core.permissions import WRITE_SCOPE, scope_allows_write
from apps.core.jsonp import INVALID_CALLBACK_MESSAGE, jsonp_callback_is_valid, jsonp_callback_of, jsonp_wrap
from apps.core.ratelimit import RateLimitState, rate_limit_hit, rate_limit_key
from apps.core.statuses import success_status_apply
from apps.core import versions


class ApiView(APIView):
    """Every API endpoint derives from this: one pipeline, each concern in one place.

    0. JSON-P: a GET with a bad `callback` is refused before anything runs (no token lookup either).
    1. Authentication (REST_FRAMEWORK's authentication class, apps.oauth): no token, or an unusable one.
    2. The rate limit (spec §8, docs/decisions.md: Rate limit): every authenticated request counts once, per
       (application, user); over the limit is a 429, whatever the permissions would have said.
    3. Permissions (IsTokenUser by default): 401 anonymous, 403 for an app's read-only token; then the
       token's scope: an unsafe method needs `write` (403 INSUFFICIENT_SCOPE, docs/decisions.md: Scopes).
    4. The handler. On the way out, a success takes the status the wire carries (apps.core.statuses:
       200 for any 2xx but 202), every answer after authentication, errors included, carries the
       rate-limit headers, and a JSON-P GET's JSON body is wrapped as JavaScript.
    5. Every answer is `Cache-Control: private, no-store` with `Vary: Authorization` (RFC 6750 §5.3): a
       body may hold the caller's own data (`/users/me` has the e-mail address), and a token in the
       query string must not make a shared cache keep it (docs/security.md, issue 14 finding 10).
    """

    rate_limit: RateLimitState | None = None
    jsonp_callback: str | None = None

    def dispatch(self, request, *args, **kwargs):
        callback = jsonp_callback_of(request)
        if callback is not None and not jsonp_callback_is_valid(callback):
            # An arbitrary callback would let a page inject script.
            return json_error(400, INVALID_CALLBACK_MESSAGE, "INVALID_CALLBACK")
        self.jsonp_callback = callback
        return super().dispatch(request, *args, **kwargs)

    def initial(self, request, *args, **kwargs):
        # DRF's own initial() checks permissions before throttles; the spec's order is the one below.
        self.format_kwarg = self.get_format_suffix(**kwargs)
        request.accepted_renderer, request.accepted_media_type = self.perform_content_negotiation(request)
        request.version, request.versioning_scheme = self.determine_version(request, *args, **kwargs)
        versions.header_version(request)  # an unknown Thingyard-Version is 400 before anything else
        self.perform_authentication(request)
        # The wire version (apps.core.versions): the header, else the token's app's, else `spec`.
        versions.resolve(request, getattr(request.auth, "application", None))
        self.check_rate_limit(request)
        self.check_permissions(request)
        self.check_scope(request)

    def check_scope(self, request) -> None:
        """docs/security.md (issue 22, finding 1): every unsafe method of every API view needs a token
        with the `write` scope. Reads never reach this for writes: apps.oauth.fastpath answers GETs only."""
        token = request.auth
        if token is None or request.method in SAFE_METHODS:
            return
        if not scope_allows_write(getattr(token, "scope", "")):
            raise InsufficientScope(WRITE_SCOPE)

    def check_rate_limit(self, request) -> None:
        token = request.auth
        if token is None:
            return  # anonymous: 401 from the permissions, or public documentation
        # An application's read-only token has no user: it gets a bucket of its own (docs/decisions.md: OAuth).
        key = rate_limit_key(application_id=token.application_id, user_id=token.user_id)
        # A request the cached-read path already counted (apps.oauth.fastpath) is not counted twice.
        counted = getattr(request._request, RATE_LIMIT_COUNTED_ATTRIBUTE, None)
        self.rate_limit = counted[1] if counted is not None and counted[0] == key else rate_limit_hit(key)
        if not self.rate_limit.allowed:
            self.throttled(request, self.rate_limit.retry_after())

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        success_status_apply(response)
        if self.rate_limit is not None:
            for name, value in self.rate_limit.headers().items():
                response[name] = value
        if self.jsonp_callback is not None:
            jsonp_wrap(response, self.jsonp_callback)
        if not response.has_header("Cache-Control"):
            response["Cache-Control"] = "private, no-store"
        patch_vary_headers(response, ("Authorization",))
        versions.answer_header(response, request)
        return response


# Set on the Django request by apps.oauth.fastpath when it counted the request before handing it on.
RATE_LIMIT_COUNTED_ATTRIBUTE = "thingyard_rate_limit_counted"
_JSON_RENDERER = JSONRenderer()


@dataclass(frozen=True)
class Rendered:
    """A body already rendered by DRF's JSONRenderer, with the headers it needs (a page's Link, an ETag);
    `status` 304: the client's copy is current (no body, issue 24's conditional requests)."""

    body: bytes
    headers: dict
    status: int = 200


def api_json_response(data, *, view_class: type[ApiView], rate_limit: RateLimitState) -> HttpResponse:
    """The 200 that `view_class` would answer with `data` to an authenticated GET (no JSON-P, JSON
    accepted), built without DRF's dispatch: the same body (DRF's JSONRenderer) and the same headers as
    APIView.finalize_response and ApiView.finalize_response add (Allow, the rate limit, Cache-Control,
    Vary). apps.oauth.fastpath answers cached reads with it; tests compare the two byte for byte."""
    if isinstance(data, Rendered):
        response = HttpResponse(data.body, content_type="application/json", status=data.status)
        if data.status == 304:
            del response["Content-Type"]
        for name, value in data.headers.items():
            response[name] = value
    else:
        response = HttpResponse(_JSON_RENDERER.render(data), content_type="application/json")
    response["Allow"] = _allow_header(view_class)
    for name, value in rate_limit.headers().items():
        response[name] = value
    response["Cache-Control"] = "private, no-store"
    patch_vary_headers(response, ("Authorization",))
    response[versions.HEADER] = versions.SPEC  # the fast path answers `spec` requests only
    return response


_ALLOW: dict[type, str] = {}


def _allow_header(view_class: type[ApiView]) -> str:
    found = _ALLOW.get(view_class)
    if found is not None:
        return found
    view = view_class()
    if hasattr(view, "get") and not hasattr(view, "head"):
        view.head = view.get  # type: ignore[attr-defined]  # as django.views.View.setup() does per request
    return _ALLOW.setdefault(view_class, ", ".join(view.allowed_methods))


@method_decorator(gzip_page, name="dispatch")
class OpenApiView(ApiView, SpectacularJSONAPIView):
    """/openapi.json, through the same pipeline (a token counts against the limit; JSON-P works).

    Compressed when the client accepts it (issue 23: 2.2 MB of JSON, about 150 KB gzipped, loaded by
    every /docs/ page). The document holds no secret, so compression leaks nothing (BREACH).

    One document per wire version (apps.core.wire): `?version=thingiverse`, else the request's version
    (the Thingyard-Version header, the token's app), else `spec`. An unknown version is 400."""

    @extend_schema(exclude=True)  # the document does not list itself (as drf-spectacular's view)
    def get(self, request, *args, **kwargs):
        named = request.query_params.get("version")
        self.api_version = versions.checked(named) if named else versions.of(request)
        return super().get(request, *args, **kwargs)


class SwaggerUiView(ApiView, SpectacularSwaggerView):
    """/docs/: Swagger UI on the document (the swagger-ui-dist npm package, settings.NODE_STATIC_FILES).

    "Authorize" runs the authorization-code flow with PKCE (SPECTACULAR_SETTINGS' oauth2 config) and
    brings the user back to /docs/oauth2-redirect.html on the host the page was opened on: that exact
    URL is what a developer registers as their app's callback URL.
    """

    template_name = "core/swagger_ui.html"  # lang, a main landmark and our contrast overrides (issue 26)

    @extend_schema(exclude=True)
    def get(self, request, *args, **kwargs):
        versions.checked(request.query_params.get("version"))  # /docs/?version=<v>: that version's document
        response = super().get(request, *args, **kwargs)
        ui_settings = json.loads(response.data["settings"])
        ui_settings["oauth2RedirectUrl"] = request.build_absolute_uri(SWAGGER_OAUTH2_REDIRECT_PATH)
        response.data["settings"] = json.dumps(ui_settings, indent=2)
        # drf-spectacular relaxes the opener policy to `unsafe-none` here; the consent page and the
        # redirect page keep Django's `same-origin`, and a popup whose policy differs from its opener's
        # loses `window.opener`, so the redirect page could never hand the code back. Same policy on all
        # three (one origin): the popup stays connected and the page keeps the stricter policy.
        response["Cross-Origin-Opener-Policy"] = "same-origin"
        return response

    # Swagger UI's files through the static files storage (issue 23): their hashed, compressed, immutable
    # names once collected (production, the quick start), instead of drf-spectacular's fixed prefix.
    @staticmethod
    def _swagger_ui_resource(filename):
        return static(f"vendor/swagger-ui/{filename}")

    @staticmethod
    def _swagger_ui_favicon():
        return static("vendor/swagger-ui/favicon-32x32.png")


SWAGGER_OAUTH2_REDIRECT_PATH = "/docs/oauth2-redirect.html"
# The page Swagger UI's OAuth popup lands on, and the script it loads (relative to it), as the npm
# package ships them; served under /docs/ so the redirect page has the Swagger page's origin and path.
_SWAGGER_REDIRECT_FILES = {
    "oauth2-redirect.html": "text/html; charset=utf-8",
    "oauth2-redirect.js": "text/javascript; charset=utf-8",
}


@cache
def _swagger_file(name: str) -> bytes:
    path = f"vendor/swagger-ui/{name}"
    if staticfiles_storage.exists(path):  # collected (production)
        with staticfiles_storage.open(path) as handle:
            return handle.read()
    found = finders.find(path)  # straight from node_modules (quick start, tests)
    if not found:
        raise Http404
    with open(found, "rb") as handle:
        return handle.read()


@require_safe
def swagger_oauth2_redirect(request, name: str):
    """GET /docs/oauth2-redirect.html (and its .js): Swagger UI's OAuth callback page."""
    if name not in _SWAGGER_REDIRECT_FILES:
        raise Http404
    response = HttpResponse(_swagger_file(name), content_type=_SWAGGER_REDIRECT_FILES[name])
    response["Cache-Control"] = "no-store"  # the URL carries the authorization code
    response["Referrer-Policy"] = "no-referrer"
    return response


# --- Django-level error handlers (config/urls.py) ----------------------------------------------------


def json_error(status: int, message: str, error_type: str, headers: dict | None = None) -> HttpResponse:
    """docs/decisions.md's error body outside DRF (middleware, Django's error handlers)."""
    body = error_body(status, message, error_type)
    response = HttpResponse(json.dumps(body), status=status, content_type="application/json", headers=headers)
    response["X-Error"] = x_error_header(body["error"])
    return response


def not_found(request, exception=None):
    if _is_site_page(request) and "application/json" not in request.headers.get("Accept", ""):
        return HttpResponse(render_to_string("404.html", request=request), status=404)
    return json_error(404, "Not Found", "NOT_FOUND")


def _is_site_page(request) -> bool:
    match = getattr(request, "resolver_match", None)
    if match is None:
        return False  # no route at all: the API's answer (OptionalTrailingSlashMiddleware)
    view_class = getattr(match.func, "cls", None)
    return not (isinstance(view_class, type) and issubclass(view_class, APIView))


def server_error(request):
    # Django calls handler500 inside its `except` block, so the exception is still at hand: an outage
    # of the database or the broker outside a DRF view (a middleware, the OAuth endpoints, the site's
    # pages) is a 503 with Retry-After as inside one, never a 500.
    unavailable = service_unavailable_from(sys.exc_info()[1])
    if unavailable is not None:
        service_unavailable_log(request, sys.exc_info()[1])
        retry = {"Retry-After": str(unavailable.retry_after)}
        return json_error(503, unavailable.message, unavailable.error_type, headers=retry)
    if _is_site_page(request) and "text/html" in request.headers.get("Accept", ""):
        # A browser on a site page: the site's own page (issue 23); API and OAuth clients keep the JSON
        # body. The page stands alone, without the site's layout: that layout reads the session and the
        # user, which may be what failed.
        return HttpResponse(render_to_string("500.html"), status=500)
    return json_error(500, "Internal Server Error", "INTERNAL_ERROR")


def bad_request(request, exception=None):
    return json_error(400, "Bad Request", "BAD_REQUEST")


def permission_denied(request, exception=None):
    return json_error(403, "Forbidden", "FORBIDDEN")
