"""POST/DELETE /copies/{id}/likes (spec §4.4, §3 Like rows: 400 own copy, 404 missing)."""
import pytest

from apps.activity.models import Event
from apps.accounts.tests.factories import UserFactory
from apps.core.domain.moderation import moderation_hide, moderation_unhide
from apps.makes import services
from apps.makes.models import Make, MakeLike
from apps.makes.tests.factories import MakeFactory
from tests.support.api import assert_error
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def make(other_user):
    return MakeFactory(creator=other_user)


def test_post_likes_counts_and_notifies_the_copys_creator(api, user, other_user, make):
    response = api.post(f"/copies/{make.pk}/likes")
    assert (response.status_code, response.json()) == (200, {"ok": True})
    assert MakeLike.objects.filter(user=user, make=make).exists()
    assert Make.objects.get(pk=make.pk).like_count == 1
    event = Event.objects.get()
    assert (event.recipient, event.actor, event.kind, event.target_type, event.target_id) == (
        other_user, user, "like", "make", make.pk
    )
    body = api.get(f"/copies/{make.pk}/").json()
    assert (body["is_liked"], body["like_count"]) == (True, 1)


def test_liking_twice_is_ok_and_counts_once(api, make):
    api.post(f"/copies/{make.pk}/likes")
    assert api.post(f"/copies/{make.pk}/likes/").json() == {"ok": True}
    assert Make.objects.get(pk=make.pk).like_count == 1
    assert Event.objects.count() == 1


def test_delete_unlikes_and_repeating_it_is_ok(api, make):
    api.post(f"/copies/{make.pk}/likes")
    assert api.delete(f"/copies/{make.pk}/likes").json() == {"ok": True}
    assert api.delete(f"/copies/{make.pk}/likes").json() == {"ok": True}
    assert not MakeLike.objects.exists()
    assert Make.objects.get(pk=make.pk).like_count == 0
    assert not Event.objects.exists()  # a like taken back is no longer news


@pytest.mark.parametrize("method", ["post", "delete"])
def test_liking_ones_own_copy_is_400(api, user, method):
    own = MakeFactory(creator=user)
    body = assert_error(getattr(api, method)(f"/copies/{own.pk}/likes"), 400, "RULE_VIOLATION")
    assert body["error"] == "You cannot like your own copy."
    assert not MakeLike.objects.exists()


def test_liking_a_copy_of_ones_own_thing_is_fine(api, user, other_user):
    make = MakeFactory(thing=ThingFactory(creator=user), creator=other_user)
    assert api.post(f"/copies/{make.pk}/likes").status_code == 200


@pytest.mark.parametrize("method", ["post", "delete"])
def test_missing_or_invisible_is_404(api, other_user, method):
    hidden = MakeFactory(is_hidden=True, hidden_reason="spam")
    of_a_draft = MakeFactory(thing=ThingFactory(creator=other_user, is_published=False))
    for copy_id in (999999, hidden.pk, of_a_draft.pk):
        assert_error(getattr(api, method)(f"/copies/{copy_id}/likes"), 404)


def test_post_query_count(api, make, django_assert_num_queries):
    api.get("/users/me/")
    # token; copy; SAVEPOINT; lock copy; like exists?; INSERT like; UPDATE like_count; INSERT event; RELEASE
    with django_assert_num_queries(9):
        assert api.post(f"/copies/{make.pk}/likes").status_code == 200


def test_events_about_a_hidden_or_deleted_copy_do_not_count(user, client_for, other_user):
    """docs/decisions.md Events: an event stops counting once its target (here a copy) is deleted or hidden
    by a moderator (itself or with its Thing), and counts again when it is unhidden."""
    kept, hidden, deleted = (MakeFactory(creator=user) for _ in range(3))
    liker = client_for(other_user)
    for make in (kept, hidden, deleted):
        assert liker.post(f"/copies/{make.pk}/likes").status_code == 200
    own_api = client_for(user)
    assert own_api.get("/users/me/event-count").json() == {"count": 3}
    moderation_hide(obj=hidden, reason="Spam.", by=UserFactory(is_staff=True))
    services.make_delete(make=deleted)
    assert own_api.get("/users/me/event-count").json() == {"count": 1}
    moderation_unhide(obj=hidden)
    assert own_api.get("/users/me/event-count").json() == {"count": 2}
    moderation_hide(obj=kept.thing, reason="Spam.", by=UserFactory(is_staff=True))  # hides its copies too
    assert own_api.get("/users/me/event-count").json() == {"count": 1}


def test_a_make_event_stops_counting_when_the_copy_is_deleted(user, client_for, other_user):
    thing = ThingFactory(creator=user)
    make = services.make_create(thing=thing, creator=other_user)
    own_api = client_for(user)
    assert own_api.get("/users/me/event-count").json() == {"count": 1}
    services.make_delete(make=make)
    assert own_api.get("/users/me/event-count").json() == {"count": 0}
