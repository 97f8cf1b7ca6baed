"""Conventions of the site's pages (session login, CSRF), shared by every app's pages module.

Pages act through the services directly, never through the REST API (which takes OAuth tokens only).
A write is a POST form that works without JavaScript (it redirects back with a message); the site's
scripts send the same POST with `Accept: application/json` and get JSON instead, so a like or an
upload never reloads the page.
"""

import functools
import json
import unicodedata

from django import forms
from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.utils.cache import add_never_cache_headers
from django.utils.http import url_has_allowed_host_and_scheme

from apps.core.domain.exceptions import DomainError
from apps.core.pipeline.pagination import CountCachingPaginator, Total
from apps.core.pipeline.views import json_error

PAGE_SIZE = 24


def wants_json(request) -> bool:
    """The site's scripts ask for JSON; a plain form submission does not."""
    return "application/json" in request.headers.get("Accept", "")


def next_path(request) -> str:
    """The POSTed (or queried) `next` when it is a path on this site, else "" (docs/security.md).

    The one place a page reads `next` (issue 22, finding 6): it must be an absolute path (`/…`, never
    `//host`, `/\\host`, a scheme, or a bare `foo` that Django's redirect() would try to reverse, a
    500) on this host (Django's url_has_allowed_host_and_scheme) with no control character (a newline
    in `Location` is a 500 too). Anything else: the caller's default.
    """
    target = request.POST.get("next") or request.GET.get("next") or ""
    if not target.startswith("/") or target.startswith(("//", "/\\")):
        return ""
    if any(unicodedata.category(character)[0] == "C" for character in target):
        return ""
    if not url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return ""
    return target


def no_store(response: HttpResponse) -> HttpResponse:
    """A page showing a credential (docs/security.md, issue 22 finding 9): no cache anywhere keeps it,
    HTTP/1.0 ones included (`Pragma`)."""
    add_never_cache_headers(response)
    response["Cache-Control"] = "no-store, no-cache, must-revalidate, private, max-age=0"
    response["Pragma"] = "no-cache"
    return response


def safe_next(request, default: str) -> str:
    """The POSTed (or queried) `next` when it is a path on this site (next_path), else `default`."""
    return next_path(request) or default


class SafeNextMixin:
    """For Django's RedirectURLMixin views (log-in, log-out): `next` read by next_path."""

    request: HttpRequest

    def get_redirect_url(self, request: HttpRequest | None = None) -> str:
        return next_path(request or self.request)


def done(request, *, message: str = "", data: dict | None = None, next_url: str):
    """A successful write: JSON for the site's scripts, else back to `next_url` with a message."""
    if wants_json(request):
        return JsonResponse({"ok": True, "message": message, **(data or {})})
    if message:
        messages.success(request, message)
    return redirect(safe_next(request, next_url))


def refused(request, exc: DomainError, *, next_url: str):
    """A write the services refused (400/403/404/429 with its message): JSON, or back with the message."""
    if wants_json(request):
        body = {"ok": False, "error": exc.message, "type": exc.error_type}
        if getattr(exc, "errors", None):
            body["errors"] = exc.errors
        return JsonResponse(body, status=exc.status_code)
    messages.error(request, exc.message)
    return redirect(safe_next(request, next_url))


def login_required_page(view):
    """login_required for pages the site's scripts call too: those get a JSON 401 rather than a
    redirect to the login page (which fetch() would follow and read as HTML)."""

    @functools.wraps(view)
    def wrapped(request, *args, **kwargs):
        if request.user.is_authenticated:
            return view(request, *args, **kwargs)
        if wants_json(request):
            return json_error(401, "Unauthorized", "UNAUTHORIZED")
        return redirect_to_login(request.get_full_path())

    return wrapped


def json_body(request) -> dict:
    """A fetch() JSON object body, or the form fields; anything else is no fields."""
    if request.content_type == "application/json":
        try:
            data = json.loads(request.body or b"{}")
        except (ValueError, UnicodeDecodeError, RecursionError):
            return {}
        return data if isinstance(data, dict) else {}
    return request.POST.dict()


def paginate(request, object_list, *, per_page: int = PAGE_SIZE, total: Total = None):
    """One page of `object_list` (the `page` query parameter: not a number is the first page, out of range
    the last, as Paginator.get_page picks): two queries for a queryset, its count and its slice. Counted as
    the API counts a list (apps.core.pipeline.pagination.list_total: a long list's total is cached), or
    `total` when the caller knows the list's length (a kept count) or needs it counted otherwise."""
    return CountCachingPaginator(object_list, per_page, total=total).get_page(request.GET.get("page"))


def page_number(request, total: int, *, per_page: int = PAGE_SIZE) -> int:
    """The number of the page `paginate` shows for this request, in a list of `total` items."""
    pages = max(1, -(-total // per_page))
    try:
        number = int(request.GET.get("page", ""))
    except ValueError:
        return 1
    return number if 1 <= number <= pages else pages


class LimitedCharField(forms.CharField):
    """A text field whose limit is stated, never enforced by cutting (issue 26): no `maxlength` attribute
    (a browser cuts a paste at it without a word); `data-max-length` instead, which site.js counts down
    under the field; the server refuses a longer text with an error that says by how much."""

    default_error_messages = {
        "max_length": "This is %(show_value)d characters long; the limit is %(limit_value)d. "
        "Shorten it: nothing was cut or saved.",
    }

    def widget_attrs(self, widget):
        attrs = super().widget_attrs(widget)
        if "maxlength" in attrs:
            attrs["data-max-length"] = attrs.pop("maxlength")
        return attrs


def no_content() -> HttpResponse:
    return HttpResponse(status=204)


def apply_errors(form: forms.Form, errors: dict | None) -> None:
    """Show a service's ValidationFailed field errors on the form."""
    for field, field_messages in (errors or {}).items():
        for message in field_messages:
            form.add_error(field if field in form.fields else None, message)
