"""The cache's values as Django's serializer reads them (issue 24: the warm read decodes the token's row and
a Thing's body): apps.core.cache.failopen.PickleFirstSerializer, the cache's serializer, and
apps.core.cache.scripts.cached_value, a value a Lua script read from the cache's Redis; and
apps.core.cache.scripts.KeptScript, a script run on the thread's own connection."""
import datetime
import uuid
from decimal import Decimal

import pytest
from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisSerializer

from apps.core.cache.failopen import PickleFirstSerializer
from apps.core.cache import scripts
from apps.core.cache.scripts import cached_value

VALUES = [
    0, 7, -12, 2**70, "text", "", b"\x80bytes", b"", ("tuple", 1, None), [1, 2.5], {"k": [1]},
    datetime.datetime(2026, 11, 28, 12, 0, tzinfo=datetime.UTC), Decimal("1.10"), True, None,
]


def test_the_cache_reads_with_the_pickle_first_serializer():
    assert type(caches["default"]._cache._serializer) is PickleFirstSerializer  # type: ignore[attr-defined]


@pytest.mark.parametrize("value", VALUES, ids=[repr(v)[:30] for v in VALUES])
def test_a_stored_value_reads_back_as_djangos_own_serializer_reads_it(value):
    cache.set("scripts-probe", value)
    raw = caches["default"]._cache.get_client().get(cache.make_key("scripts-probe"))  # type: ignore[attr-defined]
    expected = RedisSerializer().loads(raw)
    assert expected == value and type(expected) is type(value)
    for read in (cache.get("scripts-probe", "absent"), cached_value(raw), cached_value(raw, caches["default"])):
        assert read == expected and type(read) is type(expected)


def test_an_absent_key_is_none():
    assert cached_value(None) is None


# --- KeptScript: a script run on the thread's kept connection -------------------------------------------

_COUNT = "local n = redis.call('INCR', KEYS[1]) return {n, ARGV[1]}"


@pytest.fixture
def redis_client(settings):
    import redis

    client = redis.Redis.from_url(settings.REDIS_URL)
    yield client
    scripts._kept_drop(client.connection_pool)
    client.close()


def _kept(client):
    return scripts._kept_connection(client.connection_pool)


def _kept_client_id(client) -> int:
    connection = _kept(client)
    connection.send_command("CLIENT", "ID")
    return int(connection.read_response())


def test_a_kept_script_runs_on_one_connection_the_pool_never_lends(redis_client):
    key = f"kept-count:{uuid.uuid4().hex}"
    script = scripts.KeptScript(redis_client, _COUNT)
    assert script(keys=[key], args=["a"]) == [1, b"a"]
    connection = _kept(redis_client)
    assert script(keys=[key], args=["b"]) == [2, b"b"]
    assert _kept(redis_client) is connection  # the same connection, kept
    pool = redis_client.connection_pool
    assert connection not in pool._available_connections and connection not in pool._in_use_connections


def test_a_kept_script_is_loaded_again_after_redis_forgets_it(redis_client):
    key = f"kept-count:{uuid.uuid4().hex}"
    script = scripts.KeptScript(redis_client, _COUNT)
    assert script(keys=[key], args=["x"])[0] == 1
    redis_client.script_flush()
    assert script(keys=[key], args=["x"])[0] == 2  # NOSCRIPT: loaded and run once, no count lost or doubled
    assert script(keys=[key], args=["x"])[0] == 3


def test_a_kept_connection_the_server_closed_counts_once_on_a_new_one(redis_client):
    key = f"kept-count:{uuid.uuid4().hex}"
    script = scripts.KeptScript(redis_client, _COUNT)
    assert script(keys=[key], args=["x"])[0] == 1
    redis_client.client_kill_filter(_id=_kept_client_id(redis_client))  # as Redis's idle timeout or a restart
    assert script(keys=[key], args=["x"])[0] == 2  # exactly one more count
    assert script(keys=[key], args=["x"])[0] == 3
    assert int(redis_client.get(key)) == 3


def test_a_scripts_own_error_leaves_the_kept_connection_usable(redis_client):
    import redis

    failing = scripts.KeptScript(redis_client, "return redis.error_reply('NOPE no way')")
    with pytest.raises(redis.ResponseError, match="no way"):
        failing()
    connection = _kept(redis_client)
    key = f"kept-count:{uuid.uuid4().hex}"
    assert scripts.KeptScript(redis_client, _COUNT)(keys=[key], args=["x"])[0] == 1
    assert _kept(redis_client) is connection


def test_a_forked_process_makes_its_own_kept_connection(redis_client, monkeypatch):
    connection = _kept(redis_client)
    monkeypatch.setattr(scripts.os, "getpid", lambda: -1)  # what a child of a fork sees: another pid
    assert _kept(redis_client) is not connection


def test_a_kept_script_raises_when_redis_is_unreachable():
    import redis

    client = redis.Redis.from_url("redis://127.0.0.1:1/0", socket_connect_timeout=0.5)  # nothing listens there
    with pytest.raises(redis.ConnectionError):
        scripts.KeptScript(client, _COUNT)(keys=["k"], args=["x"])
    assert id(client.connection_pool) not in scripts._kept_connections()  # nothing half-open is kept


def test_a_registered_script_belongs_to_its_client_even_when_an_id_is_reused(redis_client, settings):
    import redis

    script = scripts.registered_script(redis_client, _COUNT)
    assert scripts.registered_script(redis_client, _COUNT) is script
    other = redis.Redis.from_url(settings.REDIS_URL)
    # What a freed client's entry looks like to a new client given the same id.
    scripts._REGISTERED[(id(other), _COUNT)] = (redis_client, script)
    assert scripts.registered_script(other, _COUNT) is not script
    assert scripts.registered_script(other, _COUNT)._pool is other.connection_pool
    other.close()
