"""GET /things/{id}/tags (spec §4.2; docs/decisions.md Tag: {name, tag, url, count, things_url})."""
import pytest

from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db


def test_it_lists_the_tags_in_the_things_order_with_published_counts(api, user, other_user):
    thing = ThingFactory(creator=user, tags=["zeta", "Alpha"])
    ThingFactory(creator=other_user, tags=["alpha"])
    ThingFactory(creator=other_user, tags=["alpha"], is_published=False)  # drafts do not count
    response = api.get(f"/things/{thing.pk}/tags")
    assert response.status_code == 200
    assert response.json() == [
        {
            "name": "zeta",
            "tag": "zeta",
            "url": "http://testserver/tags/zeta",
            "count": 1,
            "things_url": "http://testserver/tags/zeta/things",
        },
        {
            "name": "Alpha",
            "tag": "Alpha",
            "url": "http://testserver/tags/Alpha",
            "count": 2,
            "things_url": "http://testserver/tags/Alpha/things",
        },
    ]


def test_a_drafts_tags_count_zero_for_its_owner(api, user):
    draft = ThingFactory(creator=user, tags=["solo"], is_published=False)
    assert [t["count"] for t in api.get(f"/things/{draft.pk}/tags").json()] == [0]


@pytest.mark.parametrize("rows", [1, 30])
def test_query_count_does_not_grow(api, other_user, rows, django_assert_num_queries):
    thing = ThingFactory(creator=other_user, tags=[f"tag{i}" for i in range(rows)])
    ThingFactory.create_batch(3, creator=other_user, tags=["tag0"])
    api.get("/users/me/")  # warm-up: the once-per-5-minutes last_active write
    # token; Thing; COUNT; SELECT tags with their counted subquery
    with django_assert_num_queries(4):
        assert len(api.get(f"/things/{thing.pk}/tags").json()) == rows
