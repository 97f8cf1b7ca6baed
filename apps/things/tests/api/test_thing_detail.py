"""GET /things/{id}/ (spec §4.2, §7: the 401/403/404 matrix) and /things/{id}/hack-the-pandemic-thing."""
import pytest

from apps.things.models import Like, Watch
from apps.things.tests.factories import ThingFactory, category
from tests.support.api import assert_error
from apps.things.tests.helpers import ISO, THING_KEYS

pytestmark = pytest.mark.django_db


def test_it_returns_a_published_thing_with_every_field(api, user, other_user):
    thing = ThingFactory(
        creator=other_user, category=category("replacement-parts"), tags=["b", "a"], license="pd0"
    )
    response = api.get(f"/things/{thing.pk}/")
    assert response.status_code == 200
    body = response.json()
    assert set(body) == THING_KEYS
    assert body["id"] == thing.pk
    assert body["license"] == "Creative Commons - Public Domain Dedication"
    assert body["instructions"] == "Print at 0.2 mm, 20% infill."
    assert body["category"] == "Replacement Parts"
    assert body["tag_names"] == ["b", "a"]  # the Thing's own order
    assert body["public_url"] == body["url"] == f"http://testserver/thing:{thing.pk}"
    for name in ("files", "images", "likes", "ancestors", "derivatives", "tags", "categories"):
        assert body[name] == body[f"{name}_url"] == f"http://testserver/things/{thing.pk}/{name}"
    assert body["thumbnail"] == "http://testserver/static/things/placeholder.png"
    assert body["default_image"] is None
    assert body["creator"]["name"] == other_user.username
    assert ISO.match(body["added"])


def test_is_liked_and_is_watched_are_the_callers(api, user, other_user):
    thing = ThingFactory(creator=other_user)
    Like.objects.create(user=user, thing=thing)
    Watch.objects.create(user=user, thing=thing)
    body = api.get(f"/things/{thing.pk}").json()
    assert (body["is_liked"], body["is_watched"]) == (True, True)


def test_the_owner_sees_their_draft(api, user):
    draft = ThingFactory(creator=user, is_published=False)
    assert api.get(f"/things/{draft.pk}/").json()["is_published"] is False


def test_a_missing_or_deleted_thing_is_404(api, other_user):
    thing = ThingFactory(creator=other_user)
    thing_id = thing.pk
    thing.delete()
    assert_error(api.get(f"/things/{thing_id}/"), 404, "NOT_FOUND")
    assert_error(api.get("/things/0/"), 404)
    assert_error(api.get("/things/abc/"), 404)


def test_hack_the_pandemic_thing_shows_anyones_draft(api, other_user):
    draft = ThingFactory(creator=other_user, is_published=False)
    response = api.get(f"/things/{draft.pk}/hack-the-pandemic-thing")
    assert response.status_code == 200
    assert set(response.json()) == THING_KEYS
    assert response.json()["id"] == draft.pk
    assert_error(api.get("/things/999999/hack-the-pandemic-thing"), 404)


def test_query_count(api, other_user, django_assert_num_queries):
    thing = ThingFactory(creator=other_user, tags=["a", "b", "c"])
    api.get("/users/me/")  # warm-up: the once-per-5-minutes last_active write
    # token; Thing with creator, category, is_liked, is_watched and its tag names (one array subquery)
    with django_assert_num_queries(2):
        response = api.get(f"/things/{thing.pk}/")
    assert response.status_code == 200
    assert response.json()["tag_names"] == ["a", "b", "c"]


def test_a_things_read_leaves_its_creators_private_columns_in_the_database(api, other_user):
    # The creator as the body shows it (selectors.CREATOR_SHOWN_FIELDS): the password hash, the e-mail address
    # and the profile never travel with a Thing, and the body is complete without a query for them.
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from apps.things import selectors

    thing = ThingFactory(creator=other_user)
    api.get("/users/me/")  # warm-up: the once-per-5-minutes last_active write
    with CaptureQueriesContext(connection) as queries:
        response = api.get(f"/things/{thing.pk}/")
    assert response.status_code == 200
    assert response.json()["creator"]["name"] == other_user.username
    statements = " ".join(query["sql"] for query in queries.captured_queries)
    assert '"accounts_user"."username"' in statements  # the creator's join
    for column in ("password", "email", "bio", "location", "notify_email"):
        assert f'"accounts_user"."{column}"' not in statements
    creator = selectors.thing_get_for_viewer(thing.pk, viewer=None).creator
    assert {"password", "email"} <= creator.get_deferred_fields()
    assert creator.email == other_user.email  # still there when some code asks (one query)
