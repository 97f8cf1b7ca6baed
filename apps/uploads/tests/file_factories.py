"""Files and images made directly (no upload flow), with their objects really put in the store (moto)."""
import uuid

import factory
from django.conf import settings

from apps.things.tests.factories import ThingFactory
from apps.uploads.files.services import thing_pictures_refresh
from apps.uploads.models import Image, ProcessingStatus, ThingFile


def put(s3, key: str, body: bytes = b"solid x\nendsolid x\n", content_type: str = "application/octet-stream"):
    s3.put_object(Bucket=settings.S3_BUCKET, Key=key, Body=body, ContentType=content_type)
    return key


def exists(s3, key: str) -> bool:
    return s3.list_objects_v2(Bucket=settings.S3_BUCKET, Prefix=key).get("KeyCount", 0) > 0


def _key(name: str) -> str:
    return f"uploads/test/{uuid.uuid4().hex}/{name}"


class _PicturesFollow:
    """A row made directly, as a service would have made it: its Thing's pointers to its pictures
    (Thing.default_image, Thing.file_thumbnail_key) follow, as files.services keeps them."""

    @classmethod
    def _create(cls, model_class, *args, **kwargs):
        row = super()._create(model_class, *args, **kwargs)  # type: ignore[misc]
        thing_pictures_refresh(thing_ids=[row.thing_id])
        return row


class ThingFileFactory(_PicturesFollow, factory.django.DjangoModelFactory):
    class Meta:
        model = ThingFile

    thing = factory.SubFactory(ThingFactory)
    name = factory.Sequence(lambda n: f"part{n}.stl")
    key = factory.LazyAttribute(lambda o: _key(o.name))
    size = 1234
    content_type = "model/stl"
    status = ProcessingStatus.LIVE


class ImageFactory(_PicturesFollow, factory.django.DjangoModelFactory):
    class Meta:
        model = Image

    thing = factory.SubFactory(ThingFactory)
    name = factory.Sequence(lambda n: f"photo{n}.jpg")
    key = factory.LazyAttribute(lambda o: _key(o.name))
    size = 5000
    width = 800
    height = 600
    status = ProcessingStatus.LIVE
    sizes = factory.LazyAttribute(
        lambda o: [
            {"type": t, "size": s, "key": f"{o.key}.{t}_{s}.jpg", "width": 100, "height": 75}
            for t in ("thumb", "display")
            for s in ("large", "medium", "small")
        ]
    )


def live_file(s3, thing, *, name="part.stl", body=b"solid part\nendsolid part\n", **kwargs) -> ThingFile:
    """A live file of `thing` whose original is in the store."""
    file = ThingFileFactory(thing=thing, name=name, size=len(body), **kwargs)
    put(s3, file.key, body)
    thing.file_count += 1
    thing.save(update_fields=["file_count"])
    return file
