"""Helpers every API view uses: input parsing, the 'ok' body, pagination, absolute URLs.

Views stay thin: parse → selector → one service call → serialise (STYLE.md).
"""
import json
from collections.abc import Callable, Mapping
from urllib.parse import urlsplit

from django.conf import settings
from django.http import QueryDict
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.utils.encoders import JSONEncoder

from apps.core.pipeline import versions, wire
from apps.core.domain.exceptions import NotFound, ValidationFailed
from apps.core.pipeline.handlers import _flatten_drf_detail
from apps.core.pipeline.pagination import LinkHeaderPagination, Total
from apps.core.pipeline.parsers import form_to_dict
from apps.core.pipeline.statuses import OK_BODY


# Every id is a PostgreSQL bigint (BigAutoField): a larger number in a request body or query names no
# row, and would make the database driver fail instead of the lookup returning nothing.
MAX_ID = 2**63 - 1


def ok() -> Response:
    """docs/decisions.md: the 'ok' object."""
    return Response(dict(OK_BODY))


def parse_input(serializer_class, request, *, partial: bool = False, context: dict | None = None) -> dict:
    """Validate request.data with an <Entity><Action>Input serializer; 400 VALIDATION_FAILED otherwise."""
    return validated(
        serializer_class(
            data=_request_fields(request), partial=partial, context={"request": request, **(context or {})}
        )
    )


def parse_patch(
    serializer_class,
    request,
    *,
    current: Mapping | Callable[[], Mapping],
    require: bool = False,
    context: dict | None = None,
) -> dict:
    """The round-trip-tolerant input of every PATCH of a readable object (docs/decisions.md: Requests).

    Clients of the original API GET an object, change a field, and PATCH back *every* field they read.
    `current` is the object as a GET shows it (the output serializer's data, or a callable giving it,
    called only when the body names a writable field). Of the body, only the fields that really change
    are validated and handed to the service:

    - a key the input serializer does not write (ids, URLs, counts, timestamps, `creator`, …) is ignored;
    - a value equal to what the GET shows is unchanged, so ignored: a license sent back as its display
      name, a `tags` sub-collection URL, a name that no longer passes today's rules, …;
    - a nested object where the GET shows one is read-only, so ignored;
    - a URL string given for a field that takes a list is the sub-collection's address, so ignored.

    `require=True` keeps the input's required fields required in the body as sent (PATCH
    /comments/{id}/ needs `body`), though an unchanged one is then not validated again.
    """
    data = _request_fields(request)
    writable = {name: field for name, field in serializer_class().fields.items() if not field.read_only}
    if require:
        missing = [name for name, field in writable.items() if field.required and name not in data]
        if missing:
            message = serializers.Field.default_error_messages["required"]
            raise ValidationFailed(f"{missing[0]}: {message}", errors={name: [message] for name in missing})
    shown = None
    changes = {}
    for name, value in data.items():
        field = writable.get(name)
        if field is None:
            continue
        if shown is None:
            shown = current() if callable(current) else current
        if name in shown and _round_trip_unchanged(field, value, shown[name]):
            continue
        changes[name] = value
    return validated(
        serializer_class(data=changes, partial=True, context={"request": request, **(context or {})})
    )


def _round_trip_unchanged(field, value, shown) -> bool:
    if _as_json(value) == _as_json(shown):
        return True
    if isinstance(value, dict) and isinstance(shown, dict) and not getattr(field, "writable_object", False):
        return True  # a nested object as read (a client may have refreshed its local copy of it)
    if isinstance(field, serializers.ListField) and isinstance(value, str):
        return urlsplit(value.strip()).scheme in ("http", "https")  # the sub-collection's URL
    return False


def _as_json(value) -> str:
    # JSON equality, not Python's: `1 == True` and `1 == 1.0` must not make a change look unchanged.
    return json.dumps(value, cls=JSONEncoder, sort_keys=True)


def _request_fields(request) -> dict:
    data = request.data
    if data is None:
        return {}
    if isinstance(data, QueryDict):
        # DRF answers an empty form-labelled body with an empty QueryDict before any parser runs.
        return form_to_dict(data)
    return data


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
    not_found_when_empty: bool = False, total_and_hits: bool = False, page_prepare=None,
    page_info: dict | None = None, empty_page_404_in_live_wire: bool = False, total: Total = None,
) -> Response:
    """A page of `queryset` as a JSON array, with the Link header (docs/decisions.md: Pagination).

    `not_found_when_empty`: an empty result is 404 instead (spec §7: a search that matches nothing).
    `total_and_hits`: the page as `{"total": <all matches>, "hits": [...]}` instead of the bare array,
    same paging and Link header (docs/decisions.md: Search shape, the modern form).
    `page_prepare(rows)`: what the page's rows need before serialising (returns the rows).
    `page_info`: filled with the page's `number` and `num_pages` (a caller keeping the page rendered).
    `empty_page_404_in_live_wire`: a page with no item is 404 too in the wire versions that declare
    "EmptyPage404" (apps.core.pipeline.wire: the live service's user and collection lists).
    `total`: the list's length when the caller knows it (LinkHeaderPagination.paginate_queryset).
    """
    paginator = LinkHeaderPagination()
    page = paginator.paginate_queryset(queryset, request, view=view, total=total)
    if not page and (
        not_found_when_empty or (empty_page_404_in_live_wire and wire.has(versions.of(request), "EmptyPage404"))
    ):
        raise NotFound()
    if page_prepare is not None:
        page = page_prepare(page)
    data = serializer_class(page, many=True, context={"request": request, **(context or {})}).data
    if total_and_hits:
        data = {"total": paginator.page.paginator.count, "hits": data}
    if page_info is not None:
        page_info.update(number=paginator.page.number, num_pages=paginator.page.paginator.num_pages)
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
