"""Path conventions every request shares (docs/decisions.md: Requests). The API's own pipeline (token, rate
limit, JSON-P) is the base view apps.core.pipeline.views.ApiView."""
import re

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import RequestDataTooBig
from django.http import QueryDict
from django.middleware.csrf import CsrfViewMiddleware
from django.urls import Resolver404, resolve
from django.utils.module_loading import import_string
from rest_framework.views import APIView

from apps.core.pipeline.authentication import token_from_request
from apps.core.pipeline.views import json_error, not_found
from apps.core.pipeline.wsgi import RESOLVED_ATTRIBUTE

NUL_MESSAGE = "The request contains a NUL character, which no text field or path parameter accepts"
# A JSON `\u0000` escape: preceded by an even number of backslashes (an odd run would escape the
# backslash of `\u` itself, making it plain text).
_JSON_NUL_ESCAPE = re.compile(rb"(?<!\\)(?:\\\\)*\\u0000")


class RejectNulMiddleware:
    """docs/security.md (issue 14, finding 3): a NUL character anywhere in the path, the query string or a
    form or JSON body is a 400 with the error body, before any view, form or SQL driver sees it.

    PostgreSQL text cannot hold NUL: left alone, a NUL in a path parameter (`/users/%00/`), a query
    parameter or an OAuth parameter reached the driver as a DataError, a 500. Multipart bodies are left
    to the forms and serializers (Django's and DRF's CharField refuse NUL already), and a body too
    large to buffer to the view's own 413.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if _request_has_nul(request):
            return json_error(400, NUL_MESSAGE, "INVALID_CHARACTER")
        return self.get_response(request)


def _request_has_nul(request) -> bool:
    if "\x00" in request.path_info or "\x00" in request.path:
        return True
    if _any_nul(request.GET):
        return True
    if request.method in ("GET", "HEAD", "OPTIONS"):
        return False
    content_type = (request.content_type or "").lower()
    if content_type.startswith("multipart/"):
        return False
    try:
        body = request.body
    except RequestDataTooBig:
        return False
    if b"\x00" in body:
        return True
    stripped = body.lstrip()
    if "json" in content_type or stripped[:1] in (b"{", b"["):
        return _JSON_NUL_ESCAPE.search(body) is not None
    return b"%00" in body and _any_nul(QueryDict(body, encoding=request.encoding or "utf-8"))


def _any_nul(values) -> bool:
    return any("\x00" in key or any("\x00" in value for value in items) for key, items in values.lists())


class OptionalTrailingSlashMiddleware:
    """Serve every path with and without its trailing slash, by rewriting the path, never by redirecting.

    docs/decisions.md (compat): clients call paths in both forms, and a redirect would turn their POST into a
    GET. A path that resolves in neither form is answered here with the JSON 404, so Django's HTML
    technical 404 (DEBUG) never shows.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        urlconf = getattr(request, "urlconf", None)
        path = request.path_info
        match = _match(path, urlconf)
        if match is None:
            toggled = _toggle_trailing_slash(path)
            match = _match(toggled, urlconf) if toggled is not None else None
            if match is None:
                return not_found(request)
            # A call with a token is an API call: an API path with a bad id (`/groups/AAA/`) must not
            # become a site page (`/groups/<slug>`); it is the API's 404. Browsers send no token.
            if token_from_request(request) is not None and not _is_api_view(match):
                return not_found(request)
            request.path_info = toggled
            request.path = request.path.removesuffix(path) + toggled
        # PageMiddleware reads this: the path is answered by an API view (resolved once, here).
        request.thingyard_api_view = _is_api_view(match)
        if urlconf is None:
            setattr(request, RESOLVED_ATTRIBUTE, (request.path_info, match))  # the handler's (apps.core.pipeline.wsgi)
        return self.get_response(request)


class PageMiddleware:
    """The middleware only pages need (sessions, CSRF, authentication by session, messages), skipped for
    an API call that carries a token and no session cookie (issue 17: the API path pays for none of it).

    Such a call is authenticated by its token alone (apps.core.pipeline.authentication), DRF's views are exempt
    from Django's CSRF check, and nothing in the API reads a session or messages: running these costs
    time and changes nothing on the wire. A request with a session cookie (the site's own pages and
    any API call a browser makes with its session) goes through all of them, as before; so does any
    path that is not an API view. Replaces, in MIDDLEWARE, the four it runs (in the same order).
    """

    WRAPPED = (
        "django.contrib.sessions.middleware.SessionMiddleware",
        "django.middleware.csrf.CsrfViewMiddleware",
        "django.contrib.auth.middleware.AuthenticationMiddleware",
        "django.contrib.messages.middleware.MessageMiddleware",
    )

    def __init__(self, get_response):
        self.get_response = get_response
        handler, self.csrf = get_response, None
        for path in reversed(self.WRAPPED):
            handler = import_string(path)(handler)
            if isinstance(handler, CsrfViewMiddleware):
                self.csrf = handler
        self.page_response = handler

    def __call__(self, request):
        if page_middleware_skipped(request):
            request.user = AnonymousUser()  # until the token's user (DRF sets it on authentication)
            return self.get_response(request)
        return self.page_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        # Django calls process_view on the middleware listed in MIDDLEWARE: the wrapped CSRF check's.
        if self.csrf is None or page_middleware_skipped(request):
            return None
        return self.csrf.process_view(request, view_func, view_args, view_kwargs)


def page_middleware_skipped(request) -> bool:
    """An API view called with a token and without a session cookie."""
    return (
        getattr(request, "thingyard_api_view", False)
        and settings.SESSION_COOKIE_NAME not in request.COOKIES
        and token_from_request(request) is not None
    )


def _match(path: str, urlconf):
    try:
        return resolve(path, urlconf)
    except Resolver404:
        return None


def _is_api_view(match) -> bool:
    view_class = getattr(match.func, "cls", None)
    return isinstance(view_class, type) and issubclass(view_class, APIView)


def _toggle_trailing_slash(path: str) -> str | None:
    if path == "/":
        return None
    return path[:-1] if path.endswith("/") else path + "/"
