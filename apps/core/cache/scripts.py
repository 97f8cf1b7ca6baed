"""Lua scripts run on the cache's Redis, and values read around Django's cache API (issue 24: one round
trip where Django's API would make several)."""
from django.core.cache import cache

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
    return source._cache._serializer.loads(raw)  # type: ignore[union-attr]  # Django's RedisCache internals
