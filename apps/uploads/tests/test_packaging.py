"""The package service (apps/uploads/packages/services.py): ZIP layout, attribution texts, signature caching."""
import io
import zipfile

import pytest
from django.conf import settings

from apps.things.tests.factories import ThingFactory
from apps.uploads.packages import services as packaging
from apps.uploads.models import ThingPackage
from apps.uploads.tests.file_factories import ThingFileFactory, live_file

pytestmark = pytest.mark.django_db

Status = ThingPackage.Status


def built(s3, thing) -> zipfile.ZipFile:
    key = ThingPackage.objects.get(thing=thing).key
    return zipfile.ZipFile(io.BytesIO(s3.get_object(Bucket=settings.S3_BUCKET, Key=key)["Body"].read()))


def request_and_build(thing, capture):
    with capture(execute=True):
        return packaging.thing_package_request(thing=thing)


def test_zip_names_are_unique_ignoring_case_and_never_the_attribution_texts():
    files = [ThingFileFactory.build(name=name) for name in
             ("part.stl", "Part.stl", "part.stl", "README.txt", "../../etc/passwd", "noext")]
    assert packaging.zip_names(files) == [
        "part.stl", "Part (2).stl", "part (3).stl", "README (2).txt", "passwd", "noext",
    ]


def test_the_zip_holds_each_live_file_and_the_attribution(s3, user, django_capture_on_commit_callbacks):
    thing = ThingFactory(creator=user, name="Cable clip", license="cc", description="Clips cables.")
    live_file(s3, thing, name="clip.stl", body=b"solid clip\n")
    live_file(s3, thing, name="clip.stl", body=b"solid clip v2\n")
    ThingFileFactory(thing=thing, name="draft.stl", status="processing")
    assert request_and_build(thing, django_capture_on_commit_callbacks) is None
    archive = built(s3, thing)
    assert archive.namelist() == ["clip.stl", "clip (2).stl", "README.txt", "LICENSE.txt"]
    assert archive.read("clip (2).stl") == b"solid clip v2\n"
    license_text = archive.read("LICENSE.txt").decode()
    assert f'"Cable clip" by {user.username}' in license_text
    assert "Creative Commons - Attribution license" in license_text
    assert f"http://testserver/thing:{thing.pk}" in license_text
    readme = archive.read("README.txt").decode()
    assert "Clips cables." in readme and "clip (2).stl" in readme and "Published: " in readme
    package = ThingPackage.objects.get(thing=thing)
    assert package.status == Status.READY and package.built_at is not None
    assert package.key == f"packages/{thing.pk}/{package.signature}.zip"


def test_a_ready_package_is_served_without_a_rebuild(s3, user, django_capture_on_commit_callbacks):
    thing = ThingFactory(creator=user)
    live_file(s3, thing)
    request_and_build(thing, django_capture_on_commit_callbacks)
    before = ThingPackage.objects.get(thing=thing)
    with django_capture_on_commit_callbacks() as queued:
        url = packaging.thing_package_request(thing=thing)
    assert url is not None and url.startswith("http") and before.key in url
    assert queued == []
    packaging.thing_package_build(thing_id=thing.pk)  # a duplicate task run changes nothing
    after = ThingPackage.objects.get(thing=thing)
    assert (after.key, after.built_at) == (before.key, before.built_at)


def test_the_signature_follows_files_and_attribution_text(user):
    thing = ThingFactory(creator=user)
    files = [ThingFileFactory(thing=thing)]
    signature = packaging.package_signature(thing=thing, files=files)
    assert packaging.package_signature(thing=thing, files=files) == signature
    files.append(ThingFileFactory(thing=thing))
    assert packaging.package_signature(thing=thing, files=files) != signature
    thing.name = "Renamed"
    assert packaging.package_signature(thing=thing, files=files[:1]) != signature


def test_a_rebuild_replaces_the_outdated_zip(s3, user, django_capture_on_commit_callbacks):
    thing = ThingFactory(creator=user)
    live_file(s3, thing)
    request_and_build(thing, django_capture_on_commit_callbacks)
    old_key = ThingPackage.objects.get(thing=thing).key
    live_file(s3, thing, name="more.stl")
    assert request_and_build(thing, django_capture_on_commit_callbacks) is None
    assert packaging.thing_package_request(thing=thing) is not None
    assert "more.stl" in built(s3, thing).namelist()
    assert s3.list_objects_v2(Bucket=settings.S3_BUCKET, Prefix=old_key)["KeyCount"] == 0


def test_a_missing_original_fails_the_build_without_a_retry_storm(s3, user, django_capture_on_commit_callbacks):
    thing = ThingFactory(creator=user)
    ThingFileFactory(thing=thing)  # its object was never stored
    request_and_build(thing, django_capture_on_commit_callbacks)
    package = ThingPackage.objects.get(thing=thing)
    assert package.status == Status.FAILED and package.error
    with django_capture_on_commit_callbacks() as queued:
        assert packaging.thing_package_request(thing=thing) is None
    assert queued == []  # the same build is not queued again before BUILD_REQUEUE_SECONDS
