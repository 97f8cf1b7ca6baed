"""Domain exceptions. Services raise these; apps.core.pipeline.handlers renders every one as docs/decisions.md's body.

Never raise DRF exceptions from services: views and the exception handler translate.
"""


class DomainError(Exception):
    status_code = 400
    error_type = "BAD_REQUEST"
    default_message = "Bad Request"

    def __init__(self, message: str | None = None, *, errors=None, error_type: str | None = None):
        self.message = message or self.default_message
        self.errors = errors  # dict field -> [messages] (validation) or list of reasons (publish)
        if error_type:
            self.error_type = error_type
        super().__init__(self.message)


class ValidationFailed(DomainError):
    """400 with `errors: {field: [messages]}`."""

    error_type = "VALIDATION_FAILED"
    default_message = "Validation Failed"


class RuleViolation(DomainError):
    """400: the request is well-formed but a domain rule forbids it (follow oneself, like own Thing …)."""

    error_type = "RULE_VIOLATION"


class NotAuthenticated(DomainError):
    status_code = 401
    error_type = "UNAUTHORIZED"
    default_message = "Unauthorized"


class PermissionDenied(DomainError):
    status_code = 403
    error_type = "FORBIDDEN"
    default_message = "Forbidden"


class InsufficientScope(PermissionDenied):
    """403 for a token whose scope lacks what the request needs (RFC 6750 §3.1, docs/decisions.md: Scopes);
    the answer names the scope in `WWW-Authenticate`."""

    error_type = "INSUFFICIENT_SCOPE"

    def __init__(self, scope: str, message: str | None = None, **kw):
        self.scope = scope
        super().__init__(message, **kw)

    @property
    def www_authenticate(self) -> str:
        return f'Bearer error="insufficient_scope", scope="{self.scope}"'


class NotFound(DomainError):
    status_code = 404
    error_type = "NOT_FOUND"
    default_message = "Not Found"


class Conflict(DomainError):
    status_code = 409
    error_type = "CONFLICT"
    default_message = "Conflict"


class PreconditionFailed(DomainError):
    """412: an `If-Match` names a version of the object that is no longer current (a lost update
    refused, issue 24)."""

    status_code = 412
    error_type = "PRECONDITION_FAILED"
    default_message = "Precondition Failed"


class RateLimited(DomainError):
    status_code = 429
    error_type = "RATE_LIMITED"
    default_message = "Rate limit exceeded"

    def __init__(self, message=None, *, retry_after: int = 0, **kw):
        self.retry_after = retry_after
        super().__init__(message, **kw)


class ServiceUnavailable(DomainError):
    """503 with `Retry-After`: a backing service (database, object store, queue) cannot be reached now.

    The request changed nothing; the same request may succeed after `retry_after` seconds.
    """

    status_code = 503
    error_type = "SERVICE_UNAVAILABLE"
    default_message = "Service temporarily unavailable; try again shortly."

    def __init__(self, message=None, *, retry_after: int = 5, **kw):
        self.retry_after = retry_after
        super().__init__(message, **kw)


# docs/decisions.md: the short reasons clients compare, by status.
SHORT_REASONS = {401: "Unauthorized", 403: "Forbidden", 404: "Not Found"}
