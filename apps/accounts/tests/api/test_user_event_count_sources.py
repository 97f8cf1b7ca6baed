"""What GET /users/{username}/event-count counts (spec §4.1, issue 5): real events (new followers, likes,
collects, and the makes and comments the other apps record), once per (actor, kind, target), never
one's own actions, and not when the actor is suspended or the target deleted or hidden."""
from datetime import timedelta

import pytest
from django.utils import timezone

from apps.accounts import services
from apps.accounts.tests.factories import UserFactory
from apps.activity.models import Event
from apps.activity.services import event_record
from apps.activity.tests.factories import EventFactory
from apps.core.domain.moderation import moderation_hide, moderation_unhide
from apps.thingcollections.services import collection_delete
from apps.thingcollections.tests.factories import CollectionFactory
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db


def _count(api, **params) -> int:
    response = api.get("/users/me/event-count", params)
    assert response.status_code == 200, response.content
    return response.json()["count"]


def test_a_new_follower_through_the_api_counts_for_the_followed_only(api, user, client_for, other_user):
    assert client_for(other_user).post(f"/users/{user.username}/followers").status_code == 200
    assert _count(api) == 1
    assert _count(client_for(other_user)) == 0


def test_unfollowing_takes_the_event_back_and_following_again_counts_once(api, user, client_for, other_user):
    follower = client_for(other_user)
    for _ in range(3):
        follower.post(f"/users/{user.username}/followers")
        follower.delete(f"/users/{user.username}/followers")
    assert _count(api) == 0
    follower.post(f"/users/{user.username}/followers")
    assert _count(api) == 1
    assert Event.objects.filter(recipient=user).count() == 1


def test_a_like_of_ones_thing_counts_and_a_re_like_does_not_inflate(api, user, client_for, other_user):
    thing = ThingFactory(creator=user)
    liker = client_for(other_user)
    since = (timezone.now() - timedelta(minutes=1)).isoformat()
    liker.post(f"/things/{thing.pk}/likes")
    liker.delete(f"/things/{thing.pk}/likes")
    liker.post(f"/things/{thing.pk}/likes")
    liker.post(f"/things/{thing.pk}/likes")
    assert _count(api, timestamp=since) == 1
    liker.delete(f"/things/{thing.pk}/likes")
    assert _count(api, timestamp=since) == 0


def test_likes_of_two_people_or_two_things_are_two_events(api, user, client_for):
    first, second = ThingFactory(creator=user), ThingFactory(creator=user)
    alice, bob = client_for(UserFactory()), client_for(UserFactory())
    alice.post(f"/things/{first.pk}/likes")
    alice.post(f"/things/{second.pk}/likes")
    bob.post(f"/things/{first.pk}/likes")
    assert _count(api) == 3


def test_one_own_actions_never_count(api, user):
    thing = ThingFactory(creator=user)
    collection = CollectionFactory(creator=user)
    assert api.post(f"/collections/{collection.pk}/thing/{thing.pk}").status_code == 200
    assert api.post(f"/things/{thing.pk}/likes").status_code == 400
    assert event_record(recipient=user, actor=user, kind=Event.Kind.COMMENT) is None
    assert _count(api) == 0 and not Event.objects.exists()


def test_collecting_counts_once_per_collector_until_the_last_collection_lets_go(
    api, user, client_for, other_user
):
    thing = ThingFactory(creator=user)
    collector = client_for(other_user)
    shelves, garage = CollectionFactory(creator=other_user), CollectionFactory(creator=other_user)
    collector.post(f"/collections/{shelves.pk}/thing/{thing.pk}")
    collector.post(f"/collections/{garage.pk}/thing/{thing.pk}")
    assert _count(api) == 1
    collector.delete(f"/collections/{shelves.pk}/thing/{thing.pk}")
    assert _count(api) == 1  # still in the garage collection
    collection_delete(collection=garage, user=other_user)  # made on the site: no app may delete it
    assert _count(api) == 0


def test_the_timestamp_window_counts_only_what_happened_after_it(api, user, client_for, other_user):
    thing = ThingFactory(creator=user)
    client_for(other_user).post(f"/things/{thing.pk}/likes")
    Event.objects.update(created=timezone.now() - timedelta(days=2))
    client_for(UserFactory()).post(f"/users/{user.username}/followers")
    yesterday = (timezone.now() - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert _count(api, timestamp=yesterday) == 1
    assert _count(api) == 2


def test_a_suspended_actors_events_stop_counting_until_reopened(api, user, client_for, other_user):
    client_for(other_user).post(f"/users/{user.username}/followers")
    services.user_suspend(user=other_user, reason="Spam")
    assert _count(api) == 0
    services.user_unsuspend(user=other_user)
    assert _count(api) == 1


def test_a_deleted_actors_events_are_gone(api, user, client_for):
    leaver = UserFactory()
    client_for(leaver).post(f"/users/{user.username}/followers")
    services.user_delete(user=leaver)
    assert _count(api) == 0


def test_events_about_a_hidden_or_deleted_thing_do_not_count(api, user, client_for, other_user):
    kept, hidden, deleted = (ThingFactory(creator=user) for _ in range(3))
    liker = client_for(other_user)
    for thing in (kept, hidden, deleted):
        liker.post(f"/things/{thing.pk}/likes")
    moderation_hide(obj=hidden, reason="Spam.", by=UserFactory(is_staff=True))
    api.delete(f"/things/{deleted.pk}/")
    assert _count(api) == 1
    moderation_unhide(obj=hidden)
    assert _count(api) == 2


def test_a_double_record_by_another_app_counts_once_and_untargeted_events_count_each(api, user):
    actor = UserFactory()
    # "widget" is no registered target type (activity.selectors.event_target_register): it always counts.
    for _ in range(2):
        EventFactory(recipient=user, actor=actor, kind="other", target_type="widget", target_id=7)
    EventFactory(recipient=user, actor=actor, kind="other", target_type="widget", target_id=8)
    EventFactory.create_batch(2, recipient=user, actor=None, kind="other", target_type="", target_id=None)
    assert _count(api) == 4


@pytest.mark.parametrize("likes", [1, 30])
def test_query_count_does_not_grow_with_real_events(api, user, likes, django_assert_num_queries):
    for thing in ThingFactory.create_batch(likes, creator=user):
        event_record(
            recipient=user, actor=UserFactory(), kind=Event.Kind.LIKE, target_type="thing", target_id=thing.pk
        )
    api.get("/users/me/")  # warm-up: the once-per-5-minutes last_active write
    with django_assert_num_queries(2):  # the token with its user and application; COUNT of distinct events
        assert _count(api) == likes
