"""Django's Redis cache, failing open: while Redis is unreachable the cache behaves as an empty one.

Everything Thingyard keeps in the cache is an optimisation or a gate that may safely open (list counts,
CORS origin answers, the `last_active` write gate, "one mail a minute", "one package build at a time",
a checkout nonce), so an outage of Redis must cost a few database queries, never a request
(docs/decisions.md: Rate limit, "the API keeps serving"; docs/reliability.md). Each operation answers as
if the key were absent and nobody else held it:

- reads (`get`, `get_many`, `has_key`) miss;
- `add` answers True (nothing known blocks the caller: the gates open);
- writes and deletes are dropped; `incr`/`decr` count from zero (BaseCache.decr is incr);
- the failure is logged at most once a minute per process.

Short socket timeouts (settings CACHES OPTIONS) keep a hung Redis from holding requests.
"""
import logging
import pickle
import time

import redis
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache, RedisCacheClient, RedisSerializer

log = logging.getLogger(__name__)

_FAILURE_LOG_INTERVAL_SECONDS = 60
_last_failure_logged = 0.0


def _failed(operation: str, exc: Exception) -> None:
    global _last_failure_logged
    now = time.monotonic()
    if now - _last_failure_logged >= _FAILURE_LOG_INTERVAL_SECONDS:
        _last_failure_logged = now
        log.warning("Cache (Redis) unavailable during %s (%s); serving without it", operation, exc)


class PickleFirstSerializer(RedisSerializer):
    """Django's serializer, reading a pickle without first trying it as an integer.

    RedisSerializer stores an int as its digits and anything else as a pickle of protocol 2 or later, which
    always starts with the PROTO opcode; its `loads` tries `int()` on every value first, and on a pickle
    the ValueError that raises cost five times the unpickling (4.5 against 0.85 µs for a Thing's kept body;
    a warm read decodes two values, issue 24). A value starting with the opcode is a pickle: unpickled at
    once; anything else is read as Django reads it."""

    def loads(self, data):
        if data[:1] == _PICKLE_PROTO:
            return pickle.loads(data)
        return super().loads(data)


_PICKLE_PROTO = pickle.PROTO


class ReusingRedisCacheClient(RedisCacheClient):
    """Django's client builds a new `redis.Redis` around the pool on every operation, and redis-py's
    constructor costs more than the round trip it wraps (issue 17: two of them were about 0.6 ms of a
    cached detail request). One client per pool, for the process: a `redis.Redis` is safe to share
    between threads (each command borrows a connection from the pool)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients: dict[int, redis.Redis] = {}
        serializer = self._serializer  # type: ignore[has-type]  # RedisCacheClient's, undeclared in django-stubs
        if type(serializer) is RedisSerializer:  # Django's default (OPTIONS named none): the same, faster
            # RedisSerializer.protocol: set by its constructor, not declared in django-stubs.
            self._serializer = PickleFirstSerializer(protocol=serializer.protocol)  # type: ignore[attr-defined]

    def get_client(self, key=None, *, write=False):
        # RedisCacheClient's pool helpers and client class: django-stubs does not declare these privates.
        index = self._get_connection_pool_index(write)  # type: ignore[attr-defined]
        client = self._clients.get(index)
        if client is None:
            pool = self._get_connection_pool(write)  # type: ignore[attr-defined]
            client = self._clients.setdefault(index, self._client(connection_pool=pool))  # type: ignore[attr-defined]
        return client


class FailOpenRedisCache(RedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = ReusingRedisCacheClient

    def get(self, key, default=None, version=None):
        try:
            return super().get(key, default, version)
        except redis.RedisError as exc:
            _failed("get", exc)
            return default

    def get_many(self, keys, version=None):
        try:
            return super().get_many(keys, version)
        except redis.RedisError as exc:
            _failed("get_many", exc)
            return {}

    def has_key(self, key, version=None):
        try:
            return super().has_key(key, version)
        except redis.RedisError as exc:
            _failed("has_key", exc)
            return False

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        try:
            return super().add(key, value, timeout, version)
        except redis.RedisError as exc:
            _failed("add", exc)
            return True

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        try:
            super().set(key, value, timeout, version)
        except redis.RedisError as exc:
            _failed("set", exc)

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        try:
            return super().set_many(data, timeout, version)
        except redis.RedisError as exc:
            _failed("set_many", exc)
            return []

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        try:
            return super().touch(key, timeout, version)
        except redis.RedisError as exc:
            _failed("touch", exc)
            return False

    def delete(self, key, version=None):
        try:
            return super().delete(key, version)
        except redis.RedisError as exc:
            _failed("delete", exc)
            return False

    def delete_many(self, keys, version=None):
        try:
            return super().delete_many(keys, version)
        except redis.RedisError as exc:
            _failed("delete_many", exc)
            return None

    def incr(self, key, delta=1, version=None):
        try:
            return super().incr(key, delta, version)
        except redis.RedisError as exc:
            _failed("incr", exc)
            return delta

    def clear(self):
        try:
            return super().clear()
        except redis.RedisError as exc:
            _failed("clear", exc)
            return False
