"""The one place an API body becomes bytes (issue 24: one read pipeline).

Every API view renders through `ApiJSONRenderer` (REST_FRAMEWORK's DEFAULT_RENDERER_CLASSES): DRF's
JSONRenderer, which also passes through a body already rendered by it (`Rendered`), such as a Thing's
body or a list page kept in the cache. A kept body was rendered here when it was built, so a read
answered from the cache and one built fresh carry the same bytes; the headers of both are decided once,
by apps.core.pipeline.views.ApiView.finalize_response.
"""
from dataclasses import dataclass, field

from rest_framework.renderers import JSONRenderer


@dataclass(frozen=True)
class Rendered:
    """A body already rendered by `ApiJSONRenderer` (bytes), with the headers it needs (a page's Link,
    an ETag); `from_cache`: read from the cache (the pipeline marks the response so: tests, logs)."""

    body: bytes
    headers: dict = field(default_factory=dict)
    from_cache: bool = False


class ApiJSONRenderer(JSONRenderer):
    def render(self, data, accepted_media_type=None, renderer_context=None):
        if isinstance(data, Rendered):
            return data.body
        return super().render(data, accepted_media_type, renderer_context)


RENDERER = ApiJSONRenderer()


def render(data) -> bytes:
    """`data` as every API answer renders it (what the cache keeps)."""
    return RENDERER.render(data)
