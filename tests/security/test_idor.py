"""No IDOR: user A's objects, addressed by id, are out of reach of user B's token and of A's token from
another application where the spec scopes a resource to the app that made it (spec §4.5, §4.9).

The table below names every write operation of the OpenAPI document with what another user may do with
it; `test_every_write_operation_is_classified` fails when an endpoint is added without a row, so new
endpoints join the suite. Each refused call must answer 403 or 404 *and* leave every row of the
database as it was.
"""
from dataclasses import dataclass, field

import pytest
from drf_spectacular.generators import SchemaGenerator

from tests.support.api import db_state, token_client

REFUSED = (403, 404)


@dataclass(frozen=True)
class Op:
    method: str
    path: str
    # world attribute per path parameter, where it is not the default of World.path_values()
    objects: dict = field(default_factory=dict)
    body: dict | None = None

    @property
    def key(self) -> str:
        return f"{self.method} {self.path}"

    def url(self, world) -> str:
        values = world.path_values()
        for name, attribute in self.objects.items():
            target = getattr(world, attribute)
            values[name] = getattr(target, "username", None) or target.pk
        return self.path.format(**values)


# Only the owner (or, for group things, a member; for pins, the group owner) may do these.
OWNER_ONLY = [
    Op("PATCH", "/collections/{collection_id}/", body={"name": "Taken over"}),
    Op("DELETE", "/collections/{collection_id}/"),
    Op("POST", "/collections/{collection_id}/thing/{thing_id}", body={"description": "mine now"}),
    Op("DELETE", "/collections/{collection_id}/thing/{thing_id}"),
    Op("PATCH", "/comments/{comment_id}/", body={"body": "edited by someone else"}),
    Op("DELETE", "/comments/{comment_id}/"),
    Op("PATCH", "/copies/{copy_id}/", body={"description": "edited by someone else"}),
    Op("DELETE", "/copies/{copy_id}/"),
    Op("POST", "/copies/{copy_id}/images", body={"filename": "photo.jpg"}),
    Op("PATCH", "/copies/{copy_id}/images/{image_id}", {"image_id": "make_image"},
       {"rank": 3, "featured": True}),
    Op("DELETE", "/copies/{copy_id}/images/{image_id}", {"image_id": "make_image"}),
    Op("POST", "/files/{upload_id}/finalize"),
    Op("PATCH", "/group-topics/{topic_id}/", body={"name": "Taken over", "body": "x"}),
    Op("POST", "/group-topics/{topic_id}/pin"),
    Op("DELETE", "/group-topics/{topic_id}/pin"),
    # The compat aliases of the same views (docs/decisions.md: Names and shapes): refused the same way.
    Op("PATCH", "/grouptopics/{topic_id}/", body={"name": "Taken over", "body": "x"}),
    Op("POST", "/grouptopics/{topic_id}/pin"),
    Op("DELETE", "/grouptopics/{topic_id}/pin"),
    Op("PATCH", "/groups/{group_id}/", body={"name": "Taken over", "description": "x"}),
    Op("POST", "/groups/{group_id}/group-topics", body={"name": "Spam", "body": "spam"}),
    Op("POST", "/groups/{group_id}/image", body={"filename": "logo.png"}),
    Op("DELETE", "/groups/{group_id}/members/{user_id}"),
    Op("POST", "/groups/{group_id}/things/{thing_id}"),
    Op("PATCH", "/groups/{group_id}/things/{thing_id}", body={"rank": 1}),
    Op("DELETE", "/groups/{group_id}/things/{thing_id}"),
    Op("PATCH", "/orders/{order_id}/", body={"status": "cancelled", "note": "x"}),
    Op("PATCH", "/things/{thing_id}/", body={"name": "Taken over", "is_wip": True}),
    Op("DELETE", "/things/{thing_id}/"),
    Op("POST", "/things/{thing_id}/files", body={"filename": "evil.stl"}),
    Op("DELETE", "/things/{thing_id}/files/{file_id}"),
    Op("PATCH", "/things/{thing_id}/images/{image_id}", body={"rank": 5, "featured": False}),
    Op("DELETE", "/things/{thing_id}/images/{image_id}"),
    Op("POST", "/things/{thing_id}/publish", {"thing_id": "draft"}),
    Op("PATCH", "/users/{username}/", body={"bio": "pwned", "location": "x"}),
    Op("DELETE", "/users/{username}/"),
    Op("POST", "/users/{username}/avatar-image", body={"filename": "me.png"}),
    Op("POST", "/users/{username}/cover-image", body={"filename": "me.png"}),
    Op("POST", "/users/{username}/verify-account"),
]
# Any signed-in user may do these to A's public objects (spec: likes, follows, comments, makes, joining a
# group); on A's unpublished Thing they are refused like a read of it.
OPEN_TO_OTHERS = [
    Op("POST", "/comments/{comment_id}/reply", body={"body": "Nice"}),
    Op("POST", "/copies/{copy_id}/comments", body={"body": "Nice"}),
    Op("POST", "/copies/{copy_id}/likes"),
    Op("DELETE", "/copies/{copy_id}/likes"),
    Op("POST", "/group-topics/{topic_id}/comments", body={"body": "Nice"}),
    Op("POST", "/grouptopics/{topic_id}/comments", body={"body": "Nice"}),
    Op("POST", "/groups/{group_id}/members"),
    Op("DELETE", "/groups/{group_id}/members"),
    Op("POST", "/things/{thing_id}/comments", body={"body": "Nice"}),
    Op("POST", "/things/{thing_id}/copies", body={"filename": "my-print.jpg"}),
    Op("POST", "/things/{thing_id}/likes"),
    Op("DELETE", "/things/{thing_id}/likes"),
    Op("POST", "/things/{thing_id}/toggle-watch"),
    Op("POST", "/users/{username}/followers"),
    Op("DELETE", "/users/{username}/followers"),
]
# Create the caller's own object; nothing of A's is addressed (a body naming A's draft is checked below).
CREATES_OWN = ["POST /collections/", "POST /comments/", "POST /groups/", "POST /things/"]

# A's token, but from app Y, on what A made through app X (spec §4.5: apps change only collections they
# created and remove only Things they added; §4.9: orders belong to their app).
OTHER_APP = [
    Op("PATCH", "/collections/{collection_id}/", body={"name": "Renamed by another app"}),
    Op("DELETE", "/collections/{collection_id}/"),
    Op("DELETE", "/collections/{collection_id}/thing/{thing_id}"),
    Op("PATCH", "/orders/{order_id}/", body={"note": "x"}),
]

def _call(client, op: Op, world):
    kwargs = {"data": op.body, "format": "json"} if op.body is not None else {}
    return getattr(client, op.method.lower())(op.url(world), **kwargs)


def _assert_refused_without_effect(client, op, world):
    before = db_state()
    response = _call(client, op, world)
    assert response.status_code in REFUSED, (op.key, response.status_code, response.content[:300])
    after = db_state()
    changed = [label for label in before if before[label] != after[label]]
    assert changed == [], f"{op.key} answered {response.status_code} but changed {changed}"


@pytest.fixture(scope="module")
def documented_writes():
    document = SchemaGenerator().get_schema(request=None, public=True)
    return {
        f"{method.upper()} {path}"
        for path, item in document["paths"].items()
        for method in item
        if method in ("post", "patch", "put", "delete")
    }


def test_every_write_operation_is_classified(documented_writes):
    classified = {op.key for op in OWNER_ONLY + OPEN_TO_OTHERS} | set(CREATES_OWN)
    assert sorted(documented_writes - classified) == [], "add the new endpoints to a table of this module"
    assert sorted(classified - documented_writes) == [], "these rows name no endpoint any more"


@pytest.mark.parametrize("op", OWNER_ONLY, ids=lambda op: op.key)
def test_another_user_cannot_change_a_s_objects(op, world, b_via_x):
    _assert_refused_without_effect(b_via_x, op, world)


@pytest.mark.parametrize(
    "op", [op for op in OPEN_TO_OTHERS if "{thing_id}" in op.path], ids=lambda op: op.key
)
def test_another_user_cannot_act_on_a_s_unpublished_thing(op, world, b_via_x):
    draft_op = Op(op.method, op.path, {**op.objects, "thing_id": "draft"}, op.body)
    _assert_refused_without_effect(b_via_x, draft_op, world)


@pytest.mark.parametrize("op", OTHER_APP, ids=lambda op: op.key)
def test_a_s_token_from_another_app_cannot_change_what_app_x_made(op, world, a_via_y):
    _assert_refused_without_effect(a_via_y, op, world)


@pytest.mark.parametrize("op", OWNER_ONLY[:6] + OTHER_APP, ids=lambda op: op.key)
def test_an_app_s_read_only_token_cannot_change_a_user_s_objects(op, world, app_x):
    _assert_refused_without_effect(token_client(None, app_x), op, world)


def test_the_owner_s_own_token_is_not_refused(world, a_via_x):
    """The control: the same calls do work for A through app X, so the refusals above are about B."""
    assert a_via_x.patch(f"/things/{world.thing.pk}/", {"name": "Renamed"}, format="json").status_code == 200
    renamed = a_via_x.patch(f"/collections/{world.collection.pk}/", {"name": "Renamed"}, format="json")
    assert renamed.status_code == 200
    assert a_via_x.get(f"/orders/{world.order.pk}/").status_code == 200


def test_a_new_thing_cannot_name_a_s_draft_as_its_ancestor(world, b_via_x):
    before = db_state()
    response = b_via_x.post("/things/", {"name": "Remix", "ancestors": [world.draft.pk]}, format="json")
    assert response.status_code in (400, 403, 404)
    assert db_state() == before


def test_a_comment_cannot_target_a_s_unpublished_thing(world, b_via_x):
    before = db_state()
    response = b_via_x.post("/comments/", {"body": "hi", "target_type": "thing", "target_id": world.draft.pk},
                            format="json")
    assert response.status_code in (400, 403, 404)
    assert db_state() == before


# --- reads of private objects ----------------------------------------------------------------------

# spec §4.2: "Unpublished items are allowed for every user" on this one path, by design.
DRAFT_READABLE_BY_SPEC = {"/things/{thing_id}/hack-the-pandemic-thing"}


@pytest.fixture(scope="module")
def thing_reads():
    document = SchemaGenerator().get_schema(request=None, public=True)
    return sorted(
        path for path, item in document["paths"].items()
        if "get" in item and "{thing_id}" in path and path not in DRAFT_READABLE_BY_SPEC
    )


def test_every_read_under_an_unpublished_thing_is_refused_to_others(thing_reads, world, b_via_x):
    values = {**world.path_values(), "thing_id": world.draft.pk, "file_id": world.draft_file.pk}
    answered = {path: b_via_x.get(path.format(**values)).status_code for path in thing_reads}
    assert thing_reads and {path: s for path, s in answered.items() if s not in REFUSED} == {}


def test_a_file_of_an_unpublished_thing_is_refused_to_others(world, b_via_x):
    for path in (f"/files/{world.draft_file.pk}/", f"/files/{world.draft_file.pk}/download"):
        assert b_via_x.get(path).status_code in REFUSED, path


def test_lists_never_show_a_s_unpublished_thing_to_others(world, b_via_x):
    name = world.owner.username
    collection = world.collection.pk
    for path in (f"/users/{name}/things", f"/users/{name}/search/", f"/collections/{collection}/things",
                 "/search/", "/newest/"):
        response = b_via_x.get(path)
        ids = [item["id"] for item in response.json()] if response.status_code == 200 else []
        assert world.draft.pk not in ids, path


def test_another_user_cannot_read_a_s_order_or_downloads(world, b_via_x):
    assert b_via_x.get(f"/orders/{world.order.pk}/").status_code == 404
    listed = b_via_x.get("/orders/")
    assert world.order.pk not in [int(o["id"]) for o in listed.json()] if listed.status_code == 200 else True
    assert b_via_x.get(f"/users/{world.owner.username}/downloads").status_code in REFUSED


def test_a_s_token_from_another_app_cannot_read_app_x_s_orders(world, a_via_y):
    assert a_via_y.get(f"/orders/{world.order.pk}/").status_code == 404
    listed = a_via_y.get("/orders/")
    assert world.order.pk not in [int(o["id"]) for o in listed.json()] if listed.status_code == 200 else True


def test_another_user_never_sees_a_s_e_mail(world, b_via_x):
    body = b_via_x.get(f"/users/{world.owner.username}/").json()
    assert "email" not in body and world.owner.email not in str(body)
