"""Services of makes: counters (make_count, like_count) exact under concurrency, moderation and account
deletion; the upload finalizers."""
import threading
from collections.abc import Callable
from functools import partial

import pytest
from django.db import connection

from apps.activity.models import Event
from apps.accounts.services import user_delete
from apps.accounts.tests.factories import UserFactory
from apps.core.domain.exceptions import NotFound, RuleViolation
from apps.core.domain.moderation import moderation_hide
from apps.makes import rules, services
from apps.makes.models import Make, MakeLike
from apps.makes.tests.factories import MakeFactory, make_image
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory
from apps.uploads.flow import services as upload_services
from apps.uploads import store
from apps.uploads.models import Image, Upload

db = pytest.mark.django_db


def _make_count(thing) -> int:
    return Thing.objects.get(pk=thing.pk).make_count


# --- rules -------------------------------------------------------------------------------------------


def test_only_a_published_thing_may_be_made():
    assert rules.make_create_blockers(Thing(is_published=True)) == []
    assert rules.make_create_blockers(Thing(is_published=False)) == ["Only a published Thing can have copies."]


def test_nobody_likes_their_own_copy():
    creator, other = UserFactory.build(pk=1), UserFactory.build(pk=2)
    make = Make(creator_id=1)
    assert rules.make_like_blockers(creator, make) == ["You cannot like your own copy."]
    assert rules.make_like_blockers(other, make) == []
    assert rules.make_can_edit(creator, make) and not rules.make_can_edit(other, make)


# --- create ------------------------------------------------------------------------------------------


@db
def test_create_counts_the_make_and_tells_the_things_creator(user, other_user):
    thing = ThingFactory(creator=other_user)
    make = services.make_create(thing=thing, creator=user, description="PLA, 0.2 mm.")
    assert _make_count(thing) == 1
    event = Event.objects.get()
    assert (event.recipient, event.actor, event.kind, event.target_type, event.target_id) == (
        other_user, user, "make", "make", make.pk
    )


@db
def test_making_ones_own_thing_counts_but_records_no_event(user):
    thing = ThingFactory(creator=user)
    services.make_create(thing=thing, creator=user)
    assert _make_count(thing) == 1
    assert not Event.objects.exists()


@db
def test_create_refuses_a_draft(user):
    with pytest.raises(RuleViolation):
        services.make_create(thing=ThingFactory(is_published=False), creator=user)
    assert not Make.objects.exists()


# --- finalizers (apps.uploads calls them under the Upload's lock) ------------------------------------


@db
def test_finalizing_a_new_copys_upload_creates_the_copy_with_its_image(user, other_user, s3):
    thing = ThingFactory(creator=other_user)
    upload = services.make_upload_start(thing=thing, owner=user, filename="print.jpg")
    store.put(upload.key, b"\xff\xd8not-really-a-jpeg")
    summary = upload_services.upload_finalize(upload_id=upload.pk, user=user)
    make = Make.objects.get()
    image = Image.objects.get()
    assert (make.thing_id, make.creator_id, make.description) == (thing.pk, user.pk, "")
    upload.refresh_from_db()  # its key is now the frozen copy's (issue 14, finding 4)
    assert (image.copy_id, image.thing_id, image.key) == (make.pk, None, upload.key)
    assert summary == {"id": image.pk, "name": "print.jpg", "url": f"http://testserver/copies/{make.pk}/images/{image.pk}"}
    assert _make_count(thing) == 1
    assert Event.objects.get().kind == "make"
    # Idempotent: a second finalize answers the same and makes nothing more.
    assert upload_services.upload_finalize(upload_id=upload.pk, user=user) == summary
    assert Make.objects.count() == 1 and _make_count(thing) == 1


@db
@pytest.mark.parametrize("change", ["deleted", "unpublished", "hidden"])
def test_a_new_copys_upload_fails_when_the_thing_went_away(user, other_user, s3, change):
    thing = ThingFactory(creator=other_user)
    upload = services.make_upload_start(thing=thing, owner=user, filename="print.jpg")
    store.put(upload.key, b"jpeg")
    if change == "deleted":
        thing.delete()
    elif change == "unpublished":
        Thing.objects.filter(pk=thing.pk).update(is_published=False)
    else:
        Thing.objects.filter(pk=thing.pk).update(is_hidden=True)
    with pytest.raises(NotFound):
        upload_services.upload_finalize(upload_id=upload.pk, user=user)
    assert Upload.objects.get(pk=upload.pk).status == Upload.Status.FAILED
    assert not Make.objects.exists() and not Image.objects.exists()


@db
def test_finalizing_another_image_adds_it_to_the_copy(user, s3):
    make = MakeFactory(creator=user)
    upload = services.make_image_upload_start(make=make, owner=user, filename="side.png")
    store.put(upload.key, b"png")
    summary = upload_services.upload_finalize(upload_id=upload.pk, user=user)
    image = Image.objects.get()
    assert image.copy_id == make.pk
    assert summary["url"] == f"http://testserver/copies/{make.pk}/images/{image.pk}"


@db
def test_another_images_upload_fails_when_the_copy_was_deleted(user, s3):
    make = MakeFactory(creator=user)
    upload = services.make_image_upload_start(make=make, owner=user, filename="side.png")
    store.put(upload.key, b"png")
    services.make_delete(make=make)
    with pytest.raises(NotFound):
        upload_services.upload_finalize(upload_id=upload.pk, user=user)
    assert Upload.objects.get(pk=upload.pk).status == Upload.Status.FAILED


# --- delete, moderation ------------------------------------------------------------------------------


@db
def test_delete_lowers_make_count_once(user):
    thing = ThingFactory()
    make = services.make_create(thing=thing, creator=user)
    services.make_create(thing=thing, creator=UserFactory())
    services.make_delete(make=make)
    services.make_delete(make=make)  # twice: a no-op
    assert _make_count(thing) == 1


@db
def test_make_count_is_the_number_of_visible_makes_through_hide_unhide_and_delete(user):
    thing = ThingFactory()
    make = services.make_create(thing=thing, creator=user)
    services.make_create(thing=thing, creator=UserFactory())
    moderation_hide(obj=make, reason="spam", by=None)
    services.make_hidden_changed(make=make)
    assert _make_count(thing) == 1
    services.make_delete(make=make)  # a hidden make was not counted: nothing to take off
    assert _make_count(thing) == 1


@db
def test_deleting_a_user_releases_their_makes_and_likes(user, other_user):
    thing = ThingFactory(creator=other_user)
    leaving = UserFactory()
    services.make_create(thing=thing, creator=leaving)
    staying_make = services.make_create(thing=thing, creator=user)
    hidden = services.make_create(thing=ThingFactory(), creator=leaving)
    moderation_hide(obj=hidden, reason="spam", by=None)
    services.make_hidden_changed(make=hidden)
    services.make_like(user=leaving, make=staying_make)
    services.make_like(user=other_user, make=staying_make)
    make_image(Make.objects.filter(creator=leaving).first())

    user_delete(user=leaving)

    assert _make_count(thing) == 1
    assert Thing.objects.get(pk=hidden.thing_id).make_count == 0
    assert Make.objects.get(pk=staying_make.pk).like_count == 1
    assert not Make.objects.filter(creator_id=leaving.pk).exists()
    assert not Image.objects.filter(copy__isnull=False).exists()


# --- concurrency -------------------------------------------------------------------------------------


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
    make = MakeFactory()
    likers = UserFactory.create_batch(12)
    for liker in likers[:6]:
        services.make_like(user=liker, make=make)
    # Six new likes (each sent twice at once) and six unlikes, all at the same moment.
    calls = [lambda u=u: services.make_like(user=u, make=make) for u in likers[6:] for _ in range(2)]
    calls += [lambda u=u: services.make_unlike(user=u, make=make) for u in likers[:6]]
    _run_concurrently(calls)
    make.refresh_from_db()
    assert make.like_count == MakeLike.objects.filter(make=make).count() == 6
    assert Event.objects.filter(kind="like", target_type="make").count() == 6  # no doubles, unlikes retracted


@pytest.mark.django_db(transaction=True)
def test_make_count_stays_exact_under_concurrent_creates_deletes_and_hides():
    thing = ThingFactory()
    makers = UserFactory.create_batch(6)
    existing = [services.make_create(thing=thing, creator=u) for u in makers[:4]]
    calls: list[Callable[[], object]] = [partial(services.make_create, thing=thing, creator=u) for u in makers[4:]]
    calls += [partial(services.make_delete, make=m) for m in existing[:2]]

    def hide(make):
        moderation_hide(obj=make, reason="spam", by=None)
        services.make_hidden_changed(make=make)

    calls += [partial(hide, m) for m in existing[2:3]]
    _run_concurrently(calls)
    assert _make_count(thing) == Make.objects.filter(thing=thing, is_hidden=False).count() == 3
