"""docs/decisions.md: Wire versions. Every GET of the API, asked in each wire version, answers what that
version's OpenAPI document says (the body against the schema documented for its status), and says which
version it used in `Thingyard-Version`."""
import pytest

from tests.wire.openapi import assert_answer_matches, document
from apps.comments.tests.factories import CommentFactory
from apps.groups.tests.factories import GroupTopicFactory
from apps.makes.tests.factories import MakeFactory, make_image
from apps.thingcollections.tests.factories import CollectionThingFactory
from apps.things.tests.factories import ThingFactory
from apps.uploads.tests.file_factories import ImageFactory, ThingFileFactory
from tests.world import world_build

VERSIONS = ("spec", "thingiverse")


@pytest.fixture
def world(db, user, application, s3):
    return world_build(owner=user, app=application)


def _get_paths(doc: dict, values: dict) -> list[str]:
    return [template.format(**values) for template, item in doc["paths"].items() if "get" in item]


@pytest.mark.parametrize("version", VERSIONS)
def test_every_get_answers_its_versions_document(version, world, api):
    statuses = {}
    for path in _get_paths(document(version), world.path_values()):
        response = api.get(path, HTTP_THINGYARD_VERSION=version)
        assert response["Thingyard-Version"] == version, path
        statuses[path] = response.status_code
        if response.get("Content-Type", "").startswith("application/json"):
            assert_answer_matches(version, "GET", path, response)
    answered = [path for path, status in statuses.items() if status == 200]
    # Nearly every GET answers 200 for the owner of the world's objects (the rest: documented errors).
    assert len(answered) >= 0.8 * len(statuses), {p: s for p, s in statuses.items() if s != 200}


def test_the_two_documents_differ_where_the_table_says(db):
    spec, live = document("spec")["components"]["schemas"], document("thingiverse")["components"]["schemas"]
    assert spec["Thing"]["properties"]["is_published"]["type"] == "boolean"
    assert live["Thing"]["properties"]["is_published"] == {"type": "integer", "enum": [0, 1], "readOnly": True}
    assert live["Thing"]["properties"]["tags"]["type"] == "array"
    assert "files" not in live["Thing"]["properties"] and "type_name" in live["Thing"]["required"]
    assert "oneOf" in spec["ThingSearchAnswer"] and live["ThingSearchAnswer"]["required"] == ["total", "hits"]
    for schemas in (spec, live):  # the additive fields: in both
        assert {"details", "description_html", "instructions_html", "view_count", "download_count"} <= set(
            schemas["Thing"]["properties"])
        assert {"direct_url", "download_count"} <= set(schemas["File"]["properties"])



def _statements(api, paths: list[str], version: str) -> dict[str, tuple[int, int, int]]:
    """path → (status, statements, items) of a first read: the caches emptied before it, after one read
    of the same path (what a process does once: statements compiled, the connection's first checks)."""
    from django.core.cache import cache
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    found = {}
    for path in paths:
        api.get(path, HTTP_THINGYARD_VERSION=version)
        cache.clear()
        with CaptureQueriesContext(connection) as queries:
            response = api.get(path, HTTP_THINGYARD_VERSION=version)
        found[path] = (response.status_code, len(queries), _items(response))
    return found


def _items(response) -> int:
    if not response.get("Content-Type", "").startswith("application/json") or not response.content:
        return 0
    body = response.json()
    if isinstance(body, dict):
        body = body.get("hits", [])
    return len(body) if isinstance(body, list) else 0


def _more_of_everything(world, user, application) -> None:
    """More items in every list the world's paths read: a second world of the same owner (their things,
    copies, collections, groups …); a further file, image, comment, reply, copy, likes, derivatives and
    ancestor of the first world's Thing; a Thing in its collection and its group, a topic, a member and a
    topic comment in its group, an image and a comment on its copy; the owner's likes, followers, follows and
    downloads; a featured Thing tagged `bracket` in the `robotics` category; everything indexed for search."""
    from apps.accounts.models import Follow
    from apps.accounts.tests.factories import UserFactory
    from apps.comments.tests.factories import join
    from apps.groups.models import GroupThing
    from apps.search.services import thing_index_search
    from apps.things.models import Like, Remix, Thing
    from apps.things.tests.factories import category
    from apps.uploads.models import Download

    second = world_build(owner=user, app=application)
    thing = world.thing
    ThingFileFactory(thing=thing)
    ImageFactory(thing=thing)
    CommentFactory(thing=thing, user=user)
    CommentFactory(thing=thing, user=user, parent=world.comment)
    MakeFactory(thing=thing, creator=user)
    make_image(world.make)
    CommentFactory(target_type="make", thing=None, make=world.make, user=user)
    CommentFactory(target_type="group_topic", thing=None, topic=world.topic, user=user)
    for _ in range(2):
        Like.objects.create(thing=thing, user=UserFactory())
        Remix.objects.create(ancestor=thing, derivative=ThingFactory(creator=user))
    Remix.objects.create(ancestor=ThingFactory(creator=user), derivative=thing)
    tagged = ThingFactory(creator=user, name="Another bracket", tags=["bracket"], category=category("robotics"),
                          is_featured=True)
    CollectionThingFactory(collection=world.collection, thing=second.thing, added_by_app=application)
    GroupTopicFactory(group=world.group, user=user)
    GroupThing.objects.create(group=world.group, thing=tagged)
    join(world.group, UserFactory())
    Like.objects.create(thing=ThingFactory(), user=user)
    Follow.objects.create(follower=UserFactory(), followed=user)
    Follow.objects.create(follower=user, followed=UserFactory())
    Download.objects.create(user=user, thing=tagged)
    thing_index_search(thing_ids=list(Thing.objects.values_list("pk", flat=True)))


@pytest.mark.parametrize("version", VERSIONS)
def test_no_get_costs_a_statement_per_item(version, world, api, user, application):
    """Every GET path of the version's document, read the first time (caches emptied), makes as many
    statements when its lists hold more items as when they held fewer (but not none: an empty page skips
    reading its rows): nothing in any answer (the base shape, or what a wire version adds, wire.Provide) is
    read item by item."""
    paths = _get_paths(document(version), world.path_values())
    _more_of_everything(world, user, application)  # every list holds an item: an empty page reads less
    before = _statements(api, paths, version)
    _more_of_everything(world, user, application)
    after = _statements(api, paths, version)
    both = [p for p in paths if before[p][0] == after[p][0] == 200]
    grown = {p: (before[p][1], after[p][1]) for p in both if after[p][1] > before[p][1]}
    assert not grown, grown
    longer = [p for p in both if after[p][2] > before[p][2]]
    assert len(longer) >= 40, longer  # the lists did grow: the check above compared something
