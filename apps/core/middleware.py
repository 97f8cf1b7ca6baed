"""Path conventions every request shares (docs/decisions.md: Requests). The API's own pipeline (token, rate
limit, JSON-P) is the base view apps.core.views.ApiView."""
from django.urls import Resolver404, is_valid_path, resolve
from rest_framework.views import APIView

from apps.core.authentication import token_from_request
from apps.core.views import not_found


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
        if not is_valid_path(path, urlconf):
            toggled = _toggle_trailing_slash(path)
            if toggled is None or not is_valid_path(toggled, urlconf):
                return not_found(request)
            # A call with a token is an API call: an API path with a bad id (`/groups/AAA/`) must not
            # become a site page (`/groups/<slug>`); it is the API's 404. Browsers send no token.
            if token_from_request(request) is not None and not _is_api_path(toggled, urlconf):
                return not_found(request)
            request.path_info = toggled
            request.path = request.path.removesuffix(path) + toggled
        return self.get_response(request)


def _is_api_path(path: str, urlconf) -> bool:
    try:
        match = resolve(path, urlconf)
    except Resolver404:
        return False
    view_class = getattr(match.func, "cls", None)
    return isinstance(view_class, type) and issubclass(view_class, APIView)


def _toggle_trailing_slash(path: str) -> str | None:
    if path == "/":
        return None
    return path[:-1] if path.endswith("/") else path + "/"
