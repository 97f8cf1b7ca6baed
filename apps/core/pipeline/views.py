"""The base of every API view (the one request pipeline) and Django's error handlers.

Every API answer is docs/decisions.md's JSON body, never HTML: inside DRF through apps.core.pipeline.handlers,
outside it (unknown paths, crashes in middleware or site pages) through the handlers at the end of this
module. The one exception is a site page (a route that is not an API view) answering 404 to a browser:
a person gets the site's own "not found" page rather than the API's JSON body.
"""
import hashlib
import json
import sys
from collections.abc import Callable
from functools import cache, partial

from django.contrib.staticfiles import finders
from django.core.cache import cache as default_cache
from django.contrib.staticfiles.storage import staticfiles_storage
from django.core.signals import setting_changed
from django.dispatch import receiver
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
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.domain.exceptions import InsufficientScope
from apps.core.pipeline.handlers import error_body, service_unavailable_from, service_unavailable_log, x_error_header
from apps.core.pipeline.permissions import WRITE_SCOPE, scope_allows_write
from apps.core.pipeline.renderers import Rendered, render
from apps.core.pipeline.jsonp import INVALID_CALLBACK_MESSAGE, jsonp_callback_is_valid, jsonp_callback_of, jsonp_wrap
from apps.core.pipeline.ratelimit import (
    RATE_LIMIT_COUNTED_ATTRIBUTE,
    RateLimitState,
    rate_limit_hit,
    rate_limit_hit_reading,
    rate_limit_key,
)
from apps.core.pipeline.statuses import OK_BODY, success_status_apply
from apps.core.pipeline import batch, versions, wire


class ApiView(APIView):
    """Every API endpoint derives from this: one pipeline, each concern in one place.

    0. JSON-P: a GET with a bad `callback` is refused before anything runs (no token lookup either).
    1. Authentication (REST_FRAMEWORK's authentication class, apps.oauth): no token, or an unusable one.
    2. The rate limit (spec §8, docs/decisions.md: Rate limit): every authenticated request counts once, per
       (application, user); over the limit is a 429, whatever the permissions would have said.
    3. Permissions (IsTokenUser by default): 401 anonymous, 403 for an app's read-only token; then the
       token's scope: an unsafe method needs `write` (403 INSUFFICIENT_SCOPE, docs/decisions.md: Scopes).
    4. The handler. On the way out, a success takes the status the wire carries (apps.core.pipeline.statuses:
       200 for any 2xx but 202), every answer after authentication, errors included, carries the
       rate-limit headers, and a JSON-P GET's JSON body is wrapped as JavaScript.
    5. Every answer is `Cache-Control: private, no-store` with `Vary: Authorization` (RFC 6750 §5.3) and
       `Thingyard-Version` (the wire version a request may name): a
       body may hold the caller's own data (`/users/me` has the e-mail address), and a token in the
       query string must not make a shared cache keep it (docs/security.md, issue 14 finding 10).
    6. Conditional reads (issue 24): a GET's 200 carries a strong ETag (the view's own, a Thing's version
       with the wire version and the release, else the body's digest) and is a 304 without a body when
       If-None-Match names it.

    The cache is a detail of this pipeline, never a path beside it (issue 24). A view whose GET may be
    answered from the cache names the entries it needs (`cache_keys`); the authentication reads them in
    the same Redis round trip as the token's cached row and the rate-limit count (apps.oauth.fastpath),
    and the handler takes them with `cached_values` (one MGET when they were not read with the token). A
    kept body is bytes rendered by the one renderer (apps.core.pipeline.renderers); handed back as `Rendered`, it
    goes through the same authentication, checks and headers as a body built fresh.
    """

    rate_limit: RateLimitState | None = None
    jsonp_callback: str | None = None
    # cache key → value, read by the authentication in its round trip (apps.oauth.fastpath)
    prefetched: dict | None = None
    # Whether a GET's 200 gets the body's digest as its ETag when the view set none (6. above).
    conditional_get = True
    # The view's first statement as the authentication read it with the token's row (read_with_token).
    with_token = None

    def read_with_token(self, request, **kwargs):
        """The view's first statement (apps.core.db.compiled.ReadWithToken) for a GET, read in the same
        statement as the caller's token row when the authentication reads that row from the database;
        None: none. The handler finds it as `self.with_token`, its rows there only if it was read."""
        return None

    def cache_keys(self, request, **kwargs) -> list[str] | None:
        """The cache entries this GET may be answered from (None: none), read with the token's row."""
        return None

    def cached_values(self, keys: list[str]) -> list:
        """The cache's values of `keys` (None: absent), in order: as the authentication read them with
        the token's row when it did, else in one MGET (a Redis outage reads as a miss: apps.core.cache)."""
        found = self.prefetched
        if found is not None and all(key in found for key in keys):
            return [found[key] for key in keys]
        if not keys:
            return []
        got = default_cache.get_many(keys)
        return [got.get(key) for key in keys]

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
        # The wire version (apps.core.pipeline.versions): the header, else the token's app's, else `spec`.
        versions.resolve(request, getattr(request.auth, "application", None))
        self.check_rate_limit(request)
        self.check_permissions(request)
        self.check_scope(request)

    def perform_content_negotiation(self, request, force=False):
        # The usual request names no media type or only JSON, and there is one renderer: DRF's answer
        # is that renderer and its own media type, without parsing the header (a first read's cost).
        # Anything else (another Accept, `?format=`, a view with its own renderers) is DRF's to decide.
        accept = request.META.get("HTTP_ACCEPT")
        if (accept is None or accept in _PLAIN_ACCEPTS) and len(self.renderer_classes) == 1 \
                and not self.format_kwarg and "format" not in request._request.GET:
            renderer = self.renderer_classes[0]()
            return renderer, renderer.media_type
        return super().perform_content_negotiation(request, force)

    def check_scope(self, request) -> None:
        """docs/security.md (issue 22, finding 1): every unsafe method of every API view needs a token
        with the `write` scope, reads answered from the cache included (they go through this pipeline)."""
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
        if counted is not None and counted[0] == key:
            self.rate_limit = counted[1]
        elif self.prefetched is None and request.method == "GET":
            # The token's row was not read with the view's entries (apps.oauth.fastpath): they are read
            # with the count instead, one round trip for both (cached_values finds them).
            self.rate_limit, found = rate_limit_hit_reading(key, self.cache_keys(request, **self.kwargs) or [])
            if found is not None:
                self.prefetched = found
        else:
            self.rate_limit = rate_limit_hit(key)
        if not self.rate_limit.allowed:
            self.throttled(request, self.rate_limit.retry_after())

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        if response.status_code == 204 and isinstance(response, Response) and wire.has(versions.of(request), "NoBodyOk"):
            response.data = dict(OK_BODY)  # before the 200 below: the live wire's 'ok' object
        success_status_apply(response)
        if self.rate_limit is not None:
            for name, value in self.rate_limit.headers().items():
                response[name] = value
        if self.jsonp_callback is not None:
            jsonp_wrap(response, self.jsonp_callback)
        if not response.has_header("Cache-Control"):
            response["Cache-Control"] = "private, no-store"
        patch_vary_headers(response, _VARY)
        versions.answer_header(response, request)
        if isinstance(getattr(response, "data", None), Rendered) and response.data.from_cache:
            response.thingyard_from_cache = True  # type: ignore[attr-defined]  # what tests and logs read
        if request.method in ("GET", "HEAD") and response.status_code in (200, 304):
            self._conditional(request, response)
        response._resource_closers.append(partial(_release, self, request, response))
        return response

    def _conditional(self, request, response) -> None:
        """6. above: the ETag of a GET's answer, and 304 when the client's copy is current."""
        if self.jsonp_callback is not None:
            if response.has_header("ETag"):
                del response["ETag"]  # a script, not the resource: no tag of the resource's (a Thing's)
            return
        etag = response.get("ETag")
        if etag is None and response.status_code == 200 and self.conditional_get:
            if hasattr(response, "render") and not response.is_rendered:
                response.render()
            if not response.get("Content-Type", "").startswith("application/json"):
                return
            etag = body_etag(response.content)
            response["ETag"] = etag
        if etag is not None and response.status_code == 200 and etag_in(
            request.headers.get("If-None-Match"), etag, weak=True
        ):
            response.status_code = 304
            if hasattr(response, "render") and not response.is_rendered:
                response.data = None
            else:
                response.content = b""
            if response.has_header("Content-Type"):
                del response["Content-Type"]


_PLAIN_ACCEPTS = frozenset({"*/*", "application/json"})
# What an answer depends on besides its URL: the token (the viewer, the app's wire version) and the wire
# version a request names in its header.
_VARY = ("Authorization", versions.HEADER)


def _release(view, request, response) -> None:
    """Break the reference cycles a request leaves once its answer is sent (the response's close()).

    DRF points the view and its Request at each other (`view.request`, `request.parser_context["view"]`),
    the response at both (`renderer_context`), and a serializer at its fields and back (`parent`). All of a
    request's objects reachable from those cycles (the page's model instances, the token's, the body
    before rendering) outlived it until Python's cycle collector found them: on a list page about 340
    objects a request, and the collections that traverse them cost about 5 % of its CPU (issue 24). With
    the cycles broken, reference counting frees them when the server drops the response.
    """
    view.__dict__.clear()
    if isinstance(request, Request):
        request.parser_context = {}
    response.renderer_context = {}
    serializer = getattr(getattr(response, "data", None), "serializer", None)
    if serializer is not None:
        serializer.__dict__.clear()


def body_etag(body: bytes) -> str:
    """A strong ETag of a rendered body (issue 24): the same bytes, the same tag, whoever built them."""
    return '"' + hashlib.blake2b(body, digest_size=16).hexdigest() + '"'


def etag_in(header: str | None, etag: str, *, weak: bool, key: Callable[[str], object] | None = None) -> bool:
    """Whether an If-None-Match (`weak`: weak comparison, RFC 9110 §13.1.2) or If-Match (strong
    comparison, §13.1.1) header names `etag`; `*` names any current representation. `key`: the part of a
    tag that must match (default: all of it)."""
    if not header:
        return False
    wanted = etag if key is None else key(etag)
    for candidate in header.split(","):
        candidate = candidate.strip()
        if candidate == "*":
            return True
        if candidate.startswith("W/"):
            if not weak:
                continue
            candidate = candidate[2:]
        if (candidate if key is None else key(candidate)) == wanted:
            return True
    return False


@method_decorator(gzip_page, name="dispatch")
class OpenApiView(ApiView, SpectacularJSONAPIView):
    """/openapi.json, through the same pipeline (a token counts against the limit; JSON-P works).

    Compressed when the client accepts it (issue 23: 2.2 MB of JSON, about 150 KB gzipped, loaded by
    every /docs/ page). The document holds no secret, so compression leaks nothing (BREACH).

    One document per wire version (apps.core.pipeline.wire): `?version=thingiverse`, else the request's version
    (the Thingyard-Version header, the token's app), else `spec`. An unknown version is 400."""

    @extend_schema(exclude=True)  # the document does not list itself (as drf-spectacular's view)
    def get(self, request, *args, **kwargs):
        named = request.query_params.get("version")
        self.api_version = versions.checked(named) if named else versions.of(request)
        return super().get(request, *args, **kwargs)

    def _get_schema_response(self, request):
        """drf-spectacular's answer, with the document generated once per process for each wire version
        (and host, scheme and `lang`, which it may show): generating it took 0.4-0.6 s of CPU on every
        request to this public URL. The code and settings it is built from do not change while a process
        runs; a test that overrides a setting empties the store (`setting_changed`)."""
        version = self.api_version or request.version or self._get_version_parameter(request)
        key = (version, request.scheme, request.get_host(), request.GET.get("lang"))
        document = _DOCUMENTS.get(key)
        if document is None:
            generator = self.generator_class(urlconf=self.urlconf, api_version=version, patterns=self.patterns)
            document = generator.get_schema(request=request, public=self.serve_public)
            if len(_DOCUMENTS) < _DOCUMENTS_KEPT:  # hosts are ALLOWED_HOSTS' only; a bound all the same
                _DOCUMENTS[key] = document
        return Response(
            data=document,
            headers={"Content-Disposition": f'inline; filename="{self._get_filename(request, version)}"'},
        )


_DOCUMENTS: dict[tuple, dict] = {}
_DOCUMENTS_KEPT = 16


@receiver(setting_changed)
def _documents_forget(**kwargs) -> None:
    _DOCUMENTS.clear()


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
    """docs/decisions.md's error body outside DRF (middleware, Django's error handlers), rendered as every
    other API answer is (compact UTF-8: the same bytes as DRF's error for the same error)."""
    body = error_body(status, message, error_type)
    response = HttpResponse(render(body), status=status, content_type="application/json", headers=headers)
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
    batch.discard()  # what the failed answer asked for is never shown (apps.core.pipeline.batch)
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
