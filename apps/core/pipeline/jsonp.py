"""JSON-P (docs/decisions.md: JSON-P and CORS): any API GET takes `callback` and answers it as JavaScript.

Applied by the base API view (apps.core.pipeline.views.ApiView), never to the site's pages.
"""
import re

# docs/decisions.md: JSON-P: letters, digits, `_`, `$`, `.`, at most 64 characters.
JSONP_CALLBACK = re.compile(r"[A-Za-z0-9_$.]{1,64}")
INVALID_CALLBACK_MESSAGE = "Invalid callback: use 1 to 64 letters, digits, '_', '$' or '.'"


def jsonp_callback_of(request) -> str | None:
    """The `callback` of a GET (a Django request), valid or not; None when JSON-P is not asked for."""
    if request.method != "GET" or "callback" not in request.GET:
        return None
    return request.GET["callback"]


def jsonp_callback_is_valid(callback: str) -> bool:
    return JSONP_CALLBACK.fullmatch(callback) is not None


def jsonp_wrap(response, callback: str) -> None:
    """Wrap a JSON response's body as `/**/callback(<json>);`, once it is rendered."""
    if hasattr(response, "add_post_render_callback") and not response.is_rendered:
        response.add_post_render_callback(lambda rendered: _wrap(rendered, callback))
    else:
        _wrap(response, callback)


def _wrap(response, callback: str) -> None:
    if not _is_json(response):
        return
    # `/**/` keeps the body from starting with attacker-chosen bytes (the Rosetta Flash defence);
    # nosniff stops a browser from reading the script as anything else.
    response.content = b"/**/" + callback.encode() + b"(" + response.content + b");"
    response["Content-Type"] = "application/javascript; charset=utf-8"
    response["X-Content-Type-Options"] = "nosniff"


def _is_json(response) -> bool:
    content_type = response.get("Content-Type", "").split(";")[0].strip()
    return content_type == "application/json" and not response.streaming
