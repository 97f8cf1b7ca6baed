"""Wire versions (docs/decisions.md: Wire versions): which shapes an API answer takes, decided here only.

- `spec`: the API spec's wire and the rules of docs/decisions.md (the default of every app and request);
- `thingiverse`: the shapes the live public service answered in its later years.

The version of a request is resolved once, by `resolve` (apps.core.pipeline.views.ApiView, after authentication):
the `Thingyard-Version` header when the request sends one, else the version of the token's application
(its `wire_version` field: the developer portal, the admin, `manage.py app_wire_version`), else `spec`.
An unknown version in the header is 400 `UNKNOWN_VERSION`. The version is kept on the Django request;
serializers and caches read it with `of(request)`, and every answer carries it back in the header.

What differs between the versions is not here but in apps.core.pipeline.wire (the table of changes per version).
"""
from apps.core.domain.exceptions import DomainError

SPEC = "spec"
THINGIVERSE = "thingiverse"
VERSIONS = (SPEC, THINGIVERSE)
DEFAULT = SPEC
CHOICES = (
    (SPEC, "spec: the API specification's wire (default)"),
    (THINGIVERSE, "thingiverse: the live service's later wire"),
)

HEADER = "Thingyard-Version"
_META = "HTTP_THINGYARD_VERSION"
_ATTRIBUTE = "thingyard_wire_version"


class UnknownVersion(DomainError):
    error_type = "UNKNOWN_VERSION"

    def __init__(self, value: str):
        super().__init__(f"Unknown {HEADER} {value[:40]!r}: use one of {', '.join(VERSIONS)}.")


def _django_request(request):
    return getattr(request, "_request", request)  # a DRF Request wraps Django's


def header_version(request) -> str | None:
    """The version the request's header names (None: no header). UnknownVersion when it names none."""
    raw = _django_request(request).META.get(_META)
    if raw is None:
        return None
    value = raw.strip().lower()
    if value not in VERSIONS:
        raise UnknownVersion(raw)
    return value


def checked(value: str | None) -> str:
    """A version named elsewhere (the OpenAPI document's `?version=`): itself, or UnknownVersion."""
    if value is None or value == "":
        return DEFAULT
    value = value.strip().lower()
    if value not in VERSIONS:
        raise UnknownVersion(value)
    return value


def resolve(request, application=None) -> str:
    """The request's version (header, else the app's, else the default), kept on the request."""
    version = header_version(request)
    if version is None:
        pinned = getattr(application, "wire_version", None) if application is not None else None
        version = pinned if pinned in VERSIONS else DEFAULT
    setattr(_django_request(request), _ATTRIBUTE, version)
    return version


def of(request) -> str:
    """The version resolved for this request (DEFAULT outside the API pipeline, or with no request)."""
    if request is None:
        return DEFAULT
    return getattr(_django_request(request), _ATTRIBUTE, DEFAULT)


def of_context(context) -> str:
    """The version of a serializer's context (its `request`, else an explicit `wire_version`)."""
    if not context:
        return DEFAULT
    if "wire_version" in context:
        return context["wire_version"]
    return of(context.get("request"))


def cache_suffix(version: str) -> str:
    """What a cache key of a version-dependent body ends with: nothing for `spec` (its keys stay as they
    were), `@<version>` for any other."""
    return "" if version == DEFAULT else f"@{version}"


def answer_header(response, request) -> None:
    response[HEADER] = of(request)
