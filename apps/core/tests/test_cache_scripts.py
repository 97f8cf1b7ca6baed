"""apps.core.cache.scripts.cached_value: a value a Lua script read from the cache's Redis, answered as
Django's `cache.get` answers it (issue 24: the warm read decodes the token's row and a Thing's body so)."""
import datetime
from decimal import Decimal

import pytest
from django.core.cache import cache, caches

from apps.core.cache.scripts import cached_value

VALUES = [
    0, 7, -12, 2**70, "text", "", b"\x80bytes", b"", ("tuple", 1, None), [1, 2.5], {"k": [1]},
    datetime.datetime(2026, 11, 28, 12, 0, tzinfo=datetime.UTC), Decimal("1.10"), True, None,
]


@pytest.mark.parametrize("value", VALUES, ids=[repr(v)[:30] for v in VALUES])
def test_a_value_read_raw_decodes_as_cache_get_answers(value):
    cache.set("scripts-probe", value)
    raw = caches["default"]._cache.get_client().get(cache.make_key("scripts-probe"))
    expected = cache.get("scripts-probe", "absent")
    assert cached_value(raw) == expected
    assert cached_value(raw, caches["default"]) == expected
    assert type(cached_value(raw)) is type(expected)


def test_an_absent_key_is_none():
    assert cached_value(None) is None
