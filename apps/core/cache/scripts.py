"""Lua scripts run on the cache's Redis, and values read around Django's cache API (issue 24: one round
trip where Django's API would make several)."""
import os
import threading

import redis
from django.core.cache import cache

_REGISTERED: dict[tuple[int, str], tuple[object, "KeptScript"]] = {}


def registered_script(client, source: str) -> "KeptScript":
    """The script `source` on this Redis client (KeptScript), registered once per client: it runs as
    EVALSHA and loads itself again when Redis answers NOSCRIPT (a restart). The entry holds its client, so
    a client made after another was freed never gets the freed one's script (and pool) by a reused id."""
    key = (id(client), source)
    found = _REGISTERED.get(key)
    if found is None or found[0] is not client:
        found = _REGISTERED[key] = (client, KeptScript(client, source))
    return found[1]


class KeptScript:
    """A Lua script run as EVALSHA on a connection the calling thread keeps for its client's pool.

    Every API request runs one script (the rate-limit count, with the token's cached row and the view's
    entries when it can). Through redis-py's Script each run borrows a connection from the pool and gives
    it back: the pool's lock, a `poll()` asking the socket whether unread data is waiting, the retry
    wrapper and five layers of calls, about half the client's CPU of the round trip (issue 24, first reads:
    83 µs of CPU a run measured inside a request, 35-40 of them the sending and reading). Here the thread's
    own connection sends the command and reads its answer, nothing else.

    The connection never holds an unread answer: any failure while sending or reading disconnects it (the
    next run connects again), so the pool's check has nothing to find. A connection that failed before
    its answer was read (Redis restarted, a server-side timeout closed it) runs the script once more
    through redis-py's Script, which reconnects and retries as every other command does; a timeout does
    not, so a hung Redis costs one socket timeout, as before (the callers fail open). NOSCRIPT (Redis
    restarted or flushed its scripts) goes through redis-py's Script too, which loads the script. The
    connection is made from the pool's own settings (timeouts, database, credentials) but is not the
    pool's: a forked process (gunicorn's workers) makes its own."""

    def __init__(self, client, source: str):
        self._script = client.register_script(source)
        self._pool = client.connection_pool
        self._sha = self._script.sha

    def __call__(self, keys=(), args=()):
        connection = _kept_connection(self._pool)
        try:
            connection.send_command("EVALSHA", self._sha, len(keys), *keys, *args)
            return connection.read_response()
        except redis.exceptions.NoScriptError:
            return self._script(keys=keys, args=args)  # loads the script, then runs it
        except redis.exceptions.ResponseError:
            raise  # the script's own error: its answer was read, the connection is clean
        except redis.ConnectionError:
            _kept_drop(self._pool)
            return self._script(keys=keys, args=args)
        except BaseException:  # a timeout among them: not run again
            _kept_drop(self._pool)
            raise


_kept = threading.local()


def _kept_connections() -> dict:
    """This thread's connections, pool id → (pool, connection); new after a fork."""
    pid = os.getpid()
    if getattr(_kept, "pid", None) != pid:
        _kept.pid, _kept.connections = pid, {}  # a forked child never writes on its parent's sockets
    return _kept.connections


def _kept_connection(pool):
    connections = _kept_connections()
    found = connections.get(id(pool))
    if found is None or found[0] is not pool:
        connection = pool.connection_class(**pool.connection_kwargs)  # connects on its first command
        connections[id(pool)] = found = (pool, connection)
    return found[1]


def _kept_drop(pool) -> None:
    found = _kept_connections().pop(id(pool), None)
    if found is not None:
        found[1].disconnect()


def cached_value(raw, backend=None):
    """A value a script read from a Django cache key, as Django's `cache.get` would answer it (None: absent).
    `backend`: the cache (`caches["default"]`) when the caller holds it already: `cache` is a proxy that
    looks the thread's cache up on every attribute read."""
    if raw is None:
        return None
    source = backend if backend is not None else cache
    return source._cache._serializer.loads(raw)  # type: ignore[union-attr]  # Django's RedisCache internals
