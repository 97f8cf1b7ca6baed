from typing import Any
from unittest import mock

import pytest
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.pipeline.routing import combine


class ListView(APIView):
    def get(self, request):
        return Response(["listed"])


class StartView(APIView):
    def post(self, request):
        return Response({"started": True})


def test_the_combined_view_answers_each_views_method(rf):
    from rest_framework.test import force_authenticate  # noqa: F401 (views below need no auth)

    view = combine(ListView, StartView)
    view.permission_classes = []
    view.authentication_classes = []
    view.throttle_classes = []
    assert view.as_view()(rf.get("/x")).data == ["listed"]
    assert view.as_view()(rf.post("/x")).data == {"started": True}
    assert view.as_view()(rf.delete("/x")).status_code == 405


def test_two_views_answering_one_method_is_refused():
    with pytest.raises(ValueError):
        combine(ListView, ListView)


# --- the segment-indexed resolver (apps.core.pipeline.routing.segment_indexed, issue 17) ------------------------

_SAMPLES = {"int": ["7", "123456"], "str": ["alice", "x-y", "thing:5"], "slug": ["parts", "a-b"],
            "username": ["alice", "bob.smith"], "term": ["cable+clip", "x"], "path": ["a/b", "c"]}


def _sample_paths(patterns, prefix=""):
    """Paths that the URLconf's routes can match, converters replaced by sample values, plus near misses."""
    import itertools
    import re

    from django.urls import URLResolver

    for entry in patterns:
        route = str(entry.pattern)
        parts = re.split(r"<(?:\w+:)?\w+>", route)
        kinds = re.findall(r"<(?:(\w+):)?\w+>", route)
        choices = [_SAMPLES.get(kind or "str", ["v"]) for kind in kinds]
        for values in itertools.islice(itertools.product(*choices), 4):
            text = parts[0] + "".join(v + p for v, p in zip(values, parts[1:]))
            path = prefix + text.lstrip("^").rstrip("$")
            if isinstance(entry, URLResolver):
                yield from _sample_paths(entry.url_patterns, path)
            else:
                yield path
                yield path + "/"
                yield path + "x"


def _plain_resolver():
    from django.urls import URLResolver
    from django.urls.resolvers import RegexPattern

    from config import urls

    indexed = urls.urlpatterns[0]
    assert isinstance(indexed, URLResolver)
    return URLResolver(RegexPattern(r"^/"), indexed.url_patterns)  # the same patterns, unindexed


def _outcome(resolver, path):
    from django.urls import Resolver404

    try:
        match = resolver.resolve(path)
    except Resolver404:
        return None
    return (match.func, match.args, match.kwargs, match.url_name, match.route, match.namespaces, match.app_names)


def test_the_indexed_resolver_answers_every_path_as_django_does():
    from django.urls import get_resolver

    indexed, plain = get_resolver(), _plain_resolver()
    paths = sorted(set(_sample_paths(plain.url_patterns)))  # the same patterns
    paths += ["", "/", "nothing/here", "things", "things/", "things/abc/", "@alice", "thing:", "thing:x",
              "admin", "search//autocomplete", "%00",
              # the OAuth endpoints are regexes (DOT's re_path): their heads, optional slashes and near misses
              "login", "login/", "loginx", "login/oauth/authorize", "login/oauth/authorize/", "login/oauthx",
              ".well-known/oauth-authorization-server", "xwell-known/oauth-authorization-server",
              "account/apps/5/revoke", "account/apps/x/revoke", "device", "device/", "devices", "logout/"]
    assert len(paths) > 300
    for path in paths:
        assert _outcome(indexed, "/" + path) == _outcome(plain, "/" + path), path


def test_a_regex_routes_head_is_its_literal_start():
    from apps.core.pipeline.routing import _regex_first_segments

    assert _regex_first_segments(r"^login/oauth/authorize/?$") == [("exact", "login")]
    assert _regex_first_segments(r"^\.well-known/oauth-authorization-server/?$") == [("exact", ".well-known")]
    # the slash a quantifier follows is optional: "login" and "login/" both match, so only a prefix is known
    assert _regex_first_segments(r"^login/?$") == [("prefix", "login")]
    assert _regex_first_segments(r"^account/apps/(?P<application_id>[0-9]+)/revoke/?$") == [("exact", "account")]
    assert _regex_first_segments(r"^ab?c/") == [("prefix", "a")]
    assert _regex_first_segments(r"^things(/x)?$") == [("prefix", "things")]
    # anything that may match elsewhere or in other ways: no head
    assert _regex_first_segments(r"login/$") is None  # not anchored: searched anywhere
    assert _regex_first_segments(r"^a/|^b/") is None  # an alternation
    assert _regex_first_segments(r"^\d+/x") is None  # a class first
    assert _regex_first_segments(r"^(?i)login/") is None


def test_every_api_path_skips_the_oauth_endpoints():
    """The index keeps an include of regex routes out of the paths it cannot match (issue 24: DOT's
    eleven OAuth patterns were tried before every API path)."""
    from django.urls import URLResolver, get_resolver

    indexed: Any = get_resolver().url_patterns[0]  # segment_indexed's resolver (its index is its own)
    by_segment = indexed._index()
    oauth = [entry for entry in by_segment["login"].url_patterns
             if isinstance(entry, URLResolver) and entry.namespace == "oauth"]
    assert oauth
    for segment in ("things", "users", "search", "groups", "copies"):
        assert oauth[0] not in by_segment[segment].url_patterns, segment


def test_reverse_is_unchanged():
    from django.urls import reverse

    assert reverse("thing-detail", kwargs={"thing_id": 3}) == "/things/3/"
    assert reverse("admin:index") == "/admin/"


def test_the_wsgi_handler_resolves_once_and_serves_both_slash_forms(db):
    """config.wsgi's handler takes the trailing-slash middleware's match (apps.core.pipeline.wsgi)."""
    import io
    import sys

    from django.urls.resolvers import URLResolver

    from config.wsgi import application

    calls = []
    original = URLResolver.resolve

    def counting(self, path):
        calls.append(path)
        return original(self, path)

    def get(path):
        environ = {"REQUEST_METHOD": "GET", "PATH_INFO": path, "QUERY_STRING": "", "SERVER_NAME": "testserver",
                   "SERVER_PORT": "80", "wsgi.input": io.BytesIO(b""), "wsgi.url_scheme": "http",
                   "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.errors": sys.stderr, "HTTP_HOST": "testserver"}
        status = []

        def start_response(status_line, headers, exc_info=None):
            status.append(status_line)
            return lambda data: None

        body = b"".join(application(environ, start_response))
        return status[0], body

    with mock.patch.object(URLResolver, "resolve", counting):
        assert get("/things/1/")[0].startswith("401")  # the API view answered (no token)
        assert calls.count("/things/1/") == 1  # the middleware's; the handler reused it
        assert get("/things/1")[0].startswith("401")  # the other slash form, rewritten
        assert get("/nothing/here")[0].startswith("404")
