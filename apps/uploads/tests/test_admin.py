"""The uploads admin: read-only lists, filters, and the action that runs the service's own check."""

import pytest
from django.contrib.admin import helpers
from django.test import Client

from apps.accounts.tests.factories import UserFactory
from apps.things.tests.factories import ThingFactory
from apps.uploads import store
from apps.uploads.models import ThingFile, Upload
from apps.uploads.tests.upload_helpers import stl_bytes, upload_started

pytestmark = pytest.mark.django_db

UPLOADS = "/admin/uploads/upload/"


@pytest.fixture
def admin_browser(db):
    client = Client()
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    return client


def test_the_upload_list_filters_by_status_and_kind_and_cannot_add(admin_browser, user):
    upload = upload_started(owner=user, target_id=ThingFactory(creator=user).pk)
    response = admin_browser.get(UPLOADS, {"status__exact": "pending", "kind__exact": "thing_file"})
    assert response.status_code == 200
    assert list(response.context["cl"].result_list) == [upload]
    assert admin_browser.get(UPLOADS, {"status__exact": "failed"}).context["cl"].result_list.count() == 0
    assert admin_browser.get(UPLOADS + "add/").status_code == 403
    assert admin_browser.get(UPLOADS, {"q": user.username}).status_code == 200
    assert admin_browser.get(f"{UPLOADS}{upload.pk}/change/").status_code == 200  # view-only


def test_the_file_and_image_lists_load(admin_browser):
    assert admin_browser.get("/admin/uploads/thingfile/").status_code == 200
    assert admin_browser.get("/admin/uploads/image/").status_code == 200


def test_the_check_action_finalizes_arrived_uploads(admin_browser, user, s3):
    upload = upload_started(owner=user, target_id=ThingFactory(creator=user).pk)
    store.put(upload.key, stl_bytes())
    response = admin_browser.post(
        UPLOADS, {"action": "verify_now", helpers.ACTION_CHECKBOX_NAME: [upload.pk]}, follow=True
    )
    assert response.status_code == 200
    assert "1 finalized" in response.content.decode()
    assert ThingFile.objects.get().name == "part.stl"
    assert Upload.objects.get(pk=upload.pk).status == Upload.Status.FINALIZED
