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

    docs/decisions.md (Requests, compat): clients form-encode these segments (`/search/3d+printer/`). The
    server has already percent-decoded the path, so an encoded `%2B` reads as `+` too and becomes a space:
    neither a search term (full text ignores the sign) nor a tag (normalisation drops it) can use a
    literal plus. Registered by CoreConfig.ready(), before any URLconf is loaded.
    """

    regex = "[^/]+"

    def to_python(self, value: str) -> str:
        return value.replace("+", " ")

    def to_url(self, value: str) -> str:
        return value


# docs/decisions.md (compat): the modern path names clients of the original API call, by spec prefix.
PATH_ALIASES = {"group-topics/": "grouptopics/"}


def path_aliases(urlpatterns, aliases: dict[str, str] = PATH_ALIASES) -> list:
    """Extra URL patterns answering every path under a prefix also under its alias.

    docs/decisions.md (compat): modern clients call `/grouptopics/…` for the spec's `/group-topics/…`. The
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


def segment_indexed(urlpatterns: list):
    """The URLconf's patterns behind one resolver that tries only those that can match a path's first
    segment (issue 17).

    Django resolves a path by trying every pattern in order; with every app mounted at the root
    (`path("", include(...))`) that is about fifty patterns and includes before `things/<id>/` is found,
    twice per request (the trailing-slash middleware, then the handler): more CPU than the rest of a cached
    API read. A pattern whose route starts with a literal segment (`things/…`, `search/…`, `admin/`) can
    only match a path that starts with that segment, so each path is tried against those patterns and
    the ones that start with a converter or a regex (or, like `thing:<id>`, with a literal prefix the
    segment starts with), in their original order: the first match is the
    one Django would have found, and reverse() is untouched (the resolver is an include at the root).
    """
    import copy

    from django.urls import URLResolver
    from django.urls.resolvers import RoutePattern

    class _Resolver(URLResolver):
        def __init__(self, patterns):
            super().__init__(RoutePattern(""), patterns)
            self._by_segment: dict[str | None, URLResolver] | None = None

        def _index(self) -> dict[str | None, URLResolver]:
            entries = [(entry, _first_segments(entry)) for entry in _flattened(self.url_patterns)]
            exact = {text for _, heads in entries for kind, text in heads or () if kind == "exact"}
            index: dict[str | None, URLResolver] = {}
            for segment in [*exact, None]:
                clone = copy.copy(self)
                clone.__dict__["url_patterns"] = [entry for entry, heads in entries if _may_match(heads, segment)]
                index[segment] = clone
            return index

        def resolve(self, path):
            if self._by_segment is None:
                self._by_segment = self._index()  # a race builds it twice, identically
            path = str(path)
            clone = self._by_segment.get(path.split("/", 1)[0]) or self._by_segment[None]
            return URLResolver.resolve(clone, path)

    return _Resolver(urlpatterns)


def _flattened(patterns) -> list:
    """The patterns with every plain include at the root (`path("", include(...))`: no namespace, no
    extra kwargs) replaced by its own patterns, recursively: it resolves a path exactly as the include
    would (an empty prefix adds nothing to the route, the match's arguments or its names)."""
    from django.urls import URLResolver
    from django.urls.resolvers import RoutePattern

    flat = []
    for entry in patterns:
        if (
            isinstance(entry, URLResolver)
            and isinstance(entry.pattern, RoutePattern)
            and str(entry.pattern) == ""
            and entry.namespace is None
            and entry.app_name is None
            and not entry.default_kwargs
        ):
            flat += _flattened(entry.url_patterns)
        else:
            flat.append(entry)
    return flat


def _first_segments(entry) -> list[tuple[str, str]] | None:
    """What first path segments `entry` can match: ("exact", segment) or ("prefix", the literal text
    before its first converter or regex construct) items; None when it can match any."""
    from django.urls import URLResolver
    from django.urls.resolvers import RegexPattern, RoutePattern

    if isinstance(entry.pattern, RegexPattern):
        return _regex_first_segments(str(entry.pattern))
    if not isinstance(entry.pattern, RoutePattern):
        return None
    route = str(entry.pattern)
    if isinstance(entry, URLResolver) and route == "":
        heads: list[tuple[str, str]] = []
        for child in entry.url_patterns:
            child_heads = _first_segments(child)
            if child_heads is None:
                return None
            heads += child_heads
        return heads
    head = route.split("/", 1)[0]
    if "<" not in head:
        return [("exact", head)]
    prefix = head.split("<", 1)[0]
    return [("prefix", prefix)] if prefix else None


# A regex's characters that stand for themselves; any other ends its literal head. An escaped character
# that is not a letter or a digit (`\.`) stands for itself too.
_REGEX_LITERAL = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-/:@")
_REGEX_QUANTIFIERS = frozenset("?*+{")


def _regex_first_segments(regex: str) -> list[tuple[str, str]] | None:
    """`_first_segments` of a `re_path` pattern (DOT's OAuth endpoints are written so): the text every
    match starts with, read up to the first construct that is not a plain character. Only a pattern
    anchored at the start (`^login/…`) and without an alternation has one; a character that a quantifier
    follows (`/?`) is optional, so it is not part of the head. None: it can match any first segment."""
    if not regex.startswith("^") or "|" in regex:
        return None
    literal: list[str] = []
    index = 1
    while index < len(regex):
        char = regex[index]
        if char == "\\" and index + 1 < len(regex) and not regex[index + 1].isalnum():
            literal.append(regex[index + 1])
            index += 2
            continue
        if char not in _REGEX_LITERAL:
            if char in _REGEX_QUANTIFIERS and literal:
                literal.pop()
            break
        literal.append(char)
        index += 1
    text = "".join(literal)
    if "/" in text:
        return [("exact", text.split("/", 1)[0])]
    return [("prefix", text)] if text else None


def _may_match(heads, segment: str | None) -> bool:
    """Whether a pattern with these first-segment `heads` may match a path whose first segment is
    `segment` (None: any segment that no pattern names exactly)."""
    if heads is None:
        return True
    for kind, text in heads:
        if kind == "prefix" and (segment is None or segment.startswith(text)):
            return True
        if kind == "exact" and segment == text:
            return True
    return False
