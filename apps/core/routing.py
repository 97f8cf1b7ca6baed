"""One URL, several view classes: `combine(ListView, StartView)` answers each one's methods.

Some spec paths mix concerns owned by different apps or modules (GET /things/{id}/files lists files,
POST starts an upload). The combined class is a real APIView subclass, so DRF's conventions and the
OpenAPI schema see every method; a method none of them defines is the JSON 405.
"""


def combine(*view_classes, name: str | None = None):
    methods = [m for cls in view_classes for m in cls.http_method_names if hasattr(cls, m) and m != "options"]
    duplicated = {m for m in methods if methods.count(m) > 1}
    if duplicated:
        raise ValueError(f"more than one view answers {sorted(duplicated)}")
    return type(name or "".join(cls.__name__.removesuffix("View") for cls in view_classes) + "View",
                view_classes, {})


class FormEncodedSegmentConverter:
    """`<term:…>`: a path segment carrying a search term or a tag, where `+` means a space.

    DECISIONS.md (Requests, compat): clients form-encode these segments (`/search/3d+printer/`). The
    server has already percent-decoded the path, so an encoded `%2B` reads as `+` too and becomes a space:
    neither a search term (full text ignores the sign) nor a tag (normalisation drops it) can use a
    literal plus. Registered by CoreConfig.ready(), before any URLconf is loaded.
    """

    regex = "[^/]+"

    def to_python(self, value: str) -> str:
        return value.replace("+", " ")

    def to_url(self, value: str) -> str:
        return value


# DECISIONS.md (compat): the modern path names clients of the original API call, by spec prefix.
PATH_ALIASES = {"group-topics/": "grouptopics/"}


def path_aliases(urlpatterns, aliases: dict[str, str] = PATH_ALIASES) -> list:
    """Extra URL patterns answering every path under a prefix also under its alias.

    DECISIONS.md (compat): modern clients call `/grouptopics/…` for the spec's `/group-topics/…`. The
    alias patterns point at the same views, so they answer exactly as their spec paths do (and the
    OpenAPI document lists them); they are named `<name>-alias` so reverse() keeps the spec's path.
    Walks includes mounted at the root (`path("", include(…))`), as config/urls.py mounts every app.
    """
    from django.urls import URLPattern, URLResolver, path

    extra = []
    for entry in urlpatterns:
        if isinstance(entry, URLResolver):
            if str(entry.pattern) == "":
                extra += path_aliases(entry.url_patterns, aliases)
            continue
        if not isinstance(entry, URLPattern):
            continue
        route = str(entry.pattern)
        for prefix, alias in aliases.items():
            if route.startswith(prefix):
                name = f"{entry.name}-alias" if entry.name else None
                extra.append(path(alias + route[len(prefix):], entry.callback, name=name))
    return extra
