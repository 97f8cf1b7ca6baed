"""The search table (issue 17) kept in step by every service that changes what it copies.

Each test changes a Thing through the service the API, the admin or another app uses, then compares
the Thing's search row with the Thing itself, column by column (`assert_row_in_step`).
"""
from datetime import UTC, datetime

import pytest
from django.db import connection
from django.db.models import F

from apps.accounts.services import user_delete
from apps.accounts.tests.factories import UserFactory
from apps.core.domain.moderation import moderation_hide, moderation_unhide
from apps.makes import services as make_services
from apps.search.models import SearchThing
from apps.search.services import thing_counters_update, thing_index_search, thing_search_sync
from apps.search.tests.helpers import indexed_thing
from apps.things import services as thing_services
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory, category
from apps.uploads.files.services import file_download
from apps.uploads.tests.file_factories import live_file

pytestmark = pytest.mark.django_db

MIRRORED = ("creator_id", "is_published", "is_hidden", "is_wip", "license", "category_id", "make_count",
            "added", "like_count")


def row(thing) -> SearchThing | None:
    return SearchThing.objects.filter(thing_id=thing.pk).first()


def vector_text(thing) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT vector::text FROM search_thing WHERE thing_id = %s", [thing.pk])
        found = cursor.fetchone()
    return found[0] if found else ""


def assert_row_in_step(thing) -> SearchThing:
    thing = Thing.objects.get(pk=thing.pk)
    search_row = row(thing)
    assert search_row is not None
    for column in MIRRORED:
        assert getattr(search_row, column) == getattr(thing, column), column
    assert search_row.popularity == thing.like_count + thing.make_count + thing.download_count
    with connection.cursor() as cursor:
        cursor.execute("SELECT search_vector::text FROM things_thing WHERE id = %s", [thing.pk])
        assert vector_text(thing) == cursor.fetchone()[0]
    return search_row


# --- text and visibility ---------------------------------------------------------------------------


def test_create_writes_the_row(user):
    thing = thing_services.thing_create(creator=user, name="Wall bracket", description="Holds shelves.",
                                        tags=["wall_mount"], category="Replacement Parts", license="gpl")
    search_row = assert_row_in_step(thing)
    assert not search_row.is_published
    assert "'bracket':2A" in vector_text(thing) and "'mount':4B" in vector_text(thing)


@pytest.mark.parametrize("data", [{"name": "Cable pulley"}, {"description": "Guides a cable."},
                                  {"tags": ["pulley"]}])
def test_update_of_the_text_rewrites_the_vector(user, data):
    thing = thing_services.thing_create(creator=user, name="Wall bracket")
    thing_services.thing_update(thing=thing, data=data)
    assert_row_in_step(thing)
    assert ("pulley" in vector_text(thing)) or ("cabl" in vector_text(thing))


@pytest.mark.parametrize("data", [{"license": "gpl"}, {"is_wip": True}, {"category": "Replacement Parts"},
                                  {"category": None}])
def test_update_of_a_filter_field_syncs_the_row(user, data):
    thing = thing_services.thing_create(creator=user, name="Wall bracket", category="Replacement Parts")
    thing_services.thing_update(thing=thing, data=data)
    assert_row_in_step(thing)


def test_publish_syncs_the_row(user):
    thing = thing_services.thing_create(creator=user, name="Wall bracket", description="Holds shelves.")
    Thing.objects.filter(pk=thing.pk).update(file_count=1)  # publishable (rules.thing_publish_blockers)
    thing_services.thing_publish(thing=thing)
    assert assert_row_in_step(thing).is_published


def test_a_moderator_hiding_and_unhiding_syncs_the_row(user):
    thing = indexed_thing(creator=user)
    moderator = UserFactory(is_staff=True)
    moderation_hide(obj=thing, reason="spam", by=moderator)
    thing_services.thing_hidden_changed(thing=thing)
    assert assert_row_in_step(thing).is_hidden
    moderation_unhide(obj=thing)
    thing_services.thing_hidden_changed(thing=thing)
    assert not assert_row_in_step(thing).is_hidden


def test_delete_removes_the_row_in_the_database(user, django_assert_num_queries):
    thing = indexed_thing(creator=user)
    thing_services.thing_delete(thing=thing)
    assert row(thing) is None


def test_deleting_the_creator_removes_the_rows_of_their_things(user):
    things = [indexed_thing(creator=user) for _ in range(2)]
    user_delete(user=user)
    assert not SearchThing.objects.filter(thing_id__in=[t.pk for t in things]).exists()


def test_sync_of_a_thing_never_indexed_writes_nothing():
    thing = ThingFactory()
    thing_search_sync(thing_ids=[thing.pk])
    assert row(thing) is None


# --- counters ---------------------------------------------------------------------------------------


def test_like_and_unlike_move_the_row_s_like_count_and_popularity(user):
    thing = indexed_thing()
    thing_services.thing_like(user=user, thing=thing)
    assert assert_row_in_step(thing).like_count == 1
    thing_services.thing_unlike(user=user, thing=thing)
    assert assert_row_in_step(thing).like_count == 0


def test_a_departing_user_s_likes_leave_the_rows(user):
    things = [indexed_thing() for _ in range(2)]
    for thing in things:
        thing_services.thing_like(user=user, thing=thing)
    thing_services.thing_likes_release_for_user(user=user)
    for thing in things:
        assert assert_row_in_step(thing).like_count == 0


def test_makes_move_the_row_s_make_count(user):
    thing = indexed_thing()
    make = make_services.make_create(thing=thing, creator=user)
    assert assert_row_in_step(thing).make_count == 1
    make.is_hidden = True
    make.save(update_fields=["is_hidden"])
    make_services.make_hidden_changed(make=make)
    assert assert_row_in_step(thing).make_count == 0
    make.is_hidden = False
    make.save(update_fields=["is_hidden"])
    make_services.make_hidden_changed(make=make)
    make_services.make_delete(make=make)
    assert assert_row_in_step(thing).make_count == 0


def test_a_departing_user_s_makes_leave_the_rows(user):
    thing = indexed_thing()
    make_services.make_create(thing=thing, creator=user)
    make_services.makes_release_for_user(user=user)
    assert assert_row_in_step(thing).make_count == 0


def test_a_download_raises_the_row_s_popularity(user, s3):
    thing = indexed_thing()
    file_download(file=live_file(s3, thing), user=user)
    assert assert_row_in_step(thing).popularity == 1


def test_counters_update_is_one_statement_and_counts_the_things_updated(django_assert_num_queries):
    things = [indexed_thing(like_count=3), indexed_thing(like_count=0)]
    qs = Thing.objects.filter(pk__in=[t.pk for t in things], like_count__gt=0)
    with django_assert_num_queries(1):  # the Things' UPDATE and their rows', one statement
        assert thing_counters_update(qs, like_count=F("like_count") - 1) == 1
    for thing in things:
        assert_row_in_step(thing)


def test_counters_update_across_a_relation_updates_only_the_matching_things(user):
    tagged, untagged = indexed_thing(tags=["gear"]), indexed_thing()
    gear = Thing.objects.filter(thingtag__tag__name="gear")
    thing_counters_update(gear, download_count=F("download_count") + 5)
    assert assert_row_in_step(tagged).popularity == 5
    assert assert_row_in_step(untagged).popularity == 0


def test_reindexing_repairs_a_row_written_around_the_services():
    thing = indexed_thing()
    Thing.objects.filter(pk=thing.pk).update(added=datetime(2025, 1, 1, tzinfo=UTC), category=category("art"))
    thing_index_search(thing_ids=[thing.pk])
    assert_row_in_step(thing)
