"""The fuzz database's content: the demo data, one of every object for two users (tests/world.py), and
the objects each stateful operation needs to succeed.

Run by the fuzz harness (tests/contract/fuzz.py) with its settings; answers JSON with the demo user's
token and:

- `path_values`: for each path parameter name of the OpenAPI document, values that name real objects.
  Schemathesis mixes them with generated ones (a dictionary per parameter) in the operations that keep
  generating their ids, so those still meet unknown ids and other users' objects (404, 403) too.
- `operations`: for the operations whose success needs a particular object in a particular state (own
  or someone else's, a member to remove, an image *of this* copy, a pending upload whose bytes are in
  the store, a publishable draft …), the path parameters that name it. Schemathesis then spends all of
  that operation's cases, in every phase, on its bodies and queries against a real object. Destructive
  operations get objects of their own, so a DELETE never starves the operations that run after it.
- `dictionaries`: real values for body and query fields that must name an existing row (a category
  slug, a comment of the same copy), mixed in like `path_values`.

The database is created fresh by each run and everything here is created in a fixed order, so the ids
are the same every time (deterministic runs).
"""
import json

FUZZ_USER = "demo"  # the token's user
OTHER_USER = "alice"


def fuzz_seed() -> dict:
    import factory.random
    from django.contrib.auth import get_user_model
    from django.core.cache import cache
    from oauth2_provider.models import get_application_model

    from apps.demo.services import DEMO_APP_CLIENT_ID, demo_seed
    from tests.world import world_build

    factory.random.reseed_random(20261120)  # factory_boy's Faker values, the same every run
    # Nothing cached by an earlier run (list counts, CORS origins, rate-limit windows) may leak into this
    # one: the cache's Redis database is the fuzz server's own (as the test suite clears it per test).
    cache.clear()
    summary = demo_seed()
    users = get_user_model().objects
    app = get_application_model().objects.get(client_id=DEMO_APP_CLIENT_ID)
    mine, theirs = (world_build(owner=users.get(username=name), app=app) for name in (FUZZ_USER, OTHER_USER))
    values: dict[str, list] = {}
    for world in (mine, theirs):
        for name, value in world.path_values().items():
            values.setdefault(name, []).append(value)
        values["thing_id"].append(world.draft.pk)
    values["username"] += ["me", "bob"]
    values["term"] = ["robot", "bracket", "parametric shelf"]
    values["tag"] = ["parametric", "Robot_Arm", "calibration"]
    values["slug"] = ["robotics", "replacement-parts", "3d-printing-tests"]
    values["all"] = ["true", "false"]
    operations, dictionaries = _operation_targets(mine=mine, theirs=theirs, app=app)
    return {
        "token": summary.token,
        "path_values": values,
        "operations": operations,
        "dictionaries": dictionaries,
    }


def _operation_targets(*, mine, theirs, app) -> tuple[dict[str, dict], dict[str, object]]:
    """Objects for the operations that need a particular one, by operationId: `{"path.<name>": value}`
    for fixed path parameters, `{"body.<field>": "<dictionary>"}` for a dictionary of real values."""
    from apps.comments.services import comment_create
    from apps.groups.services import group_join, group_thing_add
    from apps.makes.tests.factories import MakeFactory, make_image
    from apps.thingcollections.tests.factories import CollectionFactory
    from apps.things.models import Thing
    from apps.things.tests.factories import ThingFactory
    from apps.uploads import store
    from apps.uploads.models import Upload
    from apps.uploads.flow.services import upload_start
    from apps.uploads.tests.file_factories import ImageFactory, ThingFileFactory
    from apps.uploads.tests.upload_helpers import png_bytes, stl_bytes

    me, other = mine.owner, theirs.owner

    def live_file(thing):
        """A live file whose original is in the store, counted on its Thing as the upload flow does."""
        data = stl_bytes()
        file = ThingFileFactory(thing=thing, size=len(data))
        store.put(file.key, data, content_type=file.content_type)
        type(thing).objects.filter(pk=thing.pk).update(file_count=thing.files.count())
        return file

    # Own objects only DELETEs use (one each; the first success leaves later cases a 404).
    doomed_thing = ThingFactory(creator=me, name="A Thing the fuzzer deletes")
    doomed_file = live_file(mine.thing)
    doomed_image = ImageFactory(thing=mine.thing)
    doomed_make = MakeFactory(thing=theirs.thing, creator=me)
    doomed_make_image = make_image(mine.make)
    doomed_collection = CollectionFactory(creator=me, created_by_app=app)
    doomed_comment = comment_create(user=me, target=mine.thing, body="A comment the fuzzer deletes.")
    # A draft nothing else edits, publishable (name, description, license): publish succeeds, then is
    # the no-op of publishing a published Thing.
    publishable = ThingFactory(
        creator=me, name="A draft the fuzzer publishes", is_published=False, published_at=None
    )
    # A Thing with a file in the store, for the ZIP package (built on the first request).
    packaged = ThingFactory(creator=me, name="A Thing with a package")
    live_file(packaged)
    # My group with another member (owners remove members) and a Thing in it (owners set ranks).
    group_join(group=mine.group, user=other)
    group_thing_add(group=mine.group, thing=mine.thing, user=me)
    # A comment on their copy: a parent for replies posted to /copies/{id}/comments.
    their_make_comment = comment_create(user=other, target=theirs.make, body="How long did it take?")
    # A pending upload whose bytes are in the store: finalize creates the image, then answers the same
    # summary again. The bytes go in after upload_start, whose automatic check (eager in the fuzz
    # settings) must find it still waiting, so the API's finalize is the one that settles it.
    upload = upload_start(
        owner=me, kind=Upload.Kind.THING_IMAGE, target_id=mine.thing.pk, filename="shelf.png"
    )
    store.put(upload.key, png_bytes(), content_type="image/png")

    operations = {
        # Things: likes are for someone else's Thing (one's own is a 400, spec §7).
        "things_likes_create": {"path.thing_id": theirs.thing.pk},
        "things_likes_destroy": {"path.thing_id": theirs.thing.pk},
        "things_publish_create": {"path.thing_id": publishable.pk},
        "things_destroy": {"path.thing_id": doomed_thing.pk},
        "things_copies_create": {"path.thing_id": theirs.thing.pk},
        "things_package_url_retrieve": {"path.thing_id": packaged.pk},
        "things_files_retrieve": {"path.thing_id": mine.thing.pk, "path.file_id": mine.file.pk},
        "things_files_destroy": {"path.thing_id": mine.thing.pk, "path.file_id": doomed_file.pk},
        "things_images_retrieve": {"path.thing_id": mine.thing.pk, "path.image_id": mine.image.pk},
        "things_images_partial_update": {"path.thing_id": mine.thing.pk, "path.image_id": mine.image.pk},
        "things_images_destroy": {"path.thing_id": mine.thing.pk, "path.image_id": doomed_image.pk},
        # Files.
        "files_finalize_create": {"path.upload_id": upload.pk},
        # Copies: own for images and edits, someone else's for likes and comments.
        "copies_partial_update": {"path.copy_id": mine.make.pk},
        "copies_destroy": {"path.copy_id": doomed_make.pk},
        "copies_images_list": {"path.copy_id": mine.make.pk},
        "copies_images_create": {"path.copy_id": mine.make.pk},
        "copies_images_retrieve": {"path.copy_id": mine.make.pk, "path.image_id": mine.make_image.pk},
        "copies_images_partial_update": {"path.copy_id": mine.make.pk, "path.image_id": mine.make_image.pk},
        "copies_images_destroy": {"path.copy_id": mine.make.pk, "path.image_id": doomed_make_image.pk},
        "copies_likes_create": {"path.copy_id": theirs.make.pk},
        "copies_likes_destroy": {"path.copy_id": theirs.make.pk},
        "copies_comments_create": {"path.copy_id": theirs.make.pk, "body.parent_id": "copy_comment_id"},
        # Collections and comments: DELETEs on their own objects.
        "collections_destroy": {"path.collection_id": doomed_collection.pk},
        "comments_destroy": {"path.comment_id": doomed_comment.pk},
        # Groups: mine (owner: image, ranks, removing a member); theirs to join and leave. Add, rank and
        # remove run in that order in each phase, on the same Thing.
        "groups_image_create": {"path.group_id": mine.group.pk},
        "groups_members_destroy_2": {"path.group_id": mine.group.pk, "path.user_id": other.pk},
        "groups_members_create": {"path.group_id": theirs.group.pk},
        "groups_members_destroy": {"path.group_id": theirs.group.pk},
        "groups_things_create": {"path.group_id": mine.group.pk, "path.thing_id": mine.thing.pk},
        "groups_things_partial_update": {"path.group_id": mine.group.pk, "path.thing_id": mine.thing.pk},
        "groups_things_destroy": {"path.group_id": mine.group.pk, "path.thing_id": mine.thing.pk},
        "group_topics_comments_create": {"path.topic_id": mine.topic.pk},
        # Users: one's own account for writes, someone else to follow.
        "users_partial_update": {"path.username": "me"},
        "users_avatar_image_create": {"path.username": "me"},
        "users_cover_image_create": {"path.username": "me"},
        "users_downloads_list": {"path.username": "me"},
        "users_event_count_retrieve": {"path.username": "me"},
        "users_followers_create": {"path.username": other.username},
        "users_followers_destroy": {"path.username": other.username},
        "users_search_list": {"path.username": me.username},
        "users_search_list_2": {"path.username": me.username},
        # Search: a term and a tag the demo Things match, so the filters and sorts meet results (the
        # term itself is still generated for the library, autocomplete and user searches, which read it
        # the same way).
        "search_list_2": {"path.term": "bracket"},
        "search_tag_list_2": {"path.tag": "parametric"},
        # Orders: the app's own order (the token is the demo app's).
        "orders_partial_update": {"path.order_id": mine.order.pk},
    }
    dictionaries = {
        "copy_comment_id": [their_make_comment.pk],
        # search filters: the categories of published Things, so a filtered search can match
        "category": sorted(
            set(Thing.objects.filter(is_published=True).values_list("category__slug", flat=True)) - {None}
        ),
    }
    return operations, dictionaries


if __name__ == "__main__":
    import django

    django.setup()
    print(json.dumps(fuzz_seed()))
