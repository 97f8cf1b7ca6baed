"""Processing never stays silent (issue 23): a file or image still `processing` past
PROCESSING_STALLED_SECONDS (its worker or broker gone) says so on the site and in the API, and its owner
can try again; the retry is queued durably and the row then goes live."""
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from apps.accounts.tests.factories import UserFactory
from apps.core.models import PendingTask
from apps.makes.tests.factories import MakeFactory, make_image
from apps.things.tests.factories import ThingFactory
from apps.uploads.models import Image, ProcessingStatus, ThingFile
from apps.uploads.tests.file_factories import ImageFactory, ThingFileFactory, put
from apps.uploads.tests.upload_helpers import png_bytes, stl_bytes

pytestmark = pytest.mark.django_db

STALLED = "Processing has not finished after 3 minutes"


@pytest.fixture(autouse=True)
def _stall_after_three_minutes(settings):
    settings.PROCESSING_STALLED_SECONDS = 180


@pytest.fixture
def thing(user):
    return ThingFactory(creator=user, name="Cable clip")


@pytest.fixture
def browser(user):
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def stranger():
    client = Client()
    client.force_login(UserFactory())
    return client


def _age(record, minutes: float):
    """As if it had been queued `minutes` ago (auto_now: only an UPDATE can set `modified`)."""
    type(record).objects.filter(pk=record.pk).update(modified=timezone.now() - timedelta(minutes=minutes))
    record.refresh_from_db()
    return record


@pytest.fixture
def stalled_file(s3, thing):
    file = ThingFileFactory(thing=thing, name="clip.stl", status=ProcessingStatus.PROCESSING, size=len(stl_bytes()))
    put(s3, file.key, stl_bytes())
    return _age(file, 10)


@pytest.fixture
def stalled_image(s3, thing):
    image = ImageFactory(thing=thing, name="photo.png", status=ProcessingStatus.PROCESSING, sizes=[])
    put(s3, image.key, png_bytes())
    return _age(image, 10)


def test_the_api_says_a_file_processing_too_long_has_not_finished(api, stalled_file, thing):
    body = api.get(f"/files/{stalled_file.pk}").json()
    assert body["status"] == "processing"
    assert body["processing_error"].startswith(STALLED)
    listed = api.get(f"/things/{thing.pk}/files").json()
    assert listed[0]["processing_error"].startswith(STALLED)


def test_a_file_processing_for_a_moment_has_no_error(api, thing):
    file = ThingFileFactory(thing=thing, status=ProcessingStatus.PROCESSING)
    _age(file, 2)
    assert api.get(f"/files/{file.pk}").json()["processing_error"] == ""


def test_a_failure_keeps_its_own_reason(api, thing):
    file = ThingFileFactory(thing=thing, status=ProcessingStatus.FAILED, processing_error="Not an STL file.")
    _age(file, 60)
    assert api.get(f"/files/{file.pk}").json()["processing_error"] == "Not an STL file."


def test_the_api_says_an_image_processing_too_long_has_not_finished(api, stalled_image, thing):
    body = api.get(f"/things/{thing.pk}/images/{stalled_image.pk}").json()
    assert body["status"] == "processing" and body["processing_error"].startswith(STALLED)
    live = ImageFactory(thing=thing)
    assert api.get(f"/things/{thing.pk}/images/{live.pk}").json()["processing_error"] == ""


def test_the_thing_page_shows_the_stalled_file_and_try_again_to_its_owner(
    browser, stranger, stalled_file, thing
):
    retry = f'action="/thing:{thing.pk}/files/{stalled_file.pk}/retry"'
    owner_page = browser.get(f"/thing:{thing.pk}").content.decode()
    assert STALLED in owner_page and "Not processed" in owner_page and retry in owner_page
    for visitor in (stranger, Client()):  # others see live files only (files.selectors)
        page = visitor.get(f"/thing:{thing.pk}").content.decode()
        assert STALLED not in page and retry not in page


def test_the_status_poll_reports_stalled_and_settles(browser, stalled_file, stalled_image, thing):
    body = browser.get(f"/thing:{thing.pk}/files/status?view=edit").json()
    assert body["settled"] is True  # the page stops polling: nothing will change by itself
    assert body["states"][f"file:{stalled_file.pk}"]["status"] == "stalled"
    assert body["states"][f"image:{stalled_image.pk}"]["error"].startswith(STALLED)
    assert f"/thing:{thing.pk}/images/{stalled_image.pk}/retry" in body["images_html"]


def test_try_again_queues_the_file_durably_and_it_goes_live(
    browser, stalled_file, thing, django_capture_on_commit_callbacks
):
    url = f"/thing:{thing.pk}/files/{stalled_file.pk}/retry"
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = browser.post(url, HTTP_ACCEPT="application/json")
    assert response.json()["queued"] is True
    # Committed with the claim: a pending-task row, published (and deleted) on commit or redriven.
    assert PendingTask.objects.filter(task="apps.uploads.processing.tasks.file_process",
                                      args=[stalled_file.pk]).exists()
    for callback in callbacks:
        callback()  # the publish; Celery runs eagerly here, as a worker would
    stalled_file.refresh_from_db()
    assert stalled_file.status == ProcessingStatus.LIVE and stalled_file.geometry["triangles"] == 4
    assert not PendingTask.objects.exists()


def test_try_again_twice_queues_once(browser, stalled_file, thing, django_capture_on_commit_callbacks):
    url = f"/thing:{thing.pk}/files/{stalled_file.pk}/retry"
    with django_capture_on_commit_callbacks(execute=False):
        assert browser.post(url, HTTP_ACCEPT="application/json").json()["queued"] is True
        assert browser.post(url, HTTP_ACCEPT="application/json").json()["queued"] is False
    assert PendingTask.objects.count() == 1


def test_try_again_on_an_image_processes_it(browser, stalled_image, thing, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = browser.post(f"/thing:{thing.pk}/images/{stalled_image.pk}/retry")
    assert response.status_code == 302
    stalled_image.refresh_from_db()
    assert stalled_image.status == ProcessingStatus.LIVE and stalled_image.sizes


def test_try_again_is_not_for_a_file_that_is_only_processing(browser, thing):
    file = _age(ThingFileFactory(thing=thing, status=ProcessingStatus.PROCESSING), 1)
    before = file.modified
    assert browser.post(f"/thing:{thing.pk}/files/{file.pk}/retry", HTTP_ACCEPT="application/json").json() == {
        "ok": True, "message": f"“{file.name}” is not stalled.", "queued": False,
    }
    file.refresh_from_db()
    assert file.modified == before and not PendingTask.objects.exists()


def test_strangers_and_anonymous_visitors_cannot_try_again(stranger, stalled_file, stalled_image, thing):
    for url in (f"/thing:{thing.pk}/files/{stalled_file.pk}/retry",
                f"/thing:{thing.pk}/images/{stalled_image.pk}/retry"):
        assert stranger.post(url).status_code == 404
        anonymous = Client().post(url)
        assert anonymous.status_code == 302 and anonymous["Location"].startswith("/login/")
    assert not PendingTask.objects.exists()
    assert ThingFile.objects.get(pk=stalled_file.pk).modified == stalled_file.modified
    assert Image.objects.get(pk=stalled_image.pk).modified == stalled_image.modified


def test_a_make_photo_that_stalled_shows_the_error_and_its_maker_can_try_again(
    s3, user, api, stranger, django_capture_on_commit_callbacks
):
    make = MakeFactory(creator=user)
    image = make_image(make, name="my-print.png", status=ProcessingStatus.PROCESSING, sizes=[])
    put(s3, image.key, png_bytes())
    _age(image, 10)
    retry = f"/make:{make.pk}/images/{image.pk}/retry"
    assert api.get(f"/copies/{make.pk}/images").json()[0]["processing_error"].startswith(STALLED)
    maker = Client()
    maker.force_login(user)
    page = maker.get(f"/make:{make.pk}").content.decode()
    assert STALLED in page and f'action="{retry}"' in page
    other = stranger.get(f"/make:{make.pk}").content.decode()
    assert retry not in other  # others see live photos only
    assert stranger.post(retry).status_code == 404
    assert Client().post(retry).status_code == 302
    with django_capture_on_commit_callbacks(execute=True):
        assert maker.post(retry).status_code == 302
    image.refresh_from_db()
    assert image.status == ProcessingStatus.LIVE
