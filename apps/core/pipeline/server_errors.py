"""gunicorn's own error answers in docs/decisions.md's JSON body, never its HTML page (docs/decisions.md: Errors).

gunicorn answers some requests before Django sees them: a request line over `limit_request_line`, too
many or too large headers, a malformed request. Its answer is an HTML page; API clients (and the OpenAPI
document) expect the JSON error body with `X-Error`. gunicorn.conf.py calls `install()`: workers are
forked from the master, so they all write errors this way. No Django import here: gunicorn loads this
before any application code.
"""
import json

from gunicorn import util

SHORT_REASONS = {401: "Unauthorized", 403: "Forbidden", 404: "Not Found"}
ERROR_TYPES = {
    400: "BAD_REQUEST",
    403: "FORBIDDEN",
    431: "HEADERS_TOO_LARGE",
    500: "INTERNAL_ERROR",
    501: "NOT_IMPLEMENTED",
}


def write_json_error(sock, status_int, reason, mesg):
    """gunicorn.util.write_error's signature. `mesg` (which may echo request bytes) is not sent back."""
    error = SHORT_REASONS.get(status_int) or reason
    error_type = ERROR_TYPES.get(status_int, "BAD_REQUEST")
    # Compact, as the application renders every body (apps.core.pipeline.renderers).
    body = json.dumps({"error": error, "code": status_int, "type": error_type}, separators=(",", ":"))
    safe_reason = "".join(ch if " " <= ch <= "~" else "?" for ch in reason)
    head = (
        f"HTTP/1.1 {status_int} {safe_reason}\r\n"
        "Connection: close\r\n"
        "Content-Type: application/json\r\n"
        f"X-Error: {''.join(ch if ' ' <= ch <= '~' else '?' for ch in error)}\r\n"
        f"Content-Length: {len(body)}\r\n"
        "\r\n"
    )
    util.write_nonblock(sock, head.encode("latin1") + body.encode())


def install() -> None:
    util.write_error = write_json_error
