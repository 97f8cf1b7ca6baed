import uuid

import pytest
from django.conf import settings

from apps.things.tests.factories import ThingFactory
from apps.uploads.models import Image, ThingFile


@pytest.fixture
def thing(db):
    return ThingFactory()


@pytest.fixture
def stored(s3):
    """stored(data, name) → a fresh object key holding `data` in the test bucket (moto)."""

    def put(data: bytes, name: str = "file.bin") -> str:
        key = f"tests/processing/{uuid.uuid4().hex}/{name}"
        s3.put_object(Bucket=settings.S3_BUCKET, Key=key, Body=data)
        return key

    return put


@pytest.fixture
def object_bytes(s3):
    def get(key: str) -> bytes:
        return s3.get_object(Bucket=settings.S3_BUCKET, Key=key)["Body"].read()

    return get


@pytest.fixture
def object_exists(s3):
    def exists(key: str) -> bool:
        return s3.list_objects_v2(Bucket=settings.S3_BUCKET, Prefix=key).get("KeyCount", 0) > 0 and any(
            o["Key"] == key for o in s3.list_objects_v2(Bucket=settings.S3_BUCKET, Prefix=key)["Contents"]
        )

    return exists


@pytest.fixture
def thing_file(thing, stored):
    def make(data: bytes, name: str = "part.stl") -> ThingFile:
        key = stored(data, name)
        return ThingFile.objects.create(thing=thing, name=name, key=key, size=len(data))

    return make


@pytest.fixture
def image(thing, stored):
    def make(data: bytes, name: str = "photo.jpg") -> Image:
        key = stored(data, name)
        return Image.objects.create(thing=thing, name=name, key=key, size=len(data))

    return make
