"""One renderer for every API error (docs/decisions.md: Errors)."""
import logging
import math

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation
from django.db import InterfaceError as DatabaseInterfaceError
from django.db import OperationalError as DatabaseOperationalError
from django.http import Http404
from kombu.exceptions import OperationalError as BrokerOperationalError
from rest_framework import exceptions as drf
from rest_framework.response import Response
from rest_framework.views import set_rollback

from apps.core.pipeline import batch
from apps.core.domain.exceptions import SHORT_REASONS, DomainError, InsufficientScope, RateLimited, ServiceUnavailable

log = logging.getLogger(__name__)

_DRF_TYPES = {
    400: "BAD_REQUEST",
    401: "UNAUTHORIZED",
    403: "FORBIDDEN",
    404: "NOT_FOUND",
    405: "METHOD_NOT_ALLOWED",
    406: "NOT_ACCEPTABLE",
    413: "PAYLOAD_TOO_LARGE",
    415: "UNSUPPORTED_MEDIA_TYPE",
    429: "RATE_LIMITED",
}

# docs/reliability.md: a database restart takes seconds; a broker outage usually longer.
DATABASE_RETRY_AFTER_SECONDS = 5
BROKER_RETRY_AFTER_SECONDS = 30


def service_unavailable_from(exc) -> ServiceUnavailable | None:
    """The 503 a backing-service outage deserves (docs/decisions.md: never a 500 or an HTML page), else None.

    Django raises OperationalError/InterfaceError when PostgreSQL is down, restarting or dropped the
    connection (and for lock/serialization failures, which are retryable too); kombu raises its
    OperationalError when a task cannot be published. The request changed nothing that was committed.
    """
    if isinstance(exc, ServiceUnavailable):
        return exc
    if isinstance(exc, (DatabaseOperationalError, DatabaseInterfaceError)):
        return ServiceUnavailable(
            "The database is unavailable; try again shortly.", retry_after=DATABASE_RETRY_AFTER_SECONDS
        )
    if isinstance(exc, BrokerOperationalError):
        return ServiceUnavailable(
            "The task queue is unavailable; try again shortly.", retry_after=BROKER_RETRY_AFTER_SECONDS
        )
    return None


def service_unavailable_log(request, exc) -> None:
    # A warning, not an error with a traceback: during an outage every request lands here.
    log.warning("%s answered 503: %s: %s", getattr(request, "path", "?"), type(exc).__name__, exc)


def error_body(status: int, message: str | None, error_type: str, errors=None) -> dict:
    reason = SHORT_REASONS.get(status) or message or "Error"
    body = {"error": reason, "code": status, "type": error_type}
    if errors is not None:
        body["errors"] = errors
    return body


def x_error_header(reason: str) -> str:
    """The `X-Error` value (docs/decisions.md): the body's reason as printable ASCII on one line.

    A reason may quote client input; a newline would make Django refuse the header (a 500) and other
    bytes are not safe in every client's header parser, so both become `?`. The body keeps the original.
    """
    return "".join(ch if " " <= ch <= "~" else "?" for ch in reason)[:200]


def error_response(status: int, message: str | None, error_type: str, errors=None, headers=None) -> Response:
    body = error_body(status, message, error_type, errors)
    response = Response(body, status=status, headers=headers or {})
    response["X-Error"] = x_error_header(body["error"])
    if status == 401:
        response["WWW-Authenticate"] = "Bearer"
    return response


def _flatten_drf_detail(detail):
    """DRF's ValidationError detail → {field: [messages]}."""
    if isinstance(detail, dict):
        out = {}
        for field, value in detail.items():
            if isinstance(value, dict):
                for sub, msgs in _flatten_drf_detail(value).items():
                    out[f"{field}.{sub}"] = msgs
            elif isinstance(value, list):
                out[field] = [str(v) if not isinstance(v, (dict, list)) else str(v) for v in value]
            else:
                out[field] = [str(value)]
        return out
    if isinstance(detail, list):
        return {"non_field_errors": [str(v) for v in detail]}
    return {"non_field_errors": [str(detail)]}


def exception_handler(exc, context):
    """DRF's EXCEPTION_HANDLER: every exception raised in an API view becomes docs/decisions.md's body."""
    set_rollback()  # as DRF's own handler does: an error answer never commits a half-done request
    batch.discard()  # values the failed answer asked for are never shown (apps.core.pipeline.batch)
    if isinstance(exc, RateLimited):
        return error_response(429, exc.message, exc.error_type, headers={"Retry-After": str(exc.retry_after)})
    unavailable = service_unavailable_from(exc)
    if unavailable is not None:
        service_unavailable_log(context.get("request"), exc)
        retry = {"Retry-After": str(unavailable.retry_after)}
        return error_response(503, unavailable.message, unavailable.error_type, headers=retry)
    if isinstance(exc, InsufficientScope):
        return error_response(403, exc.message, exc.error_type, headers={"WWW-Authenticate": exc.www_authenticate})
    if isinstance(exc, DomainError):
        return error_response(exc.status_code, exc.message, exc.error_type, exc.errors)
    if isinstance(exc, Http404):
        return error_response(404, None, "NOT_FOUND")
    if isinstance(exc, DjangoPermissionDenied):
        return error_response(403, None, "FORBIDDEN")
    if isinstance(exc, RequestDataTooBig):
        return error_response(413, "Request body too large", "PAYLOAD_TOO_LARGE")
    if isinstance(exc, SuspiciousOperation):
        # docs/decisions.md: bad input is never a 500 (a too-many-fields form, a malformed multipart body …).
        return error_response(400, "Bad Request", "BAD_REQUEST")
    if isinstance(exc, drf.ValidationError):
        errors = _flatten_drf_detail(exc.detail)
        first = next(iter(errors.values()), ["Invalid input"])
        field = next(iter(errors), "")
        message = f"{field}: {first[0]}" if field and field != "non_field_errors" else first[0]
        return error_response(400, message, "VALIDATION_FAILED", errors)
    if isinstance(exc, drf.Throttled):
        # DRF sets Throttled.wait in __init__; djangorestframework-stubs does not declare it.
        wait = max(1, math.ceil(exc.wait or 0))  # type: ignore[attr-defined]
        message = f"API rate limit exceeded. Try again in {wait} seconds."
        return error_response(429, message, "RATE_LIMITED", headers={"Retry-After": str(wait)})
    if isinstance(exc, drf.APIException):
        return _api_exception_response(exc)
    # docs/decisions.md: never an HTML page, in DEBUG too; the traceback goes to the log instead.
    request = context.get("request")
    log.error("Unhandled exception in API view %s", getattr(request, "path", "?"), exc_info=exc)
    return error_response(500, "Internal Server Error", "INTERNAL_ERROR")


def _api_exception_response(exc: drf.APIException) -> Response:
    status = exc.status_code
    if isinstance(exc, (drf.NotAuthenticated, drf.AuthenticationFailed)):
        # DRF downgrades these to 403 on views without an authenticate header; a missing or bad token is
        # always 401 here (docs/decisions.md: Requests).
        status = 401
    # Our own APIException subclasses (e.g. the parser's MalformedJSON) name their type.
    error_type = getattr(exc, "error_type", None) or _DRF_TYPES.get(status, "ERROR")
    detail = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
    # MethodNotAllowed needs no Allow here: DRF's finalize_response puts Allow on every response.
    return error_response(status, str(detail), error_type)
