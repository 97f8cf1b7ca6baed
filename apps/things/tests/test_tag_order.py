"""A tag's Things newest first from the tag links' own index (migration 0015, ThingTag.added; migration
0017, ThingTag.shown and the partial index deep pages are chosen in).

The copy of the Thing's `added` on each tag link is the database's: whatever writes a link or moves a
Thing's `added` (a service, a bulk insert, `QuerySet.update()`, SQL, on PostgreSQL and on the quick
start's SQLite), every link carries its Thing's value, so the lists ordered by it are the Things' own order
(added, then id, newest first), ties and all. The same holds for whether everyone may see the Thing
(published, not private, not hidden), which a deep page's ids are chosen by."""
import datetime
import io

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone

from apps.things import selectors, services
from apps.things.counts import links_added_drift
from apps.things.models import Tag, Thing, ThingTag
from apps.things.tests.factories import ThingFactory
from tests.support.api import ids
from tests.support.quickstart import quickstart_shell
from tests.support.plans import plan_on_a_small_table


@pytest.mark.django_db(transaction=True)
def test_things_counts_finds_and_repairs_copies_a_load_without_triggers_left(owner):
    thing = ThingFactory(creator=owner, tags=["gear", "wheel"])
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE things_thingtag DISABLE TRIGGER things_thingtag_added")
        try:
            cursor.execute("UPDATE things_thingtag SET added = NULL WHERE thing_id = %s", [thing.pk])
        finally:
            cursor.execute("ALTER TABLE things_thingtag ENABLE TRIGGER things_thingtag_added")
    assert links_added_drift() == 2
    with pytest.raises(CommandError, match="2 row"):
        call_command("things_counts", stdout=io.StringIO())
    out = io.StringIO()
    call_command("things_counts", "--rebuild", stdout=out)
    assert "2 tag link(s)" in out.getvalue()
    assert links_added_drift() == 0 and _copies_differ() == []
    call_command("things_counts", stdout=io.StringIO())


def _shown(thing) -> bool:
    return thing.is_published and not thing.is_private and not thing.is_hidden


def _copies_differ() -> list[tuple[int, int]]:
    """(link id, Thing id) of every link whose `added` or shown state is not its Thing's."""
    return [(link.pk, link.thing_id) for link in ThingTag.objects.select_related("thing")
            if link.added != link.thing.added or link.shown != _shown(link.thing)]


@pytest.mark.django_db
def test_every_way_of_writing_a_link_or_a_things_added_keeps_the_copy(owner):
    thing = ThingFactory(creator=owner, tags=["gear"])
    services.thing_update(thing=thing, data={"tags": ["gear", "wheel"]})
    other = ThingFactory(creator=owner)
    ThingTag.objects.bulk_create([ThingTag(thing=other, tag=Tag.objects.get(name="gear"), position=0)])
    with connection.cursor() as cursor:
        cursor.execute("INSERT INTO things_thingtag (thing_id, tag_id, position) VALUES (%s, %s, 1)",
                       [other.pk, Tag.objects.get(name="wheel").pk])
    assert ThingTag.objects.count() == 4
    assert _copies_differ() == []
    Thing.objects.filter(pk=thing.pk).update(added=timezone.now() - datetime.timedelta(days=400))
    assert _copies_differ() == []
    ThingTag.objects.filter(thing=other).update(added=timezone.now() + datetime.timedelta(days=1))
    assert _copies_differ() == []  # a link's own copy cannot be set apart from its Thing's
    third = ThingFactory(creator=owner)
    Thing.objects.filter(pk=third.pk).update(added=timezone.now() - datetime.timedelta(days=900))
    ThingTag.objects.filter(thing=other, tag__name="wheel").update(thing=third)  # a link moved to another Thing
    assert ThingTag.objects.filter(thing=third).count() == 1
    assert _copies_differ() == []


@pytest.mark.django_db
def test_every_way_of_changing_a_things_visibility_keeps_the_links_shown_state(owner):
    from apps.accounts.tests.factories import UserFactory
    from apps.core.domain.moderation import moderation_hide, moderation_unhide

    thing = ThingFactory(creator=owner, tags=["gear", "wheel"])
    assert set(ThingTag.objects.values_list("shown", flat=True)) == {True} and _copies_differ() == []
    moderation_hide(obj=thing, reason="spam", by=UserFactory(is_staff=True))
    assert not ThingTag.objects.filter(shown=True).exists() and _copies_differ() == []
    moderation_unhide(obj=thing)
    assert _copies_differ() == [] and ThingTag.objects.filter(shown=True).count() == 2
    for change in ({"is_private": True}, {"is_private": False}, {"is_published": False}, {"is_published": True},
                   {"is_hidden": True}, {"is_hidden": False}):
        Thing.objects.filter(pk=thing.pk).update(**change)  # QuerySet.update(): no signal, no save()
        assert _copies_differ() == [], change
    draft = ThingFactory(creator=owner, is_published=False)
    link = ThingTag.objects.create(thing=draft, tag=Tag.objects.get(name="gear"), position=0)
    ThingTag.objects.filter(pk=link.pk).update(shown=True)  # a link's own copy cannot be set apart
    link.shown = True
    link.save()  # nor written by Python
    with connection.cursor() as cursor:
        cursor.execute("UPDATE things_thingtag SET shown = TRUE WHERE id = %s", [link.pk])
    assert _copies_differ() == [] and not ThingTag.objects.get(pk=link.pk).shown
    services.thing_publish(thing=draft)
    assert _copies_differ() == [] and ThingTag.objects.get(pk=link.pk).shown


@pytest.mark.django_db
@pytest.mark.parametrize("ids_first_from", [0, 300])  # every page after the first chosen by ids; none
@pytest.mark.parametrize("caches", ["on", "off"])
def test_every_page_of_a_tag_is_the_lists_own_page_whatever_its_things_state(caches, ids_first_from, api, client_for,
                                                                            owner, settings, monkeypatch):
    from apps.accounts.tests.factories import UserFactory

    monkeypatch.setattr(selectors, "TAG_IDS_FIRST_FROM", ids_first_from)
    if caches == "off":
        settings.THING_BODY_CACHE_SECONDS = 0
    things = [ThingFactory(creator=owner, tags=["gear"]) for _ in range(14)]
    now = timezone.now()
    for n, thing in enumerate(things):
        Thing.objects.filter(pk=thing.pk).update(added=now - datetime.timedelta(days=n // 2))  # ties
    Thing.objects.filter(pk__in=[things[1].pk, things[6].pk]).update(is_hidden=True)
    Thing.objects.filter(pk=things[3].pk).update(is_private=True)
    Thing.objects.filter(pk=things[9].pk).update(is_published=False)
    for viewer, client in ((None, api), (UserFactory(is_staff=True), None)):
        client = client or client_for(viewer)
        visible = Thing.objects.filter(pk__in=[t.pk for t in things], is_published=True, is_private=False)
        if viewer is None:
            visible = visible.filter(is_hidden=False)
        expected = list(visible.order_by("-added", "-id").values_list("pk", flat=True))
        assert len(expected) == (10 if viewer is None else 12)
        paged = [pk for page in range(1, 5) for pk in ids(client.get("/tags/gear/things", {"per_page": 3, "page": page}))]
        assert paged == expected, viewer


@pytest.mark.django_db
def test_the_sites_tag_page_shows_a_deep_page_of_the_shown_things(owner, monkeypatch):
    from functools import partial

    from django.test import Client

    from apps.things.pages import browse

    monkeypatch.setattr(browse, "paginate", partial(browse.paginate, per_page=2))
    monkeypatch.setattr(selectors, "TAG_IDS_FIRST_FROM", 1)  # the second page chosen by its ids
    things = [ThingFactory(creator=owner, tags=["gear"], name=f"Gear number {n}") for n in range(5)]
    Thing.objects.filter(pk=things[2].pk).update(is_hidden=True)
    browser = Client()
    browser.force_login(owner)
    shown = [f"Gear number {n}" for n in (4, 3, 1, 0)]  # newest first, the hidden one left out
    for number, names in ((1, shown[:2]), (2, shown[2:])):
        html = browser.get("/browse/tags/gear", {"page": number}).content.decode()
        assert [name for name in shown if name in html] == names, number
    assert "Gear number 2" not in browser.get("/browse/tags/gear", {"page": 2}).content.decode()


@pytest.mark.django_db
def test_a_deep_page_is_chosen_in_the_shown_links_index_alone(owner):
    from apps.things.selectors import TAG_IDS_FIRST_FROM, tag_list_things

    thing = ThingFactory(creator=owner, tags=["gear"])
    listed = tag_list_things(tag=Tag.objects.get(name="gear"), viewer=None)
    start = TAG_IDS_FIRST_FROM
    sql, params = listed[start:start + 30].query.sql_with_params()
    plan = plan_on_a_small_table(sql, params)
    assert "Index Only Scan using things_thingtag_shown_idx" in plan, plan
    assert list(tag_list_things(tag=Tag.objects.get(name="gear"), viewer=None)[0:30]) == [thing]


@pytest.mark.django_db
def test_the_tag_lists_are_the_things_own_order_ties_and_all(api, owner):
    now = timezone.now()
    same = now - datetime.timedelta(days=3)
    things = [ThingFactory(creator=owner, tags=["gear"], license="cc" if n % 2 else "gpl") for n in range(6)]
    for thing, added in zip(things, [same, same, now - datetime.timedelta(days=9), same, now, now]):
        Thing.objects.filter(pk=thing.pk).update(added=added)
    expected = list(Thing.objects.filter(pk__in=[t.pk for t in things]).order_by("-added", "-id")
                    .values_list("pk", flat=True))
    assert ids(api.get("/tags/gear/things", {"per_page": 100})) == expected
    paged = [pk for page in (1, 2, 3) for pk in ids(api.get("/tags/gear/things", {"per_page": 2, "page": page}))]
    assert paged == expected
    assert ids(api.get("/search/gear/tag", {"per_page": 100})) == expected
    assert ids(api.get("/search/gear/tag", {"per_page": 100, "sort": "newest", "license": "cc"})) == [
        pk for pk in expected if Thing.objects.get(pk=pk).license == "cc"
    ]


@pytest.mark.django_db
def test_the_newest_page_walks_the_tags_own_index(owner):
    ThingFactory(creator=owner, tags=["gear"])
    from apps.things.selectors import tag_list_things

    sql = str(tag_list_things(tag=Tag.objects.get(name="gear"), viewer=None)[:30].query)
    assert 'ORDER BY "things_thingtag"."added" DESC, "things_thingtag"."thing_id" DESC' in sql
    assert sql.count('JOIN "things_thingtag"') == 1  # the order reuses the filter's join


SQLITE_SCRIPT = """
import datetime
from django.utils import timezone
from apps.accounts.models import User
from apps.things import selectors, services
from apps.things.counts import links_added_drift
from apps.things.models import Thing, ThingTag
maker = User.objects.create_user(username="maker", password="x")
thing = services.thing_create(creator=maker, name="Gear", description="", tags=["gear", "wheel"])
Thing.objects.filter(pk=thing.pk).update(added=timezone.now() - datetime.timedelta(days=30))
ThingTag.objects.filter(thing=thing).update(added=timezone.now())
thing.refresh_from_db()
print("DIFFER", sum(1 for link in ThingTag.objects.filter(thing=thing) if link.added != thing.added),
      ThingTag.objects.filter(thing=thing).count())
for change in ({"is_published": True}, {"is_hidden": True}, {"is_hidden": False}, {"is_private": True}):
    Thing.objects.filter(pk=thing.pk).update(**change)
    print("SHOWN", ThingTag.objects.filter(thing=thing, shown=True).count())
"""


@pytest.mark.long
def test_the_quick_starts_sqlite_keeps_the_copy_too(quickstart_run_dir):
    result = quickstart_shell(quickstart_run_dir, SQLITE_SCRIPT)
    assert "DIFFER 0 2" in result.stdout
    assert "SHOWN 2\nSHOWN 0\nSHOWN 2\nSHOWN 0\n" in result.stdout  # published, hidden, shown, private
