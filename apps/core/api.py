"""Helpers every API view uses: input parsing, the 'ok' body, pagination, absolute URLs.

Views stay thin: parse → selector → one service call → serialise (STYLE.md).
"""
from django.conf import settings
from django.http import QueryDict
from rest_framework.response import Response

from apps.core.exceptions import NotFound, ValidationFailed
from apps.core.handlers import _flatten_drf_detail
from apps.core.pagination import LinkHeaderPagination
from apps.core.parsers import form_to_dict


# Every id is a PostgreSQL bigint (BigAutoField): a larger number in a request body or query names no
# row, and would make the database driver fail instead of the lookup returning nothing.
MAX_ID = 2**63 - 1


def ok() -> Response:
    """docs/decisions.md: the 'ok' object."""
    return Response({"ok": True})


def parse_input(serializer_class, request, *, partial: bool = False, context: dict | None = None) -> dict:
    """Validate request.data with an <Entity><Action>Input serializer; 400 VALIDATION_FAILED otherwise."""
    data = request.data
    if data is None:
        data = {}
    elif isinstance(data, QueryDict):
        # DRF answers an empty form-labelled body with an empty QueryDict before any parser runs.
        data = form_to_dict(data)
    return validated(
        serializer_class(data=data, partial=partial, context={"request": request, **(context or {})})
    )


def validated(serializer) -> dict:
    """The serializer's validated data, or 400 VALIDATION_FAILED naming the first bad field."""
    if not serializer.is_valid():
        errors = _flatten_drf_detail(serializer.errors)
        field, messages = next(iter(errors.items()))
        message = f"{field}: {messages[0]}" if field != "non_field_errors" else messages[0]
        raise ValidationFailed(message, errors=errors)
    return serializer.validated_data


def paginated_response(
    request, queryset, serializer_class, *, view=None, context: dict | None = None,
    not_found_when_empty: bool = False,
) -> Response:
    """A page of `queryset` as a JSON array, with the Link header (docs/decisions.md: Pagination).

    `not_found_when_empty`: an empty result is 404 instead (spec §7: a search that matches nothing).
    """
    paginator = LinkHeaderPagination()
    page = paginator.paginate_queryset(queryset, request, view=view)
    if not page and not_found_when_empty:
        raise NotFound()
    data = serializer_class(page, many=True, context={"request": request, **(context or {})}).data
    return paginator.get_paginated_response(data)


def api_url(path: str) -> str:
    """Absolute URL of an API path under {base_url}."""
    return settings.API_BASE_URL + "/" + path.lstrip("/")


def site_url(path: str) -> str:
    """Absolute URL of a public site page under {site_url}."""
    return settings.SITE_URL + "/" + path.lstrip("/")


def auth_url(path: str) -> str:
    """Absolute URL under {auth_url} (the OAuth endpoints)."""
    return settings.AUTH_BASE_URL + "/" + path.lstrip("/")
