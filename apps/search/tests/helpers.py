"""Helpers of the search tests: Things created through the factory, then indexed as the services do."""
from apps.accounts.tests.helpers import assert_error, assert_unauthorized  # noqa: F401
from apps.search.services import thing_index_search
from apps.things.tests.factories import ThingFactory

SHORT_THING_KEYS = {
    "id", "name", "url", "public_url", "thumbnail", "creator",
    "is_published", "is_wip", "like_count", "added",
}


def indexed_thing(**kwargs):
    """A Thing with its search vector computed (the Things services call thing_index_search the same way)."""
    thing = ThingFactory(**kwargs)
    thing_index_search(thing_ids=[thing.pk])
    return thing


def ids(response) -> list[int]:
    assert response.status_code == 200, response.content
    return [item["id"] for item in response.json()]


def hit_ids(response) -> list[int]:
    """ids() of a search that named `type`: the modern `{total, hits}` answer (DECISIONS.md: Search shape)."""
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == {"total", "hits"}, body
    return [item["id"] for item in body["hits"]]
