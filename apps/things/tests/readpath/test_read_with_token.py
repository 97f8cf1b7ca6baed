"""A first read in one round trip to each server (issue 24, first reads; apps.core.db.compiled.ReadWithToken).

When a GET's token row is not cached, the authentication reads it from the database in the same statement as
the view's first statement (a Thing's detail row, a public list's page), and the rate-limit count reads the
view's cache entries (the list's cached total) in the same round trip to Redis. These tests check that a
first read makes those two round trips, and that its answer is the one the view gives when it reads its
statement on its own, for every kind of caller (a reader, the creator, staff, an app's token, an unusable
token) and every kind of Thing (public, a draft, hidden, private).
"""
from datetime import timedelta

import pytest
import redis.connection
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.accounts.tests.factories import UserFactory
from apps.core.domain.moderation import moderation_hide
from apps.core.db.compiled import ReadWithToken
from apps.oauth.tests.factories import AccessTokenFactory
from apps.things import selectors
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory
from tests.support.api import bearer_client

pytestmark = [pytest.mark.django_db, pytest.mark.caches_off]


@pytest.fixture
def usual_way(monkeypatch):
    """Turns the joined read off: each view reads its statement on its own, after the token's."""

    def turn_off():
        monkeypatch.setattr(ReadWithToken, "lateral", lambda self, viewer_sql: None)

    return turn_off


@pytest.fixture
def redis_commands(monkeypatch):
    sent: list[str] = []
    original = redis.connection.AbstractConnection.send_command

    def send_command(self, *args, **kwargs):
        sent.append(str(args[0]))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(redis.connection.AbstractConnection, "send_command", send_command)
    return sent


def _active(api):
    """The client after one request: the user's `last_active` stamp (a write, once) is behind it."""
    assert api.get("/users/me").status_code == 200
    return api


def _answer(response) -> tuple:
    return response.status_code, response.content, response.get("ETag")


def _things(owner):
    hidden = ThingFactory(creator=owner, name="hidden")
    moderation_hide(obj=hidden, reason="spam", by=UserFactory(is_staff=True))
    private = ThingFactory(creator=owner, name="private")
    Thing.objects.filter(pk=private.pk).update(is_private=True)
    return {
        "public": ThingFactory(creator=owner, name="public", tags=["b", "a"]),
        "draft": ThingFactory(creator=owner, name="draft", is_published=False),
        "hidden": hidden,
        "private": private,
    }


def test_a_things_first_read_is_one_statement_and_one_redis_command(client_for, user, redis_commands):
    thing = ThingFactory()
    api = _active(client_for(user))
    redis_commands.clear()
    with CaptureQueriesContext(connection) as queries:
        response = api.get(f"/things/{thing.pk}/")
    assert response.status_code == 200 and response.json()["id"] == thing.pk
    assert len(queries.captured_queries) == 1, [q["sql"][:80] for q in queries.captured_queries]
    assert "LATERAL" in queries.captured_queries[0]["sql"]
    assert _reads(redis_commands) == ["EVALSHA"]  # the count


@pytest.mark.parametrize("caller", ["reader", "creator", "staff", "app", "liker"])
def test_every_caller_gets_what_the_view_answers_on_its_own(caller, client_for, usual_way, application):
    owner = UserFactory()
    things = _things(owner)
    who = {"reader": UserFactory(), "creator": owner, "staff": UserFactory(is_staff=True), "liker": UserFactory()}
    if caller == "liker":
        from apps.things import services

        services.thing_like(user=who["liker"], thing=things["public"])
    api = bearer_client(AccessTokenFactory(user=None, application=application)) if caller == "app" \
        else client_for(who[caller])
    joined = {name: _answer(api.get(f"/things/{thing.pk}/")) for name, thing in things.items()}
    usual_way()
    alone = {name: _answer(api.get(f"/things/{thing.pk}/")) for name, thing in things.items()}
    assert joined == alone
    expected = {
        "reader": {"public": 200, "draft": 403, "hidden": 404, "private": 404},
        "liker": {"public": 200, "draft": 403, "hidden": 404, "private": 404},
        "creator": {"public": 200, "draft": 200, "hidden": 404, "private": 200},
        "staff": {"public": 200, "draft": 403, "hidden": 200, "private": 404},
        "app": {"public": 403, "draft": 403, "hidden": 403, "private": 403},  # a Thing needs a user's token
    }[caller]
    assert {name: answer[0] for name, answer in joined.items()} == expected
    if caller == "liker":
        assert api.get(f"/things/{things['public'].pk}/").json()["is_liked"] is True


def test_an_unusable_token_is_401_whatever_the_thing(application):
    thing = ThingFactory()
    expired = bearer_client(AccessTokenFactory(application=application, expires=timezone.now() - timedelta(seconds=1)))
    suspended_user = UserFactory()
    suspended = bearer_client(AccessTokenFactory(user=suspended_user, application=application))
    suspended_user.is_active = False
    suspended_user.save(update_fields=["is_active"])
    for api in (expired, suspended):
        assert api.get(f"/things/{thing.pk}/").status_code == 401


def test_a_missing_or_malformed_id_is_404(api):
    assert api.get("/things/999999999/").status_code == 404
    assert api.get("/things/0/").status_code == 404
    assert selectors.thing_read_with_token("abc") is None


def test_a_list_page_is_read_with_the_token_and_its_total_with_the_count(client_for, user, usual_way, redis_commands):
    things = [ThingFactory() for _ in range(7)]
    hidden = ThingFactory()
    moderation_hide(obj=hidden, reason="spam", by=UserFactory(is_staff=True))
    api = _active(client_for(user))
    paths = [f"/newest/?per_page=3&page={page}" for page in (1, 2, 3, 4, 0)] + ["/newest/", "/newest/?per_page=x"]
    redis_commands.clear()
    with CaptureQueriesContext(connection) as queries:
        first = api.get(paths[0])
    assert first.status_code == 200
    assert [item["id"] for item in first.json()] == [t.pk for t in reversed(things)][:3]
    # The token with the page, then the bounded count (a small list's total is not cached)
    assert "LATERAL" in queries.captured_queries[0]["sql"]
    assert len(queries.captured_queries) == 2, [q["sql"][:80] for q in queries.captured_queries]
    assert _reads(redis_commands) == ["EVALSHA"]  # the count and the cached total
    joined = [_answer(api.get(path)) for path in paths]
    usual_way()
    alone = [_answer(api.get(path)) for path in paths]
    assert joined == alone
    assert hidden.pk not in {item["id"] for status, body, _ in joined if status == 200 for item in _json(body)}


def test_staff_lists_show_hidden_things_as_before(client_for):
    visible = ThingFactory()
    hidden = ThingFactory()
    moderation_hide(obj=hidden, reason="spam", by=UserFactory(is_staff=True))
    ids = {item["id"] for item in client_for(UserFactory(is_staff=True)).get("/newest/").json()}
    assert {visible.pk, hidden.pk} <= ids
    assert hidden.pk not in {item["id"] for item in client_for(UserFactory()).get("/newest/").json()}


def test_a_large_lists_cached_total_comes_with_the_rate_limit_count(client_for, user, redis_commands):
    import time

    from django.core.cache import cache

    ThingFactory()
    rows = selectors.thing_list_rows_compiled("newest")
    assert rows is not None
    cache.set(rows.count_key(), (123_456, time.time()), 60)  # a large list's fresh total
    api = client_for(user)
    redis_commands.clear()
    response = api.get("/newest/?per_page=30")
    assert response.status_code == 200
    assert "page=4116" in response["Link"]  # the cached total places `last`
    assert _reads(redis_commands) == ["EVALSHA"]  # read with the count, no GET of its own


def _reads(commands: list[str]) -> list[str]:
    """The reads among Redis commands (a request may also write: the user's last-active gate)."""
    return [command for command in commands if command in ("GET", "MGET", "EVALSHA", "EVAL")]


def _json(body: bytes):
    import json

    return json.loads(body)


def test_a_kept_bodys_check_is_read_with_the_token(client_for, user, settings, usual_way, redis_commands):
    """Body cache on, token cache off (a client whose token row left the cache): the kept body, the count
    and the body in one Redis round trip, the token and the body's check in one statement."""
    settings.THING_BODY_CACHE_SECONDS = 600
    owner = UserFactory()
    things = _things(owner)
    from apps.things import services

    services.thing_like(user=user, thing=things["public"])
    api = _active(client_for(user))
    assert api.get(f"/things/{things['public'].pk}/").status_code == 200  # kept
    redis_commands.clear()
    with CaptureQueriesContext(connection) as queries:
        response = api.get(f"/things/{things['public'].pk}/")
    assert response.status_code == 200 and response.json()["is_liked"] is True
    assert len(queries.captured_queries) == 1 and "LATERAL" in queries.captured_queries[0]["sql"]
    assert "t.version" in queries.captured_queries[0]["sql"]  # the check, not the Thing's detail row
    assert _reads(redis_commands) == ["EVALSHA"]
    # A change moves the version: the next read through the joined check is built afresh.
    services.thing_update(thing=things["public"], data={"name": "renamed"})
    assert api.get(f"/things/{things['public'].pk}/").json()["name"] == "renamed"
    # Every caller and every kind of Thing: as answered with the check read on its own.
    callers = [client_for(user), client_for(owner), client_for(UserFactory(is_staff=True)), client_for(UserFactory())]
    joined = [_answer(c.get(f"/things/{t.pk}/")) for c in callers for t in things.values()]
    usual_way()
    alone = [_answer(c.get(f"/things/{t.pk}/")) for c in callers for t in things.values()]
    assert joined == alone


@pytest.mark.parametrize("version", ["spec", "thingiverse"])
def test_both_wire_versions_answer_as_without_the_join(version, client_for, user, usual_way):
    """The rows read with the token are the same whatever the wire version; each version's shapes are
    built from them as from the rows read alone."""
    things = [ThingFactory(tags=["a"]) for _ in range(4)]
    api = _active(client_for(user))
    paths = [f"/things/{things[0].pk}/", "/newest/?per_page=3", "/newest/?per_page=3&page=2", "/featured/"]
    headers = {"HTTP_THINGYARD_VERSION": version}
    joined = [_answer(api.get(path, **headers)) for path in paths]
    assert all(status == 200 for status, _, _ in joined)
    usual_way()
    assert joined == [_answer(api.get(path, **headers)) for path in paths]


def test_the_wire_versions_do_differ_on_these_paths(client_for, user):
    thing = ThingFactory(tags=["a"])
    api = _active(client_for(user))
    spec = api.get(f"/things/{thing.pk}/", HTTP_THINGYARD_VERSION="spec")
    live = api.get(f"/things/{thing.pk}/", HTTP_THINGYARD_VERSION="thingiverse")
    assert spec["Thingyard-Version"] == "spec" and live["Thingyard-Version"] == "thingiverse"
    assert spec.content != live.content  # so the test above compares two shapes, not one twice


def test_a_joined_page_carries_the_tokens_columns_in_its_first_row_only(user):
    """Repeated in each row of a page, the token's columns cost more to send and read than a second
    statement would: the joined page has them in its first row, NULL in the others."""
    from apps.core.db import statement_cursor
    from apps.oauth.selectors import _ACTIVE_TOKEN_SQL, token_checksum

    for _ in range(4):
        ThingFactory()
    token = AccessTokenFactory(user=user)
    rows = selectors.thing_list_rows_compiled("newest")
    assert rows is not None
    with_token = rows.read_with_token(3, 0)
    joined = _ACTIVE_TOKEN_SQL._joined(with_token)
    assert joined is not None
    sql, params = joined
    with statement_cursor() as cursor:
        cursor.execute(sql, [token_checksum(token.token), *params])
        found = cursor.fetchall()
    width = len(_ACTIVE_TOKEN_SQL._columns)
    assert len(found) == 3
    assert all(value is None for row in found[1:] for value in row[:width])
    assert found[0][:width].count(None) < width
    assert [row[-1] for row in found] == [1, 2, 3]  # the page's order, numbered

    # Read as the authentication reads it: the token's row, then the page's Things in the list's order.
    row = _ACTIVE_TOKEN_SQL.read(token_checksum(token.token), with_token)
    assert row is not None and row[_ACTIVE_TOKEN_SQL._viewer_column] == user.pk
    assert with_token.rows is not None
    assert [thing.pk for thing in with_token.rows] == [thing.pk for thing in rows.bound()[0:3]]


def test_a_joined_page_past_the_end_still_reads_the_token(user):
    from apps.oauth.selectors import _ACTIVE_TOKEN_SQL, token_checksum

    ThingFactory()
    token = AccessTokenFactory(user=user)
    rows = selectors.thing_list_rows_compiled("newest")
    assert rows is not None
    with_token = rows.read_with_token(30, 3000)
    row = _ACTIVE_TOKEN_SQL.read(token_checksum(token.token), with_token)
    assert row is not None and row[_ACTIVE_TOKEN_SQL._viewer_column] == user.pk
    assert with_token.rows == []


def test_first_reads_of_different_things_run_one_statement_text_with_its_loaders_kept(client_for, user, monkeypatch):
    """Every first read of a Thing runs the same joined text (the same string object), so the connection's
    kept cursor reads its rows with the column loaders it made the first time (KeptPreparedCursor; psycopg
    makes them again whenever the text object changes)."""
    from apps.core.db.postgresql.base import KeptPreparedCursor

    things = [ThingFactory(is_published=True) for _ in range(3)]
    api = _active(client_for(user))
    executed: list[tuple[str, object]] = []
    original = KeptPreparedCursor.execute

    def execute(self, query, params=None, **kwargs):
        result = original(self, query, params, **kwargs)
        executed.append((query, self._tx))
        return result

    monkeypatch.setattr(KeptPreparedCursor, "execute", execute)
    for thing in things:
        response = api.get(f"/things/{thing.pk}/")
        assert response.status_code == 200 and response.json()["id"] == thing.pk
    joined = [(text, tx) for text, tx in executed if "LATERAL" in text]
    assert len(joined) == 3
    assert joined[0][0] is joined[1][0] is joined[2][0]
    assert joined[0][1] is joined[1][1] is joined[2][1]  # psycopg's transformer (its loaders) kept


def test_a_list_pages_joined_text_is_one_object_per_page_and_window():
    from apps.oauth.selectors import _ACTIVE_TOKEN_SQL

    rows = selectors.thing_list_rows_compiled("newest")
    assert rows is not None
    first = [_ACTIVE_TOKEN_SQL._joined(rows.read_with_token(30, 0)) for _ in range(3)]
    assert first[0] is not None and first[0][0] is first[1][0] is first[2][0]
    second = _ACTIVE_TOKEN_SQL._joined(rows.read_with_token(30, 30))
    assert second is not None and second[0] != first[0][0] and "OFFSET 30" in second[0]
