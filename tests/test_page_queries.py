"""Every site page costs the same number of queries for 1 item as for 30 (issue 15).

Each row of PAGES builds `n` of what the page lists (Things, files, images, comments, makes, members …),
signs the right visitor in, and names the page; the test asserts the exact count for n = 1 and n = 30.
The comment of each row names its queries. A signed-in visitor adds two: the session and the user.
"""

from dataclasses import dataclass
from collections.abc import Callable

import pytest
from django.test import Client

from apps.accounts.models import Message
from apps.accounts.tests.factories import UserFactory
from apps.comments.tests.factories import CommentFactory
from apps.groups.models import GroupMember, GroupThing
from apps.groups.tests.factories import GroupFactory, GroupTopicFactory
from apps.makes.tests.factories import MakeFactory, make_image
from apps.oauth import services as oauth_services
from apps.oauth.tests.factories import ApplicationFactory
from apps.orders.tests.factories import OrderFactory
from apps.search.services import thing_index_search
from apps.things import services as thing_services
from apps.things.models import Remix
from apps.things.tests.factories import ThingFactory, category
from apps.thingcollections.tests.factories import CollectionFactory, CollectionThingFactory
from apps.uploads.tests.file_factories import ImageFactory, ThingFileFactory

pytestmark = pytest.mark.django_db


@dataclass
class Page:
    """`build(n, user)` makes n items and returns the path; `signed_in` says whether `user` is signed in."""

    name: str
    build: Callable
    queries: int
    signed_in: bool = False
    shows: Callable | None = None  # shows(html, n): the n items are really on the page


def _cards(html, n):
    return html.count('class="card"') == min(n, 24)


def _things(n, **kwargs):
    return [ThingFactory(name=f"Widget {i}", tags=["widget"], **kwargs) for i in range(n)]


def _front(n, user):
    things = _things(n, category=category("hobby"))
    for thing in things:
        thing_services.thing_set_featured(thing=thing, featured=True)
    return "/"


def _category(n, user):
    _things(n, category=category("robotics"))
    return "/browse/categories/hobby"


def _find(n, user):
    thing_index_search(thing_ids=[t.pk for t in _things(n)])
    return "/find?q=widget"


def _find_users(n, user):
    for i in range(n):
        UserFactory(username=f"widgeteer{i}")
    return "/find?q=widgeteer&type=users"


def _find_collections(n, user):
    for i in range(n):
        CollectionThingFactory(collection=CollectionFactory(name=f"Widgets {i}"))
    return "/find?q=widgets&type=collections"


def _find_makes(n, user):
    for i in range(n):
        make_image(MakeFactory(description=f"widget {i}"))
    return "/find?q=widget&type=makes"


def _thing(n, user, *, owner=False):
    thing = ThingFactory(creator=user if owner else UserFactory(), tags=[f"t{i}" for i in range(n)])
    for i in range(n):
        ThingFileFactory(
            thing=thing, name=f"part{i}.stl", geometry={"triangles": 12, "size_mm": {"x": 1, "y": 2, "z": 3}}
        )
        ImageFactory(thing=thing)
        parent = CommentFactory(thing=thing)
        CommentFactory(parent=parent)
        make_image(MakeFactory(thing=thing))
        Remix.objects.create(derivative=ThingFactory(), ancestor=thing)
        Remix.objects.create(derivative=thing, ancestor=ThingFactory())
        CollectionThingFactory(collection=CollectionFactory(creator=user), thing=thing)
    return thing


def _make(n, user):
    make = MakeFactory()
    for _ in range(n):
        make_image(make)
        CommentFactory(thing=None, make=make, target_type="make")
    return f"/make:{make.pk}"


def _collection(n, user):
    collection = CollectionFactory()
    for _ in range(n):
        CollectionThingFactory(collection=collection)
    return f"/collection:{collection.pk}"


def _groups(n, user):
    for _ in range(n):
        GroupFactory()
    return "/browse/groups"


def _group(n, user):
    group = GroupFactory(slug="widgets")
    for _ in range(n):
        GroupMember.objects.create(group=group, user=UserFactory())
        GroupThing.objects.create(group=group, thing=ThingFactory())
        GroupTopicFactory(group=group)
    return "/groups/widgets"


def _topic(n, user):
    topic = GroupTopicFactory(group=GroupFactory(slug="widgets"))
    for _ in range(n):
        CommentFactory(thing=None, topic=topic, target_type="group_topic")
    return f"/groups/widgets/topics/{topic.pk}"


def _profile(tab):
    def build(n, user):
        maker = UserFactory(username="maker")
        for _ in range(n):
            ThingFactory(creator=maker)
            make_image(MakeFactory(creator=maker))
            CollectionThingFactory(collection=CollectionFactory(creator=maker))
            thing_services.thing_like(user=maker, thing=ThingFactory())
        return f"/@maker/{tab}" if tab else "/@maker"

    return build


def _messages(n, user):
    for _ in range(n):
        Message.objects.create(sender=UserFactory(), recipient=user, body="Hello")
    return "/account/messages"


def _orders(n, user):
    for _ in range(n):
        OrderFactory(buyer=user)
    return "/account/orders"


def _authorized_apps(n, user):
    for _ in range(n):
        oauth_services.authorization_grant(application=ApplicationFactory(), user=user)
    return "/account/apps"


def _portal_list(n, user):
    for _ in range(n):
        ApplicationFactory(user=user)
    return "/developers/apps/"


def _portal_app(n, user):
    from apps.webhooks.models import Attempt, Delivery
    from django.utils import timezone

    app = ApplicationFactory(user=user, webhook_url="https://hooks.example.com/x")
    for i in range(n):
        delivery = Delivery.objects.create(application=app, event="ping", message_id=f"msg_{i}", payload={})
        Attempt.objects.create(delivery=delivery, number=1, started_at=timezone.now(), status_code=200)
    return f"/developers/apps/{app.pk}/"


def _new_remix(n, user):
    return "/new?" + "&".join(f"remix={t.pk}" for t in _things(n))


PAGES = [
    # featured, newest, popular, the top-level categories with their counts
    Page("front page", _front, 4),
    # count, page of cards
    Page("newest", lambda n, u: (_things(n), "/browse/newest")[1], 2, shows=_cards),
    Page("popular", lambda n, u: (_things(n), "/browse/popular")[1], 2),
    Page(
        "featured",
        lambda n, u: (
            [thing_services.thing_set_featured(thing=t, featured=True) for t in _things(n)],
            "/browse/featured",
        )[1],
        2,
    ),
    # the category tree with counts
    Page("categories", lambda n, u: (_things(n, category=category("hobby")), "/browse/categories")[1], 1),
    # the category with its kept count (the page's total: no COUNT), its sub-categories, page of cards
    Page("category", _category, 3, shows=_cards),
    # the tag with its kept count (the page's total), page of cards
    Page("tag", lambda n, u: (_things(n), "/browse/tags/widget")[1], 2),
    # the ids of the result window, the page's Things, the category filter's choices
    Page("search things", _find, 3, shows=_cards),
    # count, page of users
    Page("search makers", _find_users, 2),
    # count, page of collections, their thumbnails' Things
    Page("search collections", _find_collections, 3, shows=_cards),
    # count, page of makes
    Page("search makes", _find_makes, 2, shows=_cards),
    # the Thing, its tags, derivatives, ancestors; files, images, makes, comments
    Page(
        "Thing page (visitor)",
        lambda n, u: f"/thing:{_thing(n, u).pk}",
        8,
        shows=lambda html, n: html.count('class="file-row"') == n and html.count('class="comment"') == 2 * n,
    ),
    # + session, user, the user's collections for "collect", the Thing apps
    Page("Thing page (signed in)", lambda n, u: f"/thing:{_thing(n, u).pk}", 12, signed_in=True),
    # session, user, the Thing and its tags, the category choices, files, images
    Page("edit page", lambda n, u: f"/thing:{_thing(n, u, owner=True).pk}/edit", 7, signed_in=True),
    # the Thing and its tags, files, images
    Page("file status", lambda n, u: f"/thing:{_thing(n, u).pk}/files/status", 4),
    # session, user, the category choices, the Things remixed
    Page("new Thing (remix)", _new_remix, 4, signed_in=True),
    # the make with its Thing and creator, its images, its comments
    Page("make", _make, 3, shows=lambda html, n: html.count('class="comment"') == n),
    # the collection with its count (the page's count too), page of Things
    Page("collection", _collection, 2, shows=_cards),
    # count, page of groups with their counts
    Page("groups", _groups, 2),
    # the group, members, topics, count and page of its Things
    Page("group", _group, 6,  # + the follower count and whether the viewer follows (issue 26)
         shows=lambda html, n: html.count("/topics/") == min(n, 20)),
    # the topic with its group, the comments
    Page("group topic", _topic, 2, shows=lambda html, n: html.count('class="comment"') == n),
    # the user, count, page (Things, makes, likes); collections add their thumbnails' Things
    # Each profile tab: + the follower count and whether the viewer follows, in one statement (issue 26).
    Page("profile Things", _profile(""), 4),
    Page("profile makes", _profile("makes"), 4, shows=_cards),
    Page("profile collections", _profile("collections"), 5),
    Page("profile likes", _profile("likes"), 4),
    # session, user, unread count, count, page of messages
    Page("messages", _messages, 5, signed_in=True),
    # session, user, count, page of orders
    Page("orders", _orders, 4, signed_in=True),
    # session, user, the authorizations with their apps
    Page("authorized apps", _authorized_apps, 3, signed_in=True),
    # the developer portal (issue 15 gives it the one stylesheet; its pages predate it):
    # session, user, the user's apps with their user counts
    Page("portal app list", _portal_list, 3, signed_in=True),
    # session, user, the app, its user count, its read-only token, its webhook event selection, the
    # deliveries, their attempts, the event names of the log's filter
    Page("portal app detail", _portal_app, 9, signed_in=True),
]


@pytest.mark.parametrize("n", [1, 30])
@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_the_page_costs_the_same_queries_for_1_and_30_items(page, n, user, django_assert_num_queries):
    path = page.build(n, user)
    client = Client()
    if page.signed_in:
        client.force_login(user)
    with django_assert_num_queries(page.queries):
        response = client.get(path)
    assert response.status_code == 200, path
    if page.shows is not None:
        assert page.shows(response.content.decode(), n), f"{path} does not show its {n} items"
