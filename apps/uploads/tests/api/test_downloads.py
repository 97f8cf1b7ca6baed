"""GET /files/{id}/download (spec §4.3) and GET /users/{username}/downloads (spec §4.1)."""
import urllib.request

import pytest

from tests.support.api import assert_error
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory
from apps.uploads.models import Download, ProcessingStatus, ThingFile
from apps.uploads.tests.file_factories import ThingFileFactory, live_file

pytestmark = pytest.mark.django_db


def test_download_redirects_to_the_file_saved_under_its_name(api, user, other_user, s3):
    thing = ThingFactory(creator=other_user)
    file = live_file(s3, thing, name="Gear wheel.stl", body=b"solid gear\n")
    response = api.get(f"/files/{file.pk}/download")
    assert response.status_code == 302
    assert response.content == b""
    with urllib.request.urlopen(response["Location"]) as stored:
        assert stored.read() == b"solid gear\n"
        assert stored.headers["Content-Disposition"].startswith('attachment; filename="Gear wheel.stl"')


def test_download_records_the_history_and_counts_on_file_and_thing(api, user, other_user, s3):
    thing = ThingFactory(creator=other_user)
    file = live_file(s3, thing)
    api.get(f"/files/{file.pk}/download")
    api.get(f"/files/{file.pk}/download")
    assert Download.objects.filter(user=user, file=file, thing=thing).count() == 2
    assert ThingFile.objects.get(pk=file.pk).download_count == 2
    assert Thing.objects.get(pk=thing.pk).download_count == 2


def test_download_follows_the_visibility_matrix(api, user, other_user, s3):
    # A draft's file (403), anonymous (401), a missing file (404): test_access_matrix.py.
    processing = ThingFileFactory(thing=ThingFactory(creator=other_user), status=ProcessingStatus.PROCESSING)
    assert_error(api.get(f"/files/{processing.pk}/download"), 404)
    assert not Download.objects.exists()


def test_the_owner_may_download_a_file_still_processing(api, user, s3):
    file = live_file(s3, ThingFactory(creator=user, is_published=False), status=ProcessingStatus.PROCESSING)
    assert api.get(f"/files/{file.pk}/download").status_code == 302


def test_history_lists_each_thing_once_most_recently_downloaded_first(api, user, other_user, s3):
    first, second = ThingFactory(creator=other_user), ThingFactory(creator=other_user)
    a, b = live_file(s3, first), live_file(s3, second)
    for file in (a, b, a):
        api.get(f"/files/{file.pk}/download")
    response = api.get(f"/users/{user.username}/downloads")
    assert response.status_code == 200
    assert 'rel="last"' in response["Link"]
    assert [thing["id"] for thing in response.json()] == [first.pk, second.pk]
    assert api.get("/users/me/downloads").json() == response.json()
    assert set(response.json()[0]) == {
        "id", "name", "url", "public_url", "thumbnail", "creator", "is_published", "is_wip", "like_count", "added"
    }


def test_history_hides_things_that_are_no_longer_visible(api, user, other_user, s3):
    thing = ThingFactory(creator=other_user)
    api.get(f"/files/{live_file(s3, thing).pk}/download")
    Thing.objects.filter(pk=thing.pk).update(is_published=False)
    assert api.get(f"/users/{user.username}/downloads").json() == []


def test_download_query_count(api, user, other_user, s3, django_assert_num_queries):
    file = live_file(s3, ThingFactory(creator=other_user))
    api.get("/users/me/")  # warm-up: the once-per-5-minutes last_active write
    # token; file; Thing; savepoint, INSERT download, UPDATE file, UPDATE Thing, release savepoint
    with django_assert_num_queries(8):
        assert api.get(f"/files/{file.pk}/download").status_code == 302


@pytest.mark.parametrize("rows", [1, 30])
def test_history_query_count_is_constant(api, user, other_user, rows, django_assert_num_queries):
    for thing in ThingFactory.create_batch(rows, creator=other_user):
        Download.objects.create(user=user, thing=thing, file=ThingFileFactory(thing=thing))
    api.get("/users/me/")
    # token; COUNT; the page of Things (last download, image and render are subqueries of it)
    with django_assert_num_queries(3):
        response = api.get(f"/users/{user.username}/downloads")
    assert len(response.json()) == rows
