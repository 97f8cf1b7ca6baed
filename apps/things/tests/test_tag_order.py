"""A tag's Things newest first from the tag links' own index (migration 0015, ThingTag.added).

The copy of the Thing's `added` on each tag link is the database's: whatever writes a link or moves a
Thing's `added` (a service, a bulk insert, `QuerySet.update()`, SQL, on PostgreSQL and on the quick
start's SQLite), every link carries its Thing's value, so the lists ordered by it are the Things' own order
(added, then id, newest first), ties and all."""
import datetime
import io

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone

from apps.things import services
from apps.things.counts import links_added_drift
from apps.things.models import Tag, Thing, ThingTag
from apps.things.tests.factories import ThingFactory
from tests.support.api import ids
from tests.support.quickstart import quickstart_shell


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


def _copies_differ() -> list[tuple[int, int]]:
    """(link id, Thing id) of every link whose `added` is not its Thing's."""
    return [(link.pk, link.thing_id) for link in ThingTag.objects.select_related("thing")
            if link.added != link.thing.added]


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
from apps.things import services
from apps.things.counts import links_added_drift
from apps.things.models import Thing, ThingTag
maker = User.objects.create_user(username="maker", password="x")
thing = services.thing_create(creator=maker, name="Gear", description="", tags=["gear", "wheel"])
Thing.objects.filter(pk=thing.pk).update(added=timezone.now() - datetime.timedelta(days=30))
ThingTag.objects.filter(thing=thing).update(added=timezone.now())
thing.refresh_from_db()
print("DIFFER", sum(1 for link in ThingTag.objects.filter(thing=thing) if link.added != thing.added),
      ThingTag.objects.filter(thing=thing).count())
"""


@pytest.mark.long
def test_the_quick_starts_sqlite_keeps_the_copy_too(quickstart_run_dir):
    result = quickstart_shell(quickstart_run_dir, SQLITE_SCRIPT)
    assert "DIFFER 0 2" in result.stdout
