"""One of every API object, owned by one user through one application.

Used by the IDOR suite (tests/security/test_idor.py: another user's and another app's token against each
object) and by the fuzz seed (tests/contract/seed.py: real ids for Schemathesis). When a feature brings a
new kind of object, add it here and name its path parameter in `path_values`.
"""
from dataclasses import dataclass, field
from typing import Any

from apps.comments.tests.factories import CommentFactory
from apps.groups.tests.factories import GroupFactory, GroupTopicFactory
from apps.makes.tests.factories import MakeFactory, make_image
from apps.orders.tests.factories import OrderFactory
from apps.thingcollections.tests.factories import CollectionFactory, CollectionThingFactory
from apps.things.tests.factories import ThingFactory
from apps.uploads.tests.file_factories import ImageFactory, ThingFileFactory
from apps.uploads.tests.upload_helpers import upload_started


@dataclass
class World:
    owner: Any
    app: Any
    thing: Any  # published
    draft: Any  # unpublished
    file: Any
    draft_file: Any  # a file of the unpublished Thing
    image: Any
    upload: Any  # pending, for a file of `thing`
    collection: Any
    group: Any
    topic: Any
    order: Any
    make: Any
    make_image: Any
    comment: Any
    extra: dict = field(default_factory=dict)

    def path_values(self) -> dict[str, object]:
        """A value for each path parameter name of the OpenAPI document, naming this world's objects."""
        return {
            "username": self.owner.username,
            "user_id": self.owner.pk,
            "thing_id": self.thing.pk,
            "file_id": self.file.pk,
            "image_id": self.image.pk,
            "upload_id": self.upload.pk,
            "collection_id": self.collection.pk,
            "group_id": self.group.pk,
            "topic_id": self.topic.pk,
            "order_id": self.order.pk,
            "copy_id": self.make.pk,
            "comment_id": self.comment.pk,
            "parent_id": self.comment.pk,
            # parameters that name no object of the world
            "slug": "robotics",
            "tag": "bracket",
            "term": "bracket",
            "all": "true",
        }


def world_build(*, owner, app) -> World:
    """Objects of `owner`, the app-scoped ones (collections, orders) created through `app`."""
    thing = ThingFactory(creator=owner, name=f"{owner.username}'s published bracket")
    draft = ThingFactory(
        creator=owner, name=f"{owner.username}'s draft", is_published=False, published_at=None
    )
    collection = CollectionFactory(creator=owner, created_by_app=app)
    CollectionThingFactory(collection=collection, thing=thing, added_by_app=app)
    group = GroupFactory(creator=owner)
    make = MakeFactory(thing=thing, creator=owner)
    return World(
        owner=owner,
        app=app,
        thing=thing,
        draft=draft,
        file=ThingFileFactory(thing=thing),
        draft_file=ThingFileFactory(thing=draft),
        image=ImageFactory(thing=thing),
        upload=upload_started(owner=owner, target_id=thing.pk),
        collection=collection,
        group=group,
        topic=GroupTopicFactory(group=group, user=owner),
        order=OrderFactory(buyer=owner, application=app, thing=ThingFactory()),
        make=make,
        make_image=make_image(make),
        comment=CommentFactory(thing=thing, user=owner),
    )
