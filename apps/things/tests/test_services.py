import threading

import pytest
from django.db import connection

from apps.activity.models import Event
from apps.accounts.tests.factories import UserFactory
from apps.core.domain.exceptions import NotFound, RuleViolation, ValidationFailed
from apps.things import services
from apps.things.models import Like, Tag, Thing, Watch
from apps.things.tests.factories import ThingFactory, TagFactory, category

pytestmark = pytest.mark.django_db


# --- thing_create / thing_update ------------------------------------------------------------------


def test_create_stores_an_unpublished_thing_with_tags_in_order(user):
    thing = services.thing_create(creator=user, name="Clip", category="Decor", tags=["b", "A", "a"])
    assert not thing.is_published and thing.published_at is None
    assert thing.category == category("decor")
    assert list(thing.tags.order_by("thingtag__position").values_list("name", flat=True)) == ["b", "A"]


def test_create_indexes_the_thing_for_search(user):
    thing = services.thing_create(creator=user, name="Gear", tags=["spur"], description="Module 1.")
    assert Thing.objects.get(pk=thing.pk).search_vector is not None


def test_create_refuses_unknown_references_and_stores_nothing(user):
    with pytest.raises(ValidationFailed) as exc:
        services.thing_create(creator=user, name="X", category="Nope", tags=["?"], ancestors=[999999])
    assert set(exc.value.errors) == {"category", "tags", "ancestors"}
    assert not Thing.objects.exists() and not Tag.objects.exists()


def test_update_replaces_tags_and_reindexes(user):
    thing = services.thing_create(creator=user, name="Gear", tags=["spur"], description="Module 1.")
    TagFactory(name="Helical")
    services.thing_update(thing=thing, data={"tags": ["helical", "spur"], "name": "Worm"})
    thing.refresh_from_db()
    assert thing.name == "Worm"
    tags = thing.tags.order_by("thingtag__position").values_list("name", flat=True)
    assert list(tags) == ["Helical", "spur"]
    vector = Thing.objects.filter(pk=thing.pk).values_list("search_vector", flat=True).get()
    assert "worm" in str(vector) and "helic" in str(vector)


def test_update_without_changes_writes_nothing(user, django_assert_num_queries):
    thing = ThingFactory(creator=user, tags=["a"])
    # SAVEPOINT (the test's transaction); lock the row; read the current tags; RELEASE. No UPDATE.
    with django_assert_num_queries(4):
        services.thing_update(thing=thing, data={"name": thing.name, "tags": ["A"]})


# --- thing_publish / thing_set_featured -----------------------------------------------------------


def test_publish_sets_the_date_once(user):
    draft = ThingFactory(creator=user, is_published=False, published_at=None)
    published = services.thing_publish(thing=draft)
    first = published.published_at
    assert published.is_published and first is not None
    assert services.thing_publish(thing=draft).published_at == first


def test_publish_refuses_with_the_reasons(user):
    draft = ThingFactory(creator=user, is_published=False, description="")
    with pytest.raises(RuleViolation) as exc:
        services.thing_publish(thing=draft)
    assert exc.value.error_type == "NOT_PUBLISHABLE"
    assert exc.value.errors == ["Description cannot be blank."]


def test_publish_of_a_deleted_thing_is_not_found(user):
    thing = ThingFactory(creator=user, is_published=False)
    Thing.objects.filter(pk=thing.pk).delete()
    with pytest.raises(NotFound):
        services.thing_publish(thing=thing)


def test_set_featured_is_idempotent(user):
    thing = ThingFactory(creator=user)
    services.thing_set_featured(thing=thing, featured=True)
    first = Thing.objects.get(pk=thing.pk).featured_at
    assert first is not None
    services.thing_set_featured(thing=thing, featured=True)
    assert Thing.objects.get(pk=thing.pk).featured_at == first
    assert thing.featured_at == first
    services.thing_set_featured(thing=thing, featured=False)
    services.thing_set_featured(thing=thing, featured=False)
    thing.refresh_from_db()
    assert (thing.is_featured, thing.featured_at) == (False, None)


# --- likes and watches ----------------------------------------------------------------------------


def test_like_and_unlike_keep_the_counter_and_record_one_event(user, other_user):
    thing = ThingFactory(creator=other_user)
    services.thing_like(user=user, thing=thing)
    services.thing_like(user=user, thing=thing)
    assert Thing.objects.get(pk=thing.pk).like_count == 1
    assert Event.objects.filter(recipient=other_user, kind="like").count() == 1
    services.thing_unlike(user=user, thing=thing)
    services.thing_unlike(user=user, thing=thing)
    assert Thing.objects.get(pk=thing.pk).like_count == 0


def test_liking_ones_own_thing_is_a_rule_violation(user):
    with pytest.raises(RuleViolation):
        services.thing_like(user=user, thing=ThingFactory(creator=user))


def test_toggle_watch_flips(user, other_user):
    thing = ThingFactory(creator=other_user)
    assert services.thing_toggle_watch(user=user, thing=thing) is True
    assert services.thing_toggle_watch(user=user, thing=thing) is False
    assert not Watch.objects.exists()


def _run_concurrently(calls):
    barrier = threading.Barrier(len(calls))
    errors = []

    def run(call):
        try:
            barrier.wait()
            call()
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


@pytest.mark.django_db(transaction=True)
def test_like_count_stays_exact_under_concurrent_likes_and_unlikes():
    thing = ThingFactory()
    likers = UserFactory.create_batch(12)
    for liker in likers[:6]:
        services.thing_like(user=liker, thing=thing)
    # Six new likes, six unlikes, and each of the new likers liking twice at once.
    calls = [lambda u=u: services.thing_like(user=u, thing=thing) for u in likers[6:] for _ in range(2)]
    calls += [lambda u=u: services.thing_unlike(user=u, thing=thing) for u in likers[:6]]
    _run_concurrently(calls)
    thing.refresh_from_db()
    assert thing.like_count == Like.objects.filter(thing=thing).count() == 6
    # The 6 concurrent new likes, no doubles; the 6 taken back took their events with them.
    likers_left = set(Event.objects.filter(kind="like").values_list("actor_id", flat=True))
    assert likers_left == {u.pk for u in likers[6:]}
    assert Event.objects.filter(kind="like").count() == 6


@pytest.mark.django_db
def test_deleting_a_user_lowers_the_like_count_of_the_things_they_liked():
    from apps.accounts.services import user_delete
    from apps.accounts.tests.factories import UserFactory
    from apps.things.models import Thing
    from apps.things.services import thing_like
    from apps.things.tests.factories import ThingFactory

    thing = ThingFactory()
    leaving, staying = UserFactory(), UserFactory()
    thing_like(user=leaving, thing=thing)
    thing_like(user=staying, thing=thing)

    user_delete(user=leaving)

    assert Thing.objects.get(pk=thing.pk).like_count == 1
