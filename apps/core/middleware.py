"""Path conventions every request shares (docs/decisions.md: Requests). The API's own pipeline (token, rate
limit, JSON-P) is the base view apps.core.views.ApiView."""
from django.urls import is_valid_path

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
            request.path_info = toggled
            request.path = request.path.removesuffix(path) + toggled
        return self.get_response(request)


def _toggle_trailing_slash(path: str) -> str | None:
    if path == "/":
        return None
    return path[:-1] if path.endswith("/") else path + "/"
