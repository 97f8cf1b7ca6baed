"""The cache's values as Django's serializer reads them (issue 24: the warm read decodes the token's row and
a Thing's body): apps.core.cache.failopen.PickleFirstSerializer, the cache's serializer, and
apps.core.cache.scripts.cached_value, a value a Lua script read from the cache's Redis."""
import datetime
from decimal import Decimal

import pytest
from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisSerializer

from apps.core.cache.failopen import PickleFirstSerializer
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
