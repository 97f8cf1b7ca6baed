"""/popular/ read a page at a time (apps.things.selectors.PopularPages): each page's Things are chosen
from the Things liked in the window and a run of the lifetime index, never by ranking the Things before
the page, and every page is the same slice of the whole ranking (thing_list_popular)."""
import random
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from apps.accounts.tests.factories import UserFactory
from apps.core.site.pages import PAGE_SIZE
from apps.things.models import Like, Thing
from apps.things.selectors import PopularPages, popular_window_ids, thing_list_popular, thing_list_popular_pages
from apps.things.tests.factories import ThingFactory
from tests.support.plans import plan_on_a_small_table

pytestmark = pytest.mark.django_db


def _like(thing, *, days_ago: float, fans) -> None:
    for fan in fans:
        like = Like.objects.create(user=fan, thing=thing)
        Like.objects.filter(pk=like.pk).update(created=timezone.now() - timedelta(days=days_ago))


@pytest.fixture
def catalogue():
    """40 Things: lifetime activity with many ties, `added` with ties, likes inside and outside the
    window (some on Things whose lifetime part is low, some on Things nobody else may see), and Things
    hidden, private or unpublished, which the list never shows."""
    rng = random.Random(30)
    fans = UserFactory.create_batch(4)
    things = ThingFactory.create_batch(40)
    moments = [timezone.now() - timedelta(days=d) for d in (1, 2, 2, 5)]
    for thing in things:
        Thing.objects.filter(pk=thing.pk).update(
            make_count=rng.choice([0, 0, 0, 1, 2]), download_count=rng.choice([0, 0, 5, 20, 40]),
            added=rng.choice(moments),
        )
    for thing in rng.sample(things, 14):
        _like(thing, days_ago=rng.choice([1, 3, 12, 45]), fans=rng.sample(fans, rng.randint(1, 4)))
    hidden, private, draft = rng.sample(things, 3)
    Thing.objects.filter(pk=hidden.pk).update(is_hidden=True)
    Thing.objects.filter(pk=private.pk).update(is_private=True)
    Thing.objects.filter(pk=draft.pk).update(is_published=False)
    others = UserFactory.create_batch(2)
    for unseen in (hidden, private, draft):  # liked in the window: still not on the list
        _like(unseen, days_ago=1, fans=others)
    return things


def test_every_window_is_the_same_slice_of_the_whole_ranking(catalogue):
    now = timezone.now()
    whole = list(thing_list_popular(viewer=None, now=now).values_list("pk", flat=True))
    assert len(whole) == 37
    recent = Like.objects.filter(created__gte=now - timedelta(days=30)).values("thing_id").distinct().count()
    assert 3 < recent < 20  # the window holds a few of the list's Things, and three it does not show
    for start in range(0, 42):
        for stop in range(start + 1, 45):
            assert popular_window_ids(now, start, stop) == whole[start:stop], (start, stop)
    pages = PopularPages(now=now)
    assert pages.count() == 37
    assert list(pages[0:0]) == []
    assert list(pages.values_list("pk", flat=True)[35:40]) == whole[35:40]
    with pytest.raises(TypeError):
        pages[3]


def test_when_every_public_thing_was_liked_the_list_is_the_liked_things(catalogue):
    now = timezone.now()
    fan = UserFactory()
    for thing in Thing.objects.filter(is_published=True, is_private=False, is_hidden=False):
        _like(thing, days_ago=2, fans=[fan])
    whole = list(thing_list_popular(viewer=None, now=now).values_list("pk", flat=True))
    for start, stop in ((0, 1), (0, 37), (5, 12), (36, 40), (37, 50)):
        assert popular_window_ids(now, start, stop) == whole[start:stop]


@pytest.mark.parametrize("merged_from", [0, 1000])  # every page merged; the first pages ranked (the default)
def test_the_api_and_the_site_page_through_it_and_staff_still_see_hidden_things(
    api, catalogue, client, monkeypatch, merged_from
):
    monkeypatch.setattr("apps.things.selectors.POPULAR_MERGED_FROM", merged_from)
    now = timezone.now()
    whole = list(thing_list_popular(viewer=None, now=now).values_list("pk", flat=True))
    read: list[int] = []
    for page in range(1, 7):
        response = api.get("/popular/", {"per_page": 7, "page": page})
        assert response.status_code == 200, response.content
        read.extend(thing["id"] for thing in response.json())
    assert read == whole
    assert [t["id"] for t in api.get("/popular/", {"per_page": 7, "page": 99}).json()] == whole[35:]
    page = client.get("/browse/popular?page=2")
    assert page.status_code == 200
    assert [thing.pk for thing in page.context["page"].object_list] == whole[PAGE_SIZE:2 * PAGE_SIZE]
    # Staff see the hidden Thing too (never the private one or the draft), merged or ranked alike.
    staff = UserFactory(is_staff=True)
    for_staff = list(thing_list_popular(viewer=staff, now=now).values_list("pk", flat=True))
    assert len(for_staff) == 38 and set(for_staff) - set(whole) == {Thing.objects.get(is_hidden=True).pk}
    pages = thing_list_popular_pages(viewer=staff)
    assert [t.pk for start in range(0, 38, 5) for t in pages[start:start + 5]] == for_staff
    for start in range(0, 40):
        assert popular_window_ids(now, start, start + 3, viewer=staff) == for_staff[start:start + 3]


def test_a_deep_page_walks_the_lifetime_index_alone(catalogue):
    """The run of a deep page is read in the index (its INCLUDE columns answer the filter and the key),
    not by reading every row before it."""
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's plan")
    since = timezone.now() - timedelta(days=30)
    from apps.things.models import popular_lifetime
    from apps.things.selectors import thing_public_q

    run = (
        Thing.objects.filter(thing_public_q(None))
        .exclude(pk__in=Like.objects.filter(created__gte=since).values("thing_id"))
        .order_by(popular_lifetime().desc(), "-added", "-id")
        .annotate(lifetime=popular_lifetime())
        .values_list("lifetime", "added", "pk")[20:50]
    )
    sql, params = run.query.sql_with_params()
    plan = plan_on_a_small_table(sql, params)
    assert "Index Only Scan using things_popular_lifetime_idx" in plan, plan


@pytest.mark.caches_off  # the page built, not a kept one
@pytest.mark.parametrize("rows", [1, 30])
def test_a_merged_page_costs_the_same_statements_for_1_and_30_things(api, monkeypatch, rows, django_assert_num_queries):
    monkeypatch.setattr("apps.things.selectors.POPULAR_MERGED_FROM", 0)
    fan = UserFactory()
    things = ThingFactory.create_batch(rows)
    _like(things[0], days_ago=1, fans=[fan])
    api.get("/popular/")  # warm-up: the once-per-5-minutes last_active write
    # The token with its user and application; COUNT; the Things liked in the window; the page's run of the
    # lifetime index; the page's rows.
    with django_assert_num_queries(5):
        assert len(api.get("/popular/").json()) == rows


@pytest.mark.parametrize("merged_from", [0, 1000])
def test_pages_made_for_ids_only_read_no_picture_after_the_block(catalogue, monkeypatch, merged_from):
    """The cached lists build /popular/'s ids inside thing_ids_only() and read the page after it
    (apps.things.views_catalog): the page's statement still leaves the pictures' join out."""
    from apps.things.selectors import thing_ids_only

    monkeypatch.setattr("apps.things.selectors.POPULAR_MERGED_FROM", merged_from)
    now = timezone.now()
    with thing_ids_only():
        for_ids = PopularPages(now=now)
    for pages in (for_ids, for_ids.values_list("pk", "version")):
        assert "uploads_image" not in str(pages[0:30].query)
    assert "uploads_image" in str(PopularPages(now=now)[0:30].query)


@pytest.mark.parametrize("version", ["spec", "thingiverse"])
@pytest.mark.parametrize("caches_on", [True, False])
def test_merged_pages_take_bad_input_as_the_list_always_did(api, catalogue, client, monkeypatch, settings, version,
                                                            caches_on):
    """Every page merged: a page that is no number is 400 with the error body, one past any integer is
    the last page, in both wire versions, the body cache on and off; the site shows its first page."""
    from tests.support.api import assert_error

    monkeypatch.setattr("apps.things.selectors.POPULAR_MERGED_FROM", 0)
    if not caches_on:
        settings.THING_BODY_CACHE_SECONDS = 0
    whole = list(thing_list_popular(viewer=None, now=timezone.now()).values_list("pk", flat=True))
    headers = {"HTTP_THINGYARD_VERSION": version}
    assert_error(api.get("/popular/", {"page": "abc"}, **headers), 400, "VALIDATION_FAILED")
    last = api.get("/popular/", {"page": str(2**63), "per_page": 10}, **headers)
    assert last.status_code == 200, last.content
    assert [thing["id"] for thing in last.json()] == whole[30:]
    assert 'page=4&per_page=10>; rel="last"' in last["Link"]
    page = client.get("/browse/popular?page=abc")
    assert [thing.pk for thing in page.context["page"].object_list] == whole[:PAGE_SIZE]
