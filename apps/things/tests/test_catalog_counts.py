"""Tag and category counts kept by the database (migration 0013, apps.things.counts).

After every kind of write that changes what a count covers (a Thing created, published, retagged, moved,
hidden, made private, deleted, its creator deleted; the admin's bulk UPDATE; SQL; a tag or a category
deleted), the kept rows equal a fresh count of the tables (`counts_drift()` is empty), and the API shows
them: anonymous readers the `shown` number, staff the `listed` one. Plus the race the triggers' row lock
is for: a Thing's tags and its visibility changed by two transactions at once."""
import threading

import pytest
from django.db import connection, connections, transaction

from apps.accounts.services import user_delete
from apps.accounts.tests.factories import UserFactory
from apps.core.domain.moderation import moderation_hide, moderation_unhide
from apps.things import services
from apps.things.counts import counts_drift, counts_rebuild
from apps.things.models import Category, CategoryCount, Tag, TagCount, Thing, ThingTag
from apps.things.tests.factories import ThingFactory, category

pytestmark = pytest.mark.django_db


def _tag(name: str) -> tuple[int, int]:
    row = TagCount.objects.filter(tag__name=name).values_list("listed", "shown").first()
    return row or (0, 0)


def _category(slug: str) -> tuple[int, int]:
    row = CategoryCount.objects.filter(category__slug=slug).values_list("listed", "shown").first()
    return row or (0, 0)


@pytest.fixture
def staff_api(client_for):
    return client_for(UserFactory(is_staff=True))


def test_a_thing_counts_once_published_and_moves_with_its_tags_and_category(owner):
    thing = services.thing_create(creator=owner, name="Hinge", description="A hinge.", category="Replacement Parts",
                                  tags=["hinge", "door"])
    assert _tag("hinge") == (0, 0) and _category("replacement-parts") == (0, 0)  # a draft counts nowhere
    services.thing_publish(thing=thing)
    assert _tag("hinge") == (1, 1) and _tag("door") == (1, 1) and _category("replacement-parts") == (1, 1)
    services.thing_update(thing=thing, data={"tags": ["door", "gate"], "category": "Robotics"})
    assert _tag("hinge") == (0, 0) and _tag("door") == (1, 1) and _tag("gate") == (1, 1)
    assert _category("replacement-parts") == (0, 0) and _category("robotics") == (1, 1)
    services.thing_update(thing=thing, data={"category": None})
    assert _category("robotics") == (0, 0)
    assert counts_drift() == []


def test_hiding_moves_shown_only_and_privacy_moves_both(owner):
    moderator = UserFactory(is_staff=True)
    thing = ThingFactory(creator=owner, tags=["clip"], category=category("robotics"))
    assert _tag("clip") == (1, 1)
    moderation_hide(obj=thing, reason="spam", by=moderator)
    assert _tag("clip") == (1, 0) and _category("robotics") == (1, 0)
    moderation_unhide(obj=Thing.objects.get(pk=thing.pk))
    assert _tag("clip") == (1, 1)
    private = Thing.objects.get(pk=thing.pk)
    private.is_private = True  # the admin's form (the API has no such field)
    private.save()
    assert _tag("clip") == (0, 0) and _category("robotics") == (0, 0)
    assert counts_drift() == []


def test_deleting_a_thing_or_its_creator_takes_its_counts_away(owner):
    kept = ThingFactory(tags=["spool"], category=category("robotics"))
    gone = ThingFactory(creator=owner, tags=["spool", "holder"], category=category("robotics"))
    ThingFactory(creator=owner, tags=["holder"], category=category("robotics"))
    assert _tag("spool") == (2, 2) and _tag("holder") == (2, 2) and _category("robotics") == (3, 3)
    services.thing_delete(thing=gone)
    assert _tag("spool") == (1, 1) and _tag("holder") == (1, 1) and _category("robotics") == (2, 2)
    user_delete(user=owner)
    assert _tag("spool") == (1, 1) and _tag("holder") == (0, 0) and _category("robotics") == (1, 1)
    assert Thing.objects.filter(pk=kept.pk).exists()
    assert counts_drift() == []


def test_writes_around_the_services_move_the_counts_too(owner):
    """The admin's bulk actions send QuerySet.update(); a script may send SQL: the database counts
    whatever sends the statement."""
    things = ThingFactory.create_batch(3, creator=owner, tags=["gear"], category=category("robotics"))
    Thing.objects.filter(creator=owner).update(is_hidden=True)
    assert _tag("gear") == (3, 0)
    with connection.cursor() as cursor:
        cursor.execute("UPDATE things_thing SET is_published = false WHERE id = %s", [things[0].pk])
    assert _tag("gear") == (2, 0) and _category("robotics") == (2, 0)
    ThingTag.objects.filter(thing=things[1]).update(tag=Tag.objects.create(name="cog"))  # a tag merged
    assert _tag("gear") == (1, 0) and _tag("cog") == (1, 0)
    assert counts_drift() == []


def test_deleting_a_tag_or_a_category_leaves_the_others_right(owner):
    thing = ThingFactory(creator=owner, tags=["doomed", "stays"], category=category("robotics"))
    Tag.objects.get(name="doomed").delete()
    assert not TagCount.objects.filter(tag__name="doomed").exists() and _tag("stays") == (1, 1)
    leaf = Category.objects.create(name="Ephemeral", slug="ephemeral", parent=category("hobby"))
    services.thing_update(thing=Thing.objects.get(pk=thing.pk), data={"category": "Ephemeral"})
    assert _category("ephemeral") == (1, 1) and _category("robotics") == (0, 0)
    leaf.delete()  # the Thing's category is set to null
    assert Thing.objects.get(pk=thing.pk).category_id is None
    assert counts_drift() == []


def test_the_api_shows_the_kept_counts_to_each_viewer(api, staff_api, owner):
    moderator = UserFactory(is_staff=True)
    ThingFactory(creator=owner, tags=["lamp"], category=category("robotics"))
    hidden = ThingFactory(creator=owner, tags=["lamp"], category=category("robotics"))
    moderation_hide(obj=hidden, reason="spam", by=moderator)
    assert api.get("/tags/lamp/").json()["count"] == 1
    assert staff_api.get("/tags/lamp/").json()["count"] == 2
    assert api.get("/categories/robotics/").json()["count"] == 1
    assert staff_api.get("/categories/robotics/").json()["count"] == 2
    # A parent counts its sub-categories' Things (robotics is under hobby).
    assert staff_api.get("/categories/hobby/").json()["count"] == 2
    assert [t["count"] for t in api.get(f"/things/{hidden.pk - 1}/tags").json()] == [1]
    # A list's total is the kept count: the Link header's last page.
    assert 'page=2&per_page=1>; rel="last"' in staff_api.get("/tags/lamp/things?per_page=1")["Link"]
    assert 'rel="next"' not in api.get("/tags/lamp/things?per_page=1")["Link"]


def test_rebuild_repairs_rows_a_bulk_load_left_out(owner):
    ThingFactory(creator=owner, tags=["rebuilt"], category=category("robotics"))
    TagCount.objects.all().delete()
    CategoryCount.objects.filter(category__slug="robotics").update(listed=7)
    assert {row[0] for row in counts_drift()} == {"things_tagcount", "things_categorycount"}
    counts_rebuild()
    assert counts_drift() == [] and _tag("rebuilt") == (1, 1)


@pytest.mark.django_db(transaction=True)
def test_tags_and_visibility_changed_at_once_count_every_tag_once(owner):
    """A transaction adding a tag to a published Thing and another hiding the Thing, at the same time:
    the tag's trigger locks the Thing's row, so the hiding waits for it and then finds the new tag
    committed (without the lock it counted only the tags it saw, and `shown` kept one too many)."""
    thing = ThingFactory(creator=owner, tags=["first"])
    extra = Tag.objects.create(name="second")
    tagged = threading.Event()

    def add_tag_and_wait():
        try:
            with transaction.atomic():
                ThingTag.objects.create(thing_id=thing.pk, tag=extra, position=1)
                tagged.set()
                hidden.wait(timeout=1)  # the hiding is waiting on the row lock by now
        finally:
            connections.close_all()

    hidden = threading.Event()
    worker = threading.Thread(target=add_tag_and_wait)
    worker.start()
    assert tagged.wait(timeout=10)

    def hide():
        try:
            Thing.objects.filter(pk=thing.pk).update(is_hidden=True)
        finally:
            connections.close_all()

    hider = threading.Thread(target=hide)
    hider.start()
    hider.join(timeout=0.5)
    assert hider.is_alive(), "the hiding should wait for the transaction that holds the Thing's row"
    hidden.set()
    worker.join(timeout=10)
    hider.join(timeout=10)
    assert _tag("first") == (1, 0) and _tag("second") == (1, 0)
    assert counts_drift() == []


def test_a_things_tag_links_are_written_in_tag_id_order_and_keep_its_order(api, owner):
    """Two Things retagged at once lock their tags' count rows in one order (tag ids): the links are
    inserted so, while their positions keep the order the client gave."""
    older, newer = Tag.objects.create(name="older"), Tag.objects.create(name="newer")
    thing = ThingFactory(creator=owner)
    services.thing_update(thing=thing, data={"tags": ["newer", "unseen", "older"]})
    links = list(ThingTag.objects.filter(thing=thing).order_by("pk").values_list("tag_id", flat=True))
    assert links == sorted(links) and links[:2] == [older.pk, newer.pk]
    assert [t["name"] for t in api.get(f"/things/{thing.pk}/tags").json()] == ["newer", "unseen", "older"]
    assert counts_drift() == []
