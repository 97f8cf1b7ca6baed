"""The success-status policy of the API (docs/decisions.md: Status codes of success, compat).

The original API answered `200 OK` to every successful call, and its existing clients treat any other
2xx as an error. So the API's response path (apps.core.pipeline.views.ApiView.finalize_response, never a view)
turns every success into a 200: a view may
say what happened in HTTP's own terms (`201` for a create, `204` for a "no body" delete) and the wire
answer is `200`, with the new object, or with an empty body. The OpenAPI document applies the same
function (apps.core.pipeline.schema), so it documents what the wire carries.

Kept as they are: `202` (package-url while the ZIP is being built, with `Retry-After`: the client must
poll again, which a 200 would hide) and every redirect (the download's 302; the object store's 303 is
not ours). Errors are untouched.
"""

KEPT_SUCCESS_STATUSES = frozenset({200, 202})
# How the OpenAPI document describes a success the wire answers with no body (a view's 204).
NO_BODY_DESCRIPTION = "Success, with an empty body."
# The 'ok' object (docs/decisions.md): the body of many writes (apps.core.pipeline.api.ok), and of a success
# with no body in a wire version declaring "NoBodyOk" (apps.core.pipeline.wire).
OK_BODY = {"ok": True}


def wire_success_status(status: int) -> int:
    """The status the wire carries for a view's `status`: 200 for any 2xx but the kept ones."""
    if 200 <= status < 300 and status not in KEPT_SUCCESS_STATUSES:
        return 200
    return status


def success_status_apply(response) -> None:
    """Rewrite a rendered or unrendered API response's status in place (see the module docstring)."""
    status = wire_success_status(response.status_code)
    if status != response.status_code:
        response.status_code = status
        # Django derives the phrase from the status unless a view set one; ours never do.
        response._reason_phrase = None
