"""docs/decisions.md: Wire versions. The `thingiverse` shapes of a Thing, a File and the searches, the
live service's empty pages and id search, the additive fields in both versions, and round trips: what is
written under one version reads right under the other."""
from typing import Any

import pytest
from django.test import Client

from apps.comments.tests.factories import CommentFactory
from apps.makes.tests.factories import MakeFactory
from apps.thingcollections.tests.factories import CollectionFactory, CollectionThingFactory
from apps.search.services import thing_index_search
from apps.search.tests.helpers import indexed_thing
from apps.things.tests.factories import ThingFactory
from apps.uploads.tests.file_factories import ThingFileFactory, put
from tests.support.api import assert_error

pytestmark = pytest.mark.django_db
LIVE = {"HTTP_THINGYARD_VERSION": "thingiverse"}
SUB_COLLECTIONS = ("files", "images", "likes", "derivatives", "categories")


@pytest.fixture
def family(user, other_user):
    parent = ThingFactory(creator=other_user, name="Parent bracket", tags=["bracket"])
    child = ThingFactory(
        creator=user, name="Child", tags=["shelf", "bracket"], license="cc-nd", is_featured=True,
        description="A **strong** one.", instructions="Print *flat*.",
    )
    child.ancestors.add(parent)
    ThingFactory(creator=other_user, tags=["bracket"])  # a second Thing tagged `bracket`
    root = CommentFactory(thing=child, user=other_user)
    CommentFactory(thing=child, user=user, parent=root)
    return parent, child


def test_a_thingiverse_thing(api, family):
    parent, child = family
    body = api.get(f"/things/{child.pk}/", **LIVE).json()
    for name in SUB_COLLECTIONS:
        assert name not in body and body[f"{name}_url"].endswith(f"/things/{child.pk}/{name}")
    assert body["tags_url"].endswith(f"/things/{child.pk}/tags") and body["ancestors_url"]
    assert [tag["name"] for tag in body["tags"]] == ["shelf", "bracket"]
    bracket = body["tags"][1]
    assert set(bracket) == {"name", "tag", "url", "count", "things_url", "absolute_url"}
    assert bracket["count"] == 3 and bracket["absolute_url"] == "/tag:bracket"
    assert bracket["things_url"].endswith("/tags/bracket/things")
    assert [a["id"] for a in body["ancestors"]] == [parent.pk] and body["ancestors"][0]["is_published"] == 1
    assert (body["is_published"], body["is_wip"], body["is_private"]) == (1, 0, 0)
    assert all(type(body[k]) is int for k in ("is_published", "is_wip", "is_private"))
    assert body["allows_derivatives"] is False and body["is_derivative"] is True
    assert body["is_featured"] is True and body["can_comment"] is True and body["is_nsfw"] is False
    assert body["type_name"] == "Thing"
    assert "<strong>strong</strong>" in body["description_html"] and "<em>flat</em>" in body["instructions_html"]
    assert [p["name"] for p in body["details_parts"]] == ["Summary", "Instructions"]
    assert "<h2>Summary</h2>" in body["details"] and "<h2>Instructions</h2>" in body["details"]
    assert body["root_comment_count"] == 1  # the reply is not a root comment
    assert body["remix_count"] == 0 and body["view_count"] == 0
    parent_body = api.get(f"/things/{parent.pk}/", **LIVE).json()
    assert parent_body["remix_count"] == 1 and parent_body["is_derivative"] is False
    assert parent_body["allows_derivatives"] is True


def test_a_spec_thing_is_unchanged_but_for_the_additive_fields(api, family):
    _, child = family
    body = api.get(f"/things/{child.pk}/").json()
    for name in (*SUB_COLLECTIONS, "tags", "ancestors"):
        assert body[name] == body[f"{name}_url"]
    assert body["is_published"] is True and body["tag_names"] == ["shelf", "bracket"]
    for name in ("type_name", "details_parts", "can_comment", "allows_derivatives"):
        assert name not in body
    assert "<h2>Summary</h2>" in body["details"] and body["description_html"] and body["root_comment_count"] == 1


def test_short_things_in_lists_carry_0_and_1(api, user, family):
    for path in (f"/users/{user.username}/things", "/newest/"):
        assert api.get(path).json()[0]["is_published"] is True
        assert api.get(path, **LIVE).json()[0]["is_published"] == 1


# The live short Thing's fields Thingyard has, sent under `thingiverse` only (docs/compatibility.md).
SHORT_LIVE_FIELDS = {
    "created_at", "preview_image", "is_private", "is_purchased", "collect_count", "make_count", "comment_count",
    "is_nsfw", "tags", "rank",
}


@pytest.fixture
def counted(user, other_user):
    thing = indexed_thing(creator=user, name="Counted widget", collect_count=2, make_count=3, comment_count=4)
    MakeFactory(thing=thing, creator=other_user)
    collection = CollectionFactory(creator=user)
    CollectionThingFactory(collection=collection, thing=thing)
    return thing, collection


def _short_paths(user, thing, collection) -> list[str]:
    return [
        f"/users/{user.username}/things", "/newest/", "/popular/", "/search/widget",
        f"/collections/{collection.pk}/things", f"/things/{thing.pk}/copies",
    ]


def _the_short(body, thing_id: int) -> dict:
    items = body["hits"] if isinstance(body, dict) and "hits" in body else body
    found = [item.get("thing", item) for item in items if item.get("thing", item)["id"] == thing_id]
    assert len(found) == 1, body
    return found[0]


def test_short_things_carry_the_live_fields_under_thingiverse_only(api, user, counted):
    thing, collection = counted
    for path in _short_paths(user, thing, collection):
        spec = _the_short(api.get(path).json(), thing.pk)
        live = _the_short(api.get(path, **LIVE).json(), thing.pk)
        assert not SHORT_LIVE_FIELDS & set(spec), path
        assert set(live) - set(spec) == SHORT_LIVE_FIELDS, path
        assert live["created_at"] == spec["added"] and live["preview_image"].startswith("http"), path
        assert (live["is_private"], live["is_purchased"], live["is_nsfw"], live["rank"]) == (0, 0, False, None), path
        assert (live["collect_count"], live["make_count"], live["comment_count"]) == (2, 3, 4), path
        assert all(type(live[k]) is int for k in ("is_private", "is_purchased", "collect_count")), path


def test_the_live_short_fields_cost_one_statement_an_answer(api, user, counted):
    """They are columns of each list's own statement (and the pictures it joins), but for the tags, read
    for the whole answer at once (apps.core.pipeline.batch): a list read the first time (caches emptied)
    makes one statement more under `thingiverse` than under `spec`."""
    from django.core.cache import cache
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    thing, collection = counted
    for path in _short_paths(user, thing, collection):
        api.get(path)  # what a process does once (statements compiled, the connection's first checks)
        counts = []
        for headers in ({}, LIVE):
            cache.clear()
            with CaptureQueriesContext(connection) as queries:
                assert api.get(path, **headers).status_code == 200, path
            counts.append(len(queries))
        assert counts[1] == counts[0] + 1, (path, counts, [q["sql"][:300] for q in queries.captured_queries])


def _short_with_tags(api, family, tag: str = "shelf") -> dict[str, tuple[int, list]]:
    """Every list that shows one of `family`'s Things (the child's `tag` among them): path → (its id, its
    `tags` there)."""
    parent, child = family
    thing_index_search(thing_ids=[parent.pk, child.pk])
    paths = {
        f"/users/{child.creator.username}/things": child.pk, "/newest/": child.pk, "/popular/": child.pk,
        "/featured/": child.pk, f"/tags/{tag}/things": child.pk, "/search/child": child.pk,
        f"/things/{parent.pk}/derivatives": child.pk, f"/users/{parent.creator.username}/things": parent.pk,
    }
    return {path: (tid, _the_short(api.get(path, **LIVE).json(), tid)["tags"]) for path, tid in paths.items()}


def test_a_list_items_tags_are_its_full_things_tags_read_fresh_or_kept(api, family):
    parent, child = family
    full = {t.pk: api.get(f"/things/{t.pk}/", **LIVE).json()["tags"] for t in family}
    assert [tag["name"] for tag in full[child.pk]] == ["shelf", "bracket"] and full[child.pk][1]["count"] == 3
    assert full[parent.pk] == _the_short({"hits": api.get(f"/things/{child.pk}/", **LIVE).json()["ancestors"]},
                                         parent.pk)["tags"]
    for read in ("fresh", "kept"):  # the second read answers from the short forms and pages kept by the first
        for path, (tid, tags) in _short_with_tags(api, family).items():
            assert tags == full[tid], (read, path, tags)


def test_a_list_shows_a_things_new_tags_at_once(api, family):
    _, child = family
    _short_with_tags(api, family)  # short forms and pages kept
    assert api.patch(f"/things/{child.pk}/", {"tags": ["hook"]}, content_type="application/json").status_code == 200
    for path, (tid, tags) in _short_with_tags(api, family, "hook").items():
        if tid == child.pk:
            assert [tag["name"] for tag in tags] == ["hook"] and tags[0]["count"] == 1, (path, tags)


def test_a_page_of_tagged_things_reads_their_tags_in_one_statement(api, user):
    from django.core.cache import cache
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def statements() -> int:
        cache.clear()
        with CaptureQueriesContext(connection) as queries:
            body = api.get("/newest/", **LIVE).json()
        assert all(item["tags"] for item in body)
        return len(queries)

    ThingFactory(creator=user, tags=["one"])
    api.get("/newest/", **LIVE)  # what a process does once
    few = statements()
    for n in range(6):
        ThingFactory(creator=user, tags=[f"t{n}", "one", f"u{n}"])
    assert statements() == few


def test_a_database_outage_while_the_tags_are_read_is_a_503_and_leaves_nothing_pending(api, user, monkeypatch):
    """The tags are read as the answer is rendered, after the view: an outage there is the pipeline's 503
    (handler500), not a 500, and the next answer on the thread reads nothing the failed one asked for."""
    from django.db import OperationalError

    from apps.core.pipeline import batch
    from apps.things import selectors

    ThingFactory(creator=user, tags=["one"])
    read = selectors.thing_tags_of

    def down(thing_ids):
        raise OperationalError("the database went away")

    monkeypatch.setattr(selectors, "thing_tags_of", down)
    api.raise_request_exception = False
    failed = api.get("/newest/", **LIVE)
    assert failed.status_code == 503 and failed.json()["type"] == "SERVICE_UNAVAILABLE", failed.content
    assert failed.headers["Retry-After"] and list(batch.waiting()) == []
    monkeypatch.setattr(selectors, "thing_tags_of", read)
    assert api.get("/newest/", **LIVE).json()[0]["tags"][0]["name"] == "one"


# --- File ------------------------------------------------------------------------------------------


@pytest.fixture
def stl(s3, user):
    thing = ThingFactory(creator=user)
    file = ThingFileFactory(thing=thing, name="bracket v2.stl", size=len(b"solid x\nendsolid x\n"))
    put(s3, file.key)
    return file


@pytest.mark.parametrize("version", [{}, LIVE])
def test_a_files_direct_url_answers_a_plain_get_with_or_without_a_bearer_header(api, stl, version):
    body = api.get(f"/files/{stl.pk}/", **version).json()
    assert body["download_count"] == 0
    url = body["direct_url"]
    path = url.split("://", 1)[1].split("/", 1)[1]
    for authorization in (None, "Bearer 0123456789abcdef0123456789abcdef", "Basic Zm9vOmJhcg=="):
        headers = {"Authorization": authorization} if authorization else {}
        response: Any = Client().get("/" + path, headers=headers)
        assert response.status_code == 200, (headers, response.content)
        assert b"".join(response.streaming_content) == b"solid x\nendsolid x\n"
        assert response["Content-Disposition"].startswith("inline")


def test_a_direct_url_with_a_wrong_token_or_of_a_pdf_is_refused(api, s3, stl, user):
    assert Client().get(f"/files/{stl.pk}/direct/{'0' * 32}/x.stl").status_code == 404
    pdf = ThingFileFactory(thing=stl.thing, name="manual.pdf")
    assert api.get(f"/files/{pdf.pk}/", **LIVE).json()["direct_url"] is None
    good = api.get(f"/files/{stl.pk}/").json()["direct_url"].split("/files/", 1)[1]
    stl.thing.is_hidden = True
    stl.thing.save()
    assert Client().get(f"/files/{good}").status_code == 404


# --- search ------------------------------------------------------------------------------------------


def test_thingiverse_search_is_always_total_and_hits(api, user):
    first = indexed_thing(name="Shelf bracket", creator=user)
    body = api.get("/search/bracket/", **LIVE).json()
    assert body["total"] == 1 and [hit["id"] for hit in body["hits"]] == [first.pk]
    assert body["hits"][0]["is_published"] == 1
    none = api.get("/search/zzzqqq/", **LIVE)
    assert none.status_code == 200 and none.json() == {"total": 0, "hits": []}
    mine = api.get(f"/users/{user.username}/search/nothinglikethis", **LIVE)
    assert mine.status_code == 200 and mine.json() == {"total": 0, "hits": []}
    # spec: the array, and 404 on no match (tests/compat keeps the rest)
    assert isinstance(api.get("/search/bracket/").json(), list)
    assert api.get("/search/zzzqqq/").status_code == 404


def test_a_thing_id_or_page_url_as_the_term_puts_that_thing_first(api, user, other_user):
    wanted = indexed_thing(name="Benchy", creator=other_user)
    indexed_thing(name=f"Holder {wanted.pk}", creator=other_user)  # matches the number as a word
    for term in (str(wanted.pk), f"thing:{wanted.pk}"):
        body = api.get(f"/search/{term}/", **LIVE).json()
        assert body["hits"][0]["id"] == wanted.pk, term
    draft = ThingFactory(creator=other_user, is_published=False, published_at=None)
    assert api.get(f"/search/{draft.pk}/", **LIVE).json()["total"] == 0  # never a Thing one may not see
    mine = api.get(f"/users/{other_user.username}/search/{wanted.pk}", **LIVE).json()
    assert mine["hits"][0]["id"] == wanted.pk


def test_empty_pages_of_user_lists_are_404_under_thingiverse(api, user):
    for path in (f"/users/{user.username}/things", f"/users/{user.username}/likes",
                 f"/users/{user.username}/copies", f"/users/{user.username}/collections"):
        assert api.get(path).status_code == 200 and api.get(path).json() == []
        missing = api.get(path, **LIVE)
        assert missing.status_code == 404 and missing.json()["error"] == "Not Found", path


# --- round trips -----------------------------------------------------------------------------------


def test_created_under_spec_read_under_thingiverse_and_back(api):
    created = api.post("/things/", {"name": "Hook", "tags": ["hook", "wall"], "description": "Hang *it*."},
                       format="json").json()
    live = api.get(f"/things/{created['id']}/", **LIVE).json()
    assert [t["name"] for t in live["tags"]] == ["hook", "wall"] and live["is_published"] == 0
    assert live["description_html"] == created["description_html"]
    assert api.get(f"/things/{created['id']}/").json()["tag_names"] == ["hook", "wall"]


def test_created_under_thingiverse_and_patched_back_whole_reads_under_spec(api):
    created = api.post("/things/", {"name": "Clip", "tags": ["clip"], "is_wip": 1}, format="json", **LIVE)
    assert created.status_code == 200 and created["Thingyard-Version"] == "thingiverse"
    body = created.json()
    assert body["is_wip"] == 1 and body["tags"][0]["name"] == "clip"
    # A live client PATCHes back everything it read, tags as objects, with one more tag and a new name.
    body["name"] = "Cable clip"
    body["tags"] = [*body["tags"], {"name": "cable"}]
    patched = api.patch(f"/things/{body['id']}/", body, format="json", **LIVE)
    assert patched.status_code == 200, patched.content
    spec = api.get(f"/things/{body['id']}/").json()
    assert spec["name"] == "Cable clip" and spec["tag_names"] == ["clip", "cable"] and spec["is_wip"] is True
    # …and the spec client's own round trip still refuses objects as tags.
    refused = api.patch(f"/things/{body['id']}/", {"tags": [{"name": "x"}]}, format="json")
    assert refused.status_code == 400


# --- the other objects ----------------------------------------------------------------------------


def test_the_other_objects_in_the_thingiverse_wire(api, user, other_user, family):
    from apps.accounts.models import Follow
    from apps.groups.tests.factories import GroupFactory
    from apps.makes.tests.factories import MakeFactory
    from apps.thingcollections.tests.factories import CollectionFactory

    _, child = family
    Follow.objects.create(follower=other_user, followed=user)
    me = api.get("/users/me", **LIVE).json()
    assert "things" not in me and me["things_url"].endswith("/things")
    assert (me["count_of_designs"], me["count_of_followers"], me["count_of_following"]) == (1, 1, 0)
    assert "bio_html" in me and api.get("/users/me").json()["things"] == me["things_url"]
    # `is_following`: whether the caller follows them (never oneself).
    assert me["is_following"] is False and "is_following" not in api.get("/users/me").json()
    assert api.get(f"/users/{other_user.username}", **LIVE).json()["is_following"] is False
    Follow.objects.create(follower=user, followed=other_user)
    assert api.get(f"/users/{other_user.username}", **LIVE).json()["is_following"] is True
    make = MakeFactory(thing=child, creator=other_user, description="Printed *fine*")
    copy = api.get(f"/copies/{make.pk}", **LIVE).json()
    assert copy["type_name"] == "Make" and "<em>fine</em>" in copy["description_html"]
    assert copy["thing"]["is_published"] == 1 and copy["root_comment_count"] == 0
    assert copy["name"] == child.name and copy["preview_image"] == copy["thumbnail"]  # no photo: the placeholder
    comments = api.get(f"/things/{child.pk}/comments", **LIVE).json()
    roots = [c for c in comments if c["is_root_comment"]]
    replies = [c for c in comments if not c["is_root_comment"]]
    assert roots and replies and replies[0]["parent_url"].endswith(f"/comments/{roots[0]['id']}")
    # `has_children` and `parent_user_name`, read once for the whole answer.
    assert roots[0]["has_children"] is True and replies[0]["has_children"] is False
    assert roots[0]["parent_user_name"] is None and replies[0]["parent_user_name"] == other_user.username
    assert {"has_children", "parent_user_name"}.isdisjoint(api.get(f"/things/{child.pk}/comments").json()[0])
    group = GroupFactory(creator=other_user)
    assert api.get(f"/groups/{group.pk}", **LIVE).json()["creator"] == other_user.pk
    assert api.get(f"/groups/{group.pk}").json()["creator"]["id"] == other_user.pk
    collection = CollectionFactory(creator=user, description="Mine **all**")
    assert "<strong>all</strong>" in api.get(f"/collections/{collection.pk}", **LIVE).json()["description_html"]


def test_a_comment_s_children_and_parent_author_follow_what_the_caller_may_see(api, client_for, user, other_user):
    from apps.accounts.tests.factories import UserFactory
    from django.core.cache import cache
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    thing = ThingFactory(creator=user)
    root = CommentFactory(thing=thing, user=other_user)
    CommentFactory(thing=thing, user=user, parent=root, is_hidden=True)  # a moderator hid the only reply
    staff = client_for(UserFactory(is_staff=True))
    path = f"/things/{thing.pk}/comments"

    def by_id(client) -> dict:
        return {c["id"]: c for c in client.get(path, **LIVE).json()}

    assert by_id(api)[root.pk]["has_children"] is False
    assert by_id(staff)[root.pk]["has_children"] is True
    # A reply under a hidden comment names no author to those who may not see it.
    hidden_root = CommentFactory(thing=thing, user=other_user, is_hidden=True)
    reply = CommentFactory(thing=thing, user=user, parent=hidden_root)
    assert by_id(api)[reply.pk]["parent_user_name"] is None
    assert by_id(staff)[reply.pk]["parent_user_name"] == other_user.username

    def statements() -> int:
        cache.clear()
        with CaptureQueriesContext(connection) as queries:
            assert api.get(path, **LIVE).status_code == 200
        return len(queries)

    few = statements()
    for _ in range(4):
        parent = CommentFactory(thing=thing, user=other_user)
        CommentFactory(thing=thing, user=user, parent=parent)
    assert statements() == few


def test_a_comment_s_public_url_is_the_comment_on_its_target_s_site_page(api, user, other_user):
    from apps.comments.tests.factories import make_of
    from apps.comments.models import Comment
    from apps.groups.tests.factories import GroupTopicFactory

    thing = ThingFactory(creator=user)
    make = make_of(thing, creator=other_user)
    topic = GroupTopicFactory()
    on = {
        f"/things/{thing.pk}/comments": CommentFactory(thing=thing, user=other_user),
        f"/copies/{make.pk}/comments": CommentFactory(thing=None, make=make, target_type=Comment.TargetType.MAKE),
        f"/group-topics/{topic.pk}/comments": CommentFactory(
            thing=None, topic=topic, target_type=Comment.TargetType.GROUP_TOPIC),
    }
    for path, comment in on.items():
        [live] = api.get(path, **LIVE).json()
        page, _, anchor = live["public_url"].partition("#")
        assert anchor == f"comment-{comment.pk}", live["public_url"]
        shown = Client().get(page.removeprefix("http://testserver"), HTTP_ACCEPT="text/html")
        assert shown.status_code == 200 and f'id="comment-{comment.pk}"' in shown.content.decode(), page
        assert "public_url" not in api.get(path).json()[0]


def test_what_the_live_document_types_as_never_null(api, user, other_user, family):
    """The live document types a comment's `parent_id` as an integer from 0 and its `parent_url` as a
    string, a group's `image` as a string and a topic's `pinned` as 0/1: a top-level comment is 0 and "",
    a group without an image shows the placeholder, and `spec` keeps null and booleans."""
    from apps.groups.tests.factories import GroupFactory
    from apps.groups.models import GroupTopic

    _, child = family
    live = api.get(f"/things/{child.pk}/comments", **LIVE).json()
    spec = api.get(f"/things/{child.pk}/comments").json()
    root = next(c for c in live if c["is_root_comment"])
    reply = next(c for c in live if not c["is_root_comment"])
    assert (root["parent_id"], root["parent_url"]) == (0, "")
    assert reply["parent_id"] == root["id"] and reply["parent_url"].endswith(f"/comments/{root['id']}")
    assert next(c for c in spec if c["id"] == root["id"])["parent_id"] is None
    assert api.get(f"/comments/{root['id']}", **LIVE).json()["parent_id"] == 0

    group = GroupFactory(creator=other_user, image="")
    image = api.get(f"/groups/{group.pk}", **LIVE).json()["image"]
    assert image.startswith("http") and image.endswith("/things/placeholder.png")
    assert api.get(f"/groups/{group.pk}").json()["image"] is None
    pictured = GroupFactory(creator=other_user, image="groups/with-a-picture.png")
    assert "groups/with-a-picture.png" in api.get(f"/groups/{pictured.pk}", **LIVE).json()["image"]
    GroupTopic.objects.create(group=group, user=other_user, name="Pinned", body="Read me", pinned=True)
    assert [t["pinned"] for t in api.get(f"/groups/{group.pk}/group-topics", **LIVE).json()] == [1]
    assert [t["pinned"] for t in api.get(f"/groups/{group.pk}/group-topics").json()] == [True]


@pytest.mark.parametrize("version", [{}, LIVE])
def test_a_comment_posted_with_parent_id_0_starts_a_thread(api, family, version):
    """What a `thingiverse` client read at the top level (0), sent back, is the top level again."""
    _, child = family
    response = api.post(f"/things/{child.pk}/comments", {"body": "New thread", "parent_id": 0}, format="json",
                        **version)
    assert response.status_code == 200, response.content
    assert response.json()["parent_id"] == (0 if version else None)


# --- successes with no body ------------------------------------------------------------------------
# The spec's "no body" deletes answer an empty 200 under `spec` (docs/decisions.md: status codes); the
# live document gives them its `ok` response, and a client generated from it parses a 200 as JSON.


@pytest.mark.parametrize("version", [{}, LIVE])
def test_a_delete_with_no_body_answers_the_ok_object_under_thingiverse(api, user, version):
    from apps.accounts.models import User
    from apps.makes.models import Make
    from apps.makes.tests.factories import MakeFactory
    from apps.thingcollections.models import Collection

    collection_id = api.post("/collections/", {"name": "To go"}, format="json").json()["id"]
    make = MakeFactory(creator=user)
    answers = [
        api.delete(f"/collections/{collection_id}/", **version),
        api.delete(f"/copies/{make.pk}/", **version),
        api.delete(f"/users/{user.username}/", **version),
    ]
    for response in answers:
        assert response.status_code == 200, response.content
        if version:
            assert response["Content-Type"] == "application/json" and response.json() == {"ok": True}
        else:
            assert response.content == b"" and not response.has_header("Content-Type")
    assert not Collection.objects.filter(pk=collection_id).exists()
    assert not Make.objects.filter(pk=make.pk).exists() and not User.objects.filter(pk=user.pk).exists()


def test_each_version_documents_what_its_no_body_deletes_answer(anon_client, db):
    paths = ("/collections/{collection_id}/", "/copies/{copy_id}/", "/users/{username}/")
    spec = anon_client.get("/openapi.json").json()["paths"]
    live = anon_client.get("/openapi.json?version=thingiverse").json()["paths"]
    for path in paths:
        assert "content" not in spec[path]["delete"]["responses"]["200"]
        content = live[path]["delete"]["responses"]["200"]["content"]
        assert content == {"application/json": {"schema": {"$ref": "#/components/schemas/Ok"}}}
    removed = "/collections/{collection_id}/thing/{thing_id}"
    assert spec[removed]["delete"]["responses"]["200"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Ok"}
    assert live[removed]["delete"]["responses"]["200"]["content"]["application/json"]["schema"]["type"] == "integer"
    # Nothing else of the document moved: every other operation's success is documented alike.
    for path, item in spec.items():
        for method, operation in item.items():
            if (method, path) == ("delete", removed):
                continue
            if isinstance(operation, dict) and path not in paths and "200" in operation.get("responses", {}):
                assert operation["responses"]["200"].get("content") == live[path][method]["responses"]["200"].get(
                    "content"), (method, path)


@pytest.mark.parametrize("version", [{}, LIVE])
def test_removing_a_thing_from_a_collection_answers_its_id_under_thingiverse(api, version):
    collection_id = api.post("/collections/", {"name": "Shelf"}, format="json").json()["id"]
    thing = ThingFactory()
    assert api.post(f"/collections/{collection_id}/thing/{thing.pk}", **version).json() == {"ok": True}
    response = api.delete(f"/collections/{collection_id}/thing/{thing.pk}", **version)
    assert response.status_code == 200
    assert response.json() == (thing.pk if version else {"ok": True})
    assert_error(api.delete(f"/collections/{collection_id}/thing/{thing.pk}", **version), 404)  # it is gone


def test_count_of_designs_counts_only_what_anyone_may_see(api, user, other_user):
    ThingFactory(creator=other_user)
    ThingFactory(creator=other_user, is_private=True)
    ThingFactory(creator=other_user, is_hidden=True)
    ThingFactory(creator=other_user, is_published=False, published_at=None)
    assert api.get(f"/users/{other_user.username}", **LIVE).json()["count_of_designs"] == 1


def test_a_user_s_make_like_and_collection_counts_are_the_lengths_of_the_lists_the_caller_reads(
    api, client_for, user, other_user
):
    """`make_count`, `like_count`, `collection_count` (`thingiverse`): each is the length of the list of
    copies, likes or collections the same caller reads, so hidden and private rows count only for whom the
    list shows them (apps.accounts.profiles: one queryset for the count and the list)."""
    from apps.accounts.tests.factories import UserFactory
    from apps.things.models import Like

    shown, hidden, private = ThingFactory(), ThingFactory(is_hidden=True), ThingFactory(creator=user, is_private=True)
    draft = ThingFactory(creator=other_user, is_published=False, published_at=None)
    for thing in (shown, hidden, private, draft):
        Like.objects.create(user=other_user, thing=thing)
    MakeFactory(creator=other_user, thing=shown)
    MakeFactory(creator=other_user, thing=shown, is_hidden=True)
    MakeFactory(creator=other_user, thing=private)
    MakeFactory(creator=other_user, thing=draft)
    CollectionThingFactory(collection=CollectionFactory(creator=other_user), thing=hidden)
    CollectionFactory(creator=other_user)
    lists = {"make_count": "copies", "like_count": "likes", "collection_count": "collections",
             "favorite_count": "favorites"}
    readers = {"another user": api, "themselves": client_for(other_user), "staff": client_for(UserFactory(is_staff=True)),
               "a stranger": client_for(UserFactory())}
    seen = {}
    for who, reader in readers.items():
        body = reader.get(f"/users/{other_user.username}", **LIVE).json()
        for field, path in lists.items():
            rows = reader.get(f"/users/{other_user.username}/{path}?per_page=100").json()
            assert body[field] == len(rows), (who, field)
        seen[who] = tuple(body[field] for field in lists)
    # The rows differ by reader: a stranger sees only what is on `shown`; `user` also what is on their own
    # private Thing; the owner also what is on their draft; staff also the hidden copy and the hidden Thing.
    assert seen["a stranger"] == (1, 1, 2, 1)
    assert seen["another user"] == seen["themselves"] == seen["staff"] == (2, 2, 2, 2)
    assert reader.get(f"/users/{other_user.username}", **LIVE).json()["has_favorite"] is True
    assert api.get(f"/users/{UserFactory().username}", **LIVE).json()["has_favorite"] is False
    assert {*lists, "has_favorite"}.isdisjoint(api.get(f"/users/{other_user.username}").json())
    # The document names them for this wire version only.
    live = Client().get("/openapi.json?version=thingiverse").json()["components"]["schemas"]
    spec = Client().get("/openapi.json").json()["components"]["schemas"]
    assert set(lists) <= set(live["User"]["required"]) and set(lists).isdisjoint(spec["User"]["properties"])


def test_a_copy_s_category_and_details_come_with_its_statement(api, user, other_user):
    """A copy's `category_name`, `category_url` (its Thing's category), `details` and `details_parts` (its
    description) under `thingiverse`: a page of copies costs the statements one copy does."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from apps.things.models import Category

    category = Category.objects.get(slug="3d-printing-tests")
    tested, bare = ThingFactory(category=category), ThingFactory(category=None)
    made = MakeFactory(creator=other_user, thing=tested, description="First *print*.")
    plain = MakeFactory(creator=other_user, thing=bare)
    copy = api.get(f"/copies/{made.pk}", **LIVE).json()
    assert copy["category_name"] == category.name and copy["category_url"].endswith("/categories/3d-printing-tests")
    assert api.get(copy["category_url"]).json()["name"] == category.name  # a URL the client can follow
    assert [part["name"] for part in copy["details_parts"]] == ["Description"]
    assert copy["details_parts"][0]["data"][0]["content"] == copy["description_html"]
    assert "<h2>Description</h2>" in copy["details"] and "<em>print</em>" in copy["details"]
    listed = api.get(f"/users/{other_user.username}/copies", **LIVE).json()
    by_id = {c["id"]: (c["category_name"], c["category_url"]) for c in listed}
    assert by_id[plain.pk] == ("", "") and by_id[made.pk] == (copy["category_name"], copy["category_url"])
    with CaptureQueriesContext(connection) as one:
        api.get(f"/users/{other_user.username}/copies?per_page=1", **LIVE)
    for _ in range(3):
        MakeFactory(creator=other_user, thing=ThingFactory(category=category))
    with CaptureQueriesContext(connection) as five:
        assert len(api.get(f"/users/{other_user.username}/copies", **LIVE).json()) == 5
    assert len(five) == len(one)
    assert {"category_name", "details"}.isdisjoint(api.get(f"/copies/{made.pk}").json())


def test_a_copy_s_description_is_rendered_once_for_its_three_fields(api, other_user, monkeypatch):
    """`description_html`, `details_parts` and `details` show the same rendering: asked for once per copy."""
    from apps.makes import serializers as make_serializers

    rendered: list[str] = []
    real = make_serializers.document_render
    def counted(text: str) -> str:
        rendered.append(text)
        return real(text)

    monkeypatch.setattr(make_serializers, "document_render", counted)
    for n in range(3):
        MakeFactory(creator=other_user, description=f"Copy *{n}*.")
    listed = api.get(f"/users/{other_user.username}/copies", **LIVE).json()
    assert sorted(rendered) == sorted(c["description"] for c in listed) and len(rendered) == 3
    for copy in listed:
        assert copy["details_parts"][0]["data"][0]["content"] == copy["description_html"]
        assert copy["description_html"] in copy["details"]


def test_a_user_and_a_copy_read_under_thingiverse_patch_back_whole(api, user):
    """What this version adds to a user (its counts) and a copy (category, sections) is read-only: sent back
    in a round-trip PATCH, it is ignored and only the changed field changes."""
    make = MakeFactory(creator=user, description="Before")
    for path, field, value in ((f"/users/{user.username}", "location", "Lisbon"),
                               (f"/copies/{make.pk}", "description", "After")):
        read = api.get(path, **LIVE).json()
        response = api.patch(path, {**read, field: value, "make_count": 99, "category_name": "x"},
                             format="json", **LIVE)
        assert response.status_code == 200, response.content
        after = response.json()
        assert after[field] == value
        assert {k: v for k, v in after.items() if k not in (field, "modified", "description_html", "details",
                                                          "details_parts")} == \
            {k: v for k, v in read.items() if k not in (field, "modified", "description_html", "details",
                                                        "details_parts")}


def test_a_group_s_featured_things_are_read_once_for_the_whole_answer(api, client_for, user, other_user):
    """`featured` (short Things in slot order) and `featured_images` under `thingiverse`: only what the
    caller may see, and a list of groups costs the statements one group does."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from apps.accounts.tests.factories import UserFactory
    from apps.groups.models import GroupThing
    from apps.groups.tests.factories import GroupFactory

    group = GroupFactory(creator=other_user)
    second, first, hidden = ThingFactory(name="Second"), ThingFactory(name="First"), ThingFactory(is_hidden=True)
    for thing, rank in ((second, 2), (first, 1), (hidden, 3), (ThingFactory(), 0)):
        GroupThing.objects.create(group=group, thing=thing, rank=rank)
    body = api.get(f"/groups/{group.pk}", **LIVE).json()
    assert [t["name"] for t in body["featured"]] == ["First", "Second"]  # the hidden one is left out
    assert body["featured"][0]["is_published"] == 1 and body["featured"][0]["tags"] is not None
    assert body["featured_images"] == [
        {"url_image": t["preview_image"], "url_thing": t["public_url"]} for t in body["featured"]
    ]
    staff = client_for(UserFactory(is_staff=True)).get(f"/groups/{group.pk}", **LIVE).json()
    assert [t["id"] for t in staff["featured"]] == [first.pk, second.pk, hidden.pk]
    assert {"featured", "featured_images"}.isdisjoint(api.get(f"/groups/{group.pk}").json())
    with CaptureQueriesContext(connection) as one:
        assert len(api.get("/groups/", **LIVE).json()) == 1
    for _ in range(3):
        more = GroupFactory()
        GroupThing.objects.create(group=more, thing=ThingFactory(tags=["x"]), rank=1)
    with CaptureQueriesContext(connection) as four:
        listed = api.get("/groups/", **LIVE).json()
    assert len(listed) == 4 and all(len(g["featured"]) in (1, 2) for g in listed)
    assert len(four) == len(one)
    # The short Things' own tag objects, asked for while the featured Things were read, are filled too.
    assert [[tag["name"] for tag in g["featured"][0]["tags"]] for g in listed if g["id"] != group.pk] == [["x"]] * 3


def test_a_user_s_groups_are_those_the_caller_may_see(api, client_for, user, other_user):
    """`groups` (`thingiverse`): the groups a user is a member of, `{id, name, public_url}`, in the order
    they joined; a hidden group only for staff; one statement."""
    from urllib.parse import urlsplit

    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from apps.accounts.tests.factories import UserFactory
    from apps.groups.models import GroupMember
    from apps.groups.tests.factories import GroupFactory

    first, hidden = GroupFactory(name="Printers"), GroupFactory(name="Hidden", is_hidden=True)
    owned = GroupFactory(creator=other_user, name="Own")  # its creator is its first member
    for group in (first, hidden):
        GroupMember.objects.create(group=group, user=other_user)
    body = api.get(f"/users/{other_user.username}", **LIVE).json()
    assert [g["name"] for g in body["groups"]] == ["Own", "Printers"]
    assert body["groups"][0] == {"id": owned.pk, "name": "Own", "public_url": body["groups"][0]["public_url"]}
    assert Client().get(urlsplit(body["groups"][1]["public_url"]).path).status_code == 200  # the group's page
    staff = client_for(UserFactory(is_staff=True)).get(f"/users/{other_user.username}", **LIVE).json()
    assert [g["name"] for g in staff["groups"]] == ["Own", "Printers", "Hidden"]
    assert "groups" not in api.get(f"/users/{other_user.username}").json()
    with CaptureQueriesContext(connection) as read:
        api.get(f"/users/{other_user.username}", **LIVE)
    assert sum("groups_group" in q["sql"] and "groups_groupmember" in q["sql"] for q in read.captured_queries) == 1
