"""Lua scripts run on the cache's Redis, and values read around Django's cache API (issue 24: one round
trip where Django's API would make several)."""
import pickle

from django.core.cache import cache
from django.core.cache.backends.redis import RedisSerializer

_REGISTERED: dict[tuple[int, str], object] = {}


def registered_script(client, source: str):
    """redis-py's Script for `source` on this Redis client, registered once per client: it runs as EVALSHA
    and loads itself again when Redis answers NOSCRIPT (a restart)."""
    key = (id(client), source)
    script = _REGISTERED.get(key)
    if script is None:
        script = _REGISTERED.setdefault(key, client.register_script(source))
    return script


def cached_value(raw, backend=None):
    """A value a script read from a Django cache key, as Django's `cache.get` would answer it (None: absent).
    `backend`: the cache (`caches["default"]`) when the caller holds it already: `cache` is a proxy that
    looks the thread's cache up on every attribute read."""
    if raw is None:
        return None
    source = backend if backend is not None else cache
    serializer = source._cache._serializer  # type: ignore[union-attr]  # Django's RedisCache internals
    if type(serializer) is RedisSerializer and raw[:1] == _PICKLE_PROTO:
        # What RedisSerializer.loads does with a pickle, without first trying int() on it: the ValueError
        # that attempt raises cost five times the unpickling of a Thing's kept body.
        return pickle.loads(raw)
    return serializer.loads(raw)


# RedisSerializer stores an int as its digits and anything else as a pickle of protocol 2 or later, which
# always starts with the PROTO opcode: a value starting with it is a pickle.
_PICKLE_PROTO = pickle.PROTO
