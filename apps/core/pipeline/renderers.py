"""The one place an API body becomes bytes (issue 24: one read pipeline).

Every API view renders through `ApiJSONRenderer` (REST_FRAMEWORK's DEFAULT_RENDERER_CLASSES): DRF's
JSONRenderer, which also passes through a body already rendered by it (`Rendered`), such as a Thing's
body or a list page kept in the cache. A kept body was rendered here when it was built, so a read
answered from the cache and one built fresh carry the same bytes; the headers of both are decided once,
by apps.core.pipeline.views.ApiView.finalize_response.

The bytes come from orjson (issue 24, first reads): DRF's own output, written by a C encoder that takes
the Python objects directly (a 30-Thing list page: about 0.2 ms with `json.dumps` and DRF's encoder class,
a tenth of it here). What orjson does not encode itself goes through DRF's encoder's `default`, so every
value DRF can render renders the same: datetimes (passed through, DRF writes them with `Z`), decimals,
lazy strings, bytes, querysets. The rest is DRF's `render` as it stands: an indented body (`Accept:
application/json; indent=4`), settings that ask for ASCII or loose JSON, and any value orjson refuses
(an integer over 64 bits). docs/decisions.md ("JSON bodies by orjson") lists the two differences: a float
that is not a number (NaN, infinity) is `null` rather than a server error, and a float under 1e-4 is the
same number in orjson's shorter text (`1.5e-7`, `0.000015` where `json` writes `1.5e-07`, `1.5e-05`).
"""
from dataclasses import dataclass, field

import orjson
from rest_framework.renderers import JSONRenderer
from rest_framework.utils.encoders import JSONEncoder

from apps.core.pipeline import batch


@dataclass(frozen=True)
class Rendered:
    """A body already rendered by `ApiJSONRenderer` (bytes), with the headers it needs (a page's Link,
    an ETag); `from_cache`: read from the cache (the pipeline marks the response so: tests, logs)."""

    body: bytes
    headers: dict = field(default_factory=dict)
    from_cache: bool = False


_ORJSON_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_NON_STR_KEYS
# U+2028 and U+2029 in UTF-8: DRF escapes both so that a body is also valid JavaScript (JSON-P).
_LINE_SEPARATORS = (b"\xe2\x80\xa8", b"\xe2\x80\xa9")


class ApiJSONEncoder(JSONEncoder):
    """DRF's encoder, which also writes a value read once for the whole answer (batch.Slot) as its value."""

    def default(self, obj):
        if isinstance(obj, batch.Slot):
            return obj.value
        return super().default(obj)


class ApiJSONRenderer(JSONRenderer):
    encoder_class = ApiJSONEncoder

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if isinstance(data, Rendered):
            return data.body
        if data is None:
            return b""
        batch.settle()  # values read once for the whole answer (apps.core.pipeline.batch)
        if not self._plain or (accepted_media_type and "indent" in accepted_media_type) or (
            renderer_context and renderer_context.get("indent") is not None
        ):
            return super().render(data, accepted_media_type, renderer_context)
        try:
            body = orjson.dumps(data, default=self.encoder_class().default, option=_ORJSON_OPTIONS)
        except orjson.JSONEncodeError:
            return super().render(data, accepted_media_type, renderer_context)
        if _LINE_SEPARATORS[0] in body or _LINE_SEPARATORS[1] in body:
            body = body.replace(_LINE_SEPARATORS[0], b"\\u2028").replace(_LINE_SEPARATORS[1], b"\\u2029")
        return body

    @property
    def _plain(self) -> bool:
        """DRF's settings ask for what orjson writes: UTF-8 as is, compact, strict."""
        return not self.ensure_ascii and self.compact and self.strict


RENDERER = ApiJSONRenderer()


def render(data) -> bytes:
    """`data` as every API answer renders it (what the cache keeps)."""
    return RENDERER.render(data)
