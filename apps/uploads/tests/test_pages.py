"""The Thing page lists its live files, and its download links record the download."""
import pytest
from django.test import Client

from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory
from apps.uploads.models import Download, ProcessingStatus
from apps.uploads.tests.file_factories import ThingFileFactory, live_file


@pytest.mark.django_db
def test_the_thing_page_lists_live_files_with_download_links(s3):
    thing = ThingFactory()
    file = live_file(s3, thing, name="bracket.stl")
    ThingFileFactory(thing=thing, name="still-processing.stl", status=ProcessingStatus.PROCESSING)

    html = Client().get(f"/thing:{thing.pk}").content.decode()

    assert "bracket.stl" in html and f"/thing:{thing.pk}/files/{file.pk}/download" in html
    assert "still-processing.stl" not in html


@pytest.mark.django_db
def test_a_signed_in_visitor_downloading_from_the_page_gets_it_in_their_history(s3, user):
    thing = ThingFactory()
    file = live_file(s3, thing)
    browser = Client()
    browser.force_login(user)

    response = browser.get(f"/thing:{thing.pk}/files/{file.pk}/download")

    assert response.status_code == 302 and response["Location"].startswith("http")
    assert Download.objects.filter(user=user, file=file).count() == 1
    assert Thing.objects.get(pk=thing.pk).download_count == 1


@pytest.mark.django_db
def test_an_anonymous_page_download_counts_but_keeps_no_history(s3):
    thing = ThingFactory()
    file = live_file(s3, thing)
    assert Client().get(f"/thing:{thing.pk}/files/{file.pk}/download").status_code == 302
    assert not Download.objects.exists() and Thing.objects.get(pk=thing.pk).download_count == 1


@pytest.mark.django_db
def test_files_of_a_draft_are_not_downloadable_by_others(s3):
    thing = ThingFactory(is_published=False)
    file = live_file(s3, thing)
    assert Client().get(f"/thing:{thing.pk}/files/{file.pk}/download").status_code == 404
