"""GET /things/{id}/package-url (spec §4.2): 202 while the ZIP is built by Celery, then its signed URL."""
import io
import urllib.request
import zipfile

import pytest

from tests.support.api import assert_error
from apps.things.tests.factories import ThingFactory
from apps.uploads.models import ProcessingStatus, ThingPackage
from apps.uploads.tests.file_factories import ThingFileFactory, live_file

pytestmark = pytest.mark.django_db


def request_package(client, thing, capture):
    """package-url once, running what it queued on commit (Celery runs eagerly in tests)."""
    with capture(execute=True):
        return client.get(f"/things/{thing.pk}/package-url")


def test_the_first_request_queues_a_build_then_the_url_serves_the_zip(
    api, other_user, s3, django_capture_on_commit_callbacks
):
    thing = ThingFactory(creator=other_user, name="Bracket")
    live_file(s3, thing, name="bracket.stl", body=b"solid bracket\n")
    response = request_package(api, thing, django_capture_on_commit_callbacks)
    assert response.status_code == 202
    assert response.json() == {"status": "building", "url": None}
    assert response["Retry-After"] == "5"
    response = api.get(f"/things/{thing.pk}/package-url")
    assert response.status_code == 200
    assert set(response.json()) == {"url"}
    with urllib.request.urlopen(response.json()["url"]) as stored:
        assert stored.headers["Content-Disposition"].startswith(f'attachment; filename="bracket-{thing.pk}.zip"')
        archive = zipfile.ZipFile(io.BytesIO(stored.read()))
    assert sorted(archive.namelist()) == ["LICENSE.txt", "README.txt", "bracket.stl"]
    assert archive.read("bracket.stl") == b"solid bracket\n"
    assert "Creative Commons - Attribution - Share Alike" in archive.read("LICENSE.txt").decode()


def test_polling_while_building_queues_no_second_build(api, other_user, s3, django_capture_on_commit_callbacks):
    thing = ThingFactory(creator=other_user)
    live_file(s3, thing)
    with django_capture_on_commit_callbacks() as first:
        assert api.get(f"/things/{thing.pk}/package-url").status_code == 202
    with django_capture_on_commit_callbacks() as second:
        assert api.get(f"/things/{thing.pk}/package-url").status_code == 202
    assert (len(first), len(second)) == (1, 0)
    assert ThingPackage.objects.get(thing=thing).status == ThingPackage.Status.BUILDING


def test_a_changed_file_list_is_rebuilt(api, user, s3, django_capture_on_commit_callbacks):
    thing = ThingFactory(creator=user)
    old = live_file(s3, thing, name="old.stl")
    request_package(api, thing, django_capture_on_commit_callbacks)
    first_key = ThingPackage.objects.get(thing=thing).key
    with django_capture_on_commit_callbacks(execute=True):
        api.delete(f"/things/{thing.pk}/files/{old.pk}")
    live_file(s3, thing, name="new.stl")
    assert request_package(api, thing, django_capture_on_commit_callbacks).status_code == 202
    url = api.get(f"/things/{thing.pk}/package-url").json()["url"]
    package = ThingPackage.objects.get(thing=thing)
    assert package.key != first_key
    with urllib.request.urlopen(url) as stored:
        assert "new.stl" in zipfile.ZipFile(io.BytesIO(stored.read())).namelist()


def test_no_live_files_is_404_no_files(api, user, other_user):
    thing = ThingFactory(creator=user)
    body = assert_error(api.get(f"/things/{thing.pk}/package-url"), 404, "NO_FILES")
    assert body["errors"] == ["This Thing has no files to package yet."]
    ThingFileFactory(thing=thing, status=ProcessingStatus.PROCESSING)
    thing.file_count = 1
    thing.save(update_fields=["file_count"])
    body = assert_error(api.get(f"/things/{thing.pk}/package-url"), 404, "NO_FILES")
    assert body["errors"] == ["This Thing has no files ready to package yet."]


@pytest.mark.caches_off  # counts the uncached path's statements (the token cache would hide one)
def test_a_ready_package_costs_four_queries(api, other_user, s3, django_capture_on_commit_callbacks,
                                             django_assert_num_queries):
    thing = ThingFactory(creator=other_user)
    live_file(s3, thing)
    request_package(api, thing, django_capture_on_commit_callbacks)
    api.get("/users/me/")  # warm-up: the once-per-5-minutes last_active write
    # token; Thing; its live files (the signature); the package row
    with django_assert_num_queries(4):
        assert api.get(f"/things/{thing.pk}/package-url").status_code == 200
