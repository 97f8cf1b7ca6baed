"""The access matrix of the uploads endpoints: a Thing's files and images (spec §4.2), files and their
downloads (§4.3), the upload flow (§4.10, §4.1 avatar/cover), the package and the download history,
declared once per endpoint (tests.support.api.Access): anonymous 401, another user 403, a missing id 404.
A refused call answers docs/decisions.md's error body and changes no row."""
import pytest

from tests.support.api import MISSING, STRANGER, Access, access_cases
from apps.things.tests.factories import ThingFactory
from apps.uploads import store
from apps.uploads.tests.file_factories import ImageFactory, live_file
from apps.uploads.tests.upload_helpers import stl_bytes, upload_started

pytestmark = pytest.mark.django_db

FORBIDDEN = {STRANGER: "FORBIDDEN"}
# A draft's files and images follow the Thing's matrix: its creator's alone.
ON_A_DRAFT = [
    Access("GET", "/things/{id}/files", error_type=FORBIDDEN),
    Access("GET", "/things/{id}/files/{file_id}", error_type=FORBIDDEN),
    Access("GET", "/files/{file_id}/", error_type=FORBIDDEN),
    Access("GET", "/files/{file_id}/download",
           error_type={STRANGER: "FORBIDDEN", MISSING: "NOT_FOUND"}),
    Access("GET", "/things/{id}/images", error_type=FORBIDDEN),
    Access("GET", "/things/{id}/images/{image_id}", error_type=FORBIDDEN),
    Access("GET", "/things/{id}/package-url", error_type={STRANGER: "FORBIDDEN", MISSING: "NOT_FOUND"}),
]
# A published Thing's files and images: reads need a token; changes are its creator's.
ON_A_PUBLISHED_THING = [
    Access("GET", "/things/{id}/files", stranger=None, missing=None),
    Access("GET", "/things/{id}/files/{file_id}", stranger=None, missing=None),
    Access("GET", "/files/{file_id}/", stranger=None, missing=None),
    Access("POST", "/things/{id}/files", body={"filename": "a.stl"}),
    Access("DELETE", "/things/{id}/files/{file_id}", error_type=FORBIDDEN),
    Access("PATCH", "/things/{id}/images/{image_id}", body={"rank": 9}, error_type=FORBIDDEN),
    Access("DELETE", "/things/{id}/images/{image_id}", error_type=FORBIDDEN),
]
ON_AN_UPLOAD = [Access("POST", "/files/{id}/finalize")]
ON_A_USER = [
    Access("POST", "/users/{username}/avatar-image", body={"filename": "a.png"}),
    Access("POST", "/users/{username}/cover-image", body={"filename": "a.png"}),
    Access("GET", "/users/{username}/downloads",
           error_type={STRANGER: "FORBIDDEN", MISSING: "NOT_FOUND"}),
]


def _with_a_file_and_an_image(s3, thing) -> dict:
    return {"file_id": live_file(s3, thing).pk, "image_id": ImageFactory(thing=thing, rank=1).pk}


@pytest.mark.parametrize("endpoint, caller", access_cases(ON_A_DRAFT))
def test_a_drafts_files_and_images_are_its_creators_alone(access, endpoint, caller, user, s3):
    draft = ThingFactory(creator=user, is_published=False)
    access(endpoint, caller, draft, **_with_a_file_and_an_image(s3, draft))


@pytest.mark.parametrize("endpoint, caller", access_cases(ON_A_PUBLISHED_THING))
def test_a_things_files_and_images_are_changed_by_its_creator_alone(access, endpoint, caller, user, s3):
    thing = ThingFactory(creator=user)
    access(endpoint, caller, thing, **_with_a_file_and_an_image(s3, thing))


@pytest.mark.parametrize("endpoint, caller", access_cases(ON_AN_UPLOAD))
def test_an_upload_is_finalized_by_its_owner_alone(access, endpoint, caller, user, s3):
    upload = upload_started(owner=user, target_id=ThingFactory(creator=user).pk, filename="bracket.stl")
    store.put(upload.key, stl_bytes())
    access(endpoint, caller, upload)


@pytest.mark.parametrize("endpoint, caller", access_cases(ON_A_USER))
def test_a_users_images_and_downloads_are_their_own(access, endpoint, caller, user):
    access(endpoint, caller, user, username=user.username)
