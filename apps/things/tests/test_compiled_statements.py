"""The Thing's own statement compiled once per process (apps.core.db.compiled, issue 17): each shape of
request (anonymous, a user, staff; detail or not) answers the same objects as the ORM building the
queryset afresh, with the viewer's own values bound per call."""
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from apps.accounts.tests.factories import UserFactory
from apps.core.db.compiled import CompiledQuery
from apps.things import selectors, services
from apps.things.tests.factories import ThingFactory
from tests.support.plans import plan_on_a_small_table

pytestmark = pytest.mark.django_db

FIELDS = ("pk", "name", "is_published", "is_hidden", "like_count", "creator_id", "category_id")


def _seen(thing) -> tuple:
    return (
        tuple(getattr(thing, name) for name in FIELDS),
        thing.creator.username,
        getattr(thing, "is_liked", None),
        getattr(thing, "is_watched", None),
        tuple(getattr(thing, "tag_name_list", ()) or ()),
    )


def _orm(thing_id, viewer, detail):
    from apps.things.selectors import _with_tag_names, thing_queryset, visible_q  # the ORM, afresh

    qs = thing_queryset(viewer=viewer)
    if detail:
        qs = _with_tag_names(qs)
    return qs.filter(visible_q(viewer), pk=thing_id).first()


@pytest.mark.parametrize("detail", [True, False])
def test_every_shape_answers_as_the_orm(detail):
    owner, reader, staff = UserFactory(), UserFactory(), UserFactory(is_staff=True)
    things = [ThingFactory(creator=owner, tags=["b", "a"]), ThingFactory(creator=owner, is_published=False)]
    services.thing_like(user=reader, thing=things[0])
    services.thing_toggle_watch(user=reader, thing=things[0])
    for viewer in (None, owner, reader, staff):
        for thing in things:
            compiled = selectors._thing_statement(detail=detail, viewer=viewer).objects(
                thing.pk, *selectors._viewer_values(viewer)
            )
            expected = _orm(thing.pk, viewer, detail)
            assert [_seen(t) for t in compiled] == ([_seen(expected)] if expected else [])


def test_a_shape_is_compiled_once_and_costs_one_statement():
    thing = ThingFactory()
    reader = UserFactory()
    statement = selectors._thing_statement(detail=True, viewer=reader)
    statement.objects(thing.pk, reader.pk)
    assert statement._compiled is not None  # PostgreSQL: tag names as an array, no prefetch
    with CaptureQueriesContext(connection) as queries:
        assert [t.pk for t in statement.objects(thing.pk, reader.pk)] == [thing.pk]
    assert len(queries.captured_queries) == 1


def test_a_builder_that_prefetches_is_run_as_a_queryset_every_time():
    from apps.things.models import Thing

    thing = ThingFactory(tags=["x"])
    statement = CompiledQuery(lambda pk: Thing.objects.filter(pk=pk).prefetch_related("tags"), slots=1)
    assert [t.pk for t in statement.objects(thing.pk)] == [thing.pk]
    assert statement._compiled is None and statement._unsupported


@pytest.mark.parametrize("name", ["newest", "featured"])
def test_a_compiled_list_pages_and_counts_as_its_queryset(name):
    from django.utils import timezone

    from apps.core.domain.moderation import moderation_hide
    from apps.things.models import Thing

    things = [ThingFactory() for _ in range(7)] + [ThingFactory(is_published=False)]
    Thing.objects.filter(pk__in=[t.pk for t in things[::2]]).update(is_featured=True, featured_at=timezone.now())
    moderation_hide(obj=things[2], reason="spam", by=None)
    queryset = {"newest": selectors.thing_list_newest, "featured": selectors.thing_list_featured}[name](
        viewer=UserFactory()
    ).values_list("pk", "version")
    compiled = selectors.thing_list_ids_compiled(name)
    assert compiled is not None
    bound = compiled.bound()
    assert bound.count() == queryset.count()
    for start in range(0, 9, 3):
        assert bound[start:start + 3] == list(queryset[start:start + 3])


@pytest.mark.parametrize("name", ["newest", "featured"])
def test_a_compiled_page_of_short_things_is_the_querysets_page(name):
    from django.utils import timezone

    from apps.core.domain.moderation import moderation_hide
    from apps.things.models import Thing

    things = [ThingFactory(tags=["t"]) for _ in range(7)] + [ThingFactory(is_published=False)]
    Thing.objects.filter(pk__in=[t.pk for t in things[::2]]).update(is_featured=True, featured_at=timezone.now())
    moderation_hide(obj=things[2], reason="spam", by=None)
    queryset = {"newest": selectors.thing_list_newest, "featured": selectors.thing_list_featured}[name](
        viewer=UserFactory()
    )
    rows = selectors.thing_list_rows_compiled(name)
    assert rows is not None
    bound = rows.bound()
    assert bound.count() == queryset.count()
    for start in range(0, 9, 3):
        with CaptureQueriesContext(connection) as queries:
            page = bound[start:start + 3]
        assert [_seen(t) for t in page] == [_seen(t) for t in queryset[start:start + 3]]
        assert len(queries.captured_queries) == 1  # creators and pictures joined, no query per row


def test_short_things_by_ids_are_one_statement_for_any_number_of_ids():
    things = [ThingFactory() for _ in range(4)]
    ids = [t.pk for t in things]
    expected = {t.pk: _seen(t) for t in selectors.thing_short_queryset().filter(pk__in=ids)}
    for chosen in (ids[:1], ids, [*ids[1:3], 10**12]):
        with CaptureQueriesContext(connection) as queries:
            found = selectors.thing_short_rows(chosen)
        assert {t.pk: _seen(t) for t in found} == {pk: expected[pk] for pk in chosen if pk in expected}
        assert len(queries.captured_queries) == 1
    assert selectors._SHORT_BY_IDS._compiled is not None  # compiled, not run as a queryset each time


@pytest.mark.parametrize("name", ["newest", "featured"])
def test_a_compiled_page_is_planned_once_not_on_every_read(name):
    # A page's LIMIT/OFFSET are written into its statement (apps.core.db.compiled.limit_offset_sql): bound
    # as parameters, PostgreSQL planned the prepared statement again on every read (a custom plan each time).
    from django.utils import timezone

    from apps.things.models import Thing

    things = [ThingFactory() for _ in range(4)]
    Thing.objects.filter(pk__in=[t.pk for t in things]).update(is_featured=True, featured_at=timezone.now())
    rows = selectors.thing_list_rows_compiled(name)
    assert rows is not None
    for _ in range(8):  # PostgreSQL weighs a generic plan after five custom ones
        assert len(rows.bound()[0:2]) == 2
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements"
            " WHERE statement LIKE %s AND statement LIKE %s",
            ['SELECT "things_thing"."id"%', "% LIMIT 2 OFFSET 0"],
        )
        (plans,) = cursor.fetchall()
    assert plans == (8, 0)


def test_a_page_after_the_first_is_chosen_by_its_ids_in_the_index_alone():
    # apps.core.db.compiled.deferred_page: the ids of a later page in a subquery that the list's index
    # answers without reading the table (things_listed_added_idx); the first page keeps its plain statement.
    things = [ThingFactory() for _ in range(5)]
    rows = selectors.thing_list_rows_compiled("newest")
    assert rows is not None
    for start, deferred in ((0, False), (2, True)):
        with CaptureQueriesContext(connection) as queries:
            page = rows.bound()[start:start + 2]
        assert [t.pk for t in page] == [t.pk for t in sorted(things, key=lambda t: (t.added, t.pk), reverse=True)][
            start:start + 2]
        (sql,) = [q["sql"] for q in queries.captured_queries]
        assert (f"LIMIT 2 OFFSET {start}) AS page" in sql) is deferred and sql.endswith("LIMIT 2 OFFSET 0") is not deferred
    ids_sql = rows.page_query(30)._compile()[1]
    inner = ids_sql[ids_sql.index("(SELECT * FROM (") + len("(SELECT * FROM ("): ids_sql.index("/* page window */")]
    plan = plan_on_a_small_table(inner + " LIMIT 30 OFFSET 30")
    assert "Index Only Scan using things_listed_added_idx" in plan, plan
