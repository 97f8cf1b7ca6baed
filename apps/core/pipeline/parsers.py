"""Request bodies as JSON whatever Content-Type says (docs/decisions.md: Requests, compat).

Existing clients send JSON labelled `application/x-www-form-urlencoded`, or with no content type at
all, and some send real form or multipart bodies. Every body becomes a plain dict: serializers then
see the same input however it was sent (a QueryDict would switch DRF to HTML-form semantics, where a
missing boolean reads as False).
"""
import io
import json

from django.http import QueryDict
from django.utils.datastructures import MultiValueDict
from rest_framework.exceptions import ParseError
from rest_framework.parsers import DataAndFiles, JSONParser, MultiPartParser


# JSON's own whitespace (RFC 8259): what LenientJSONParser trims before it decides a body is empty.
_JSON_WHITESPACE = b" \t\n\r"


class MalformedJSON(ParseError):
    error_type = "MALFORMED_JSON"


class InvalidBody(ParseError):
    error_type = "INVALID_BODY"


class LenientJSONParser(JSONParser):
    """The only parser of the API.

    `*/*` so DRF's negotiation picks it for any Content-Type, an empty one included. Subclassing
    JSONParser makes DRF hand over the buffered body, which keeps it readable for the multipart parser.
    """

    media_type = "*/*"

    def parse(self, stream, media_type=None, parser_context=None):
        body = stream.read() if stream is not None else b""
        content_type = media_type or ""  # with its parameters: multipart needs the boundary
        media_type = content_type.split(";")[0].strip().lower()
        # JSON's own whitespace (RFC 8259: space, tab, LF, CR), not every byte Python calls a space: a form
        # feed or a vertical tab alone is a body that is not JSON.
        stripped = body.strip(_JSON_WHITESPACE)
        # An empty body and the literal null mean "no fields" (docs/decisions.md: Requests).
        if not stripped or stripped == b"null":
            return {}
        try:
            value = json.loads(body, parse_constant=_reject_constant)
        except RecursionError:
            # docs/security.md (issue 14, finding 2): deep nesting exhausts the decoder's stack.
            raise MalformedJSON("Malformed JSON in request body: nested too deeply") from None
        except ValueError as exc:
            if _declares_json(media_type) or stripped[:1] in (b"{", b"["):
                raise MalformedJSON(f"Malformed JSON in request body: {_reason(exc)}") from exc
            return self._parse_form(body, content_type, parser_context)
        if not isinstance(value, dict):
            raise InvalidBody("Request body must be a JSON object")
        return value

    def _parse_form(self, body: bytes, content_type: str, parser_context) -> dict | DataAndFiles:
        encoding = (parser_context or {}).get("encoding") or "utf-8"
        if content_type.lower().startswith("multipart/form-data"):
            parsed = MultiPartParser().parse(io.BytesIO(body), content_type, parser_context)
            # The API takes no file bytes (spec §4.10: they go to the object store), so any file part
            # joins the fields rather than request.FILES.
            fields = form_to_dict(parsed.data)
            fields.update(form_to_dict(parsed.files))
            return DataAndFiles(fields, MultiValueDict())
        return form_to_dict(QueryDict(body, encoding=encoding))


def form_to_dict(values: MultiValueDict) -> dict:
    """A form as a plain dict: a repeated key, or a `key[]` one, becomes a list; a single key a string."""
    out: dict = {}
    for key, items in values.lists():
        if key.endswith("[]"):
            out.setdefault(key[:-2], []).extend(items)
        else:
            out[key] = items if len(items) > 1 else items[0]
    return out


def _declares_json(media_type: str) -> bool:
    return media_type == "application/json" or media_type.endswith("+json")


def _reject_constant(name: str):
    # Like DRF's STRICT_JSON: NaN and Infinity are not JSON.
    raise ValueError(f"{name} is not valid JSON")


def _reason(exc: ValueError) -> str:
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} (line {exc.lineno} column {exc.colno})"
    return str(exc)

