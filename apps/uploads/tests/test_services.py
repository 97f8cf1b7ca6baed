"""Upload-flow services and rules: start, finalize (locks, claims, races), and the name rules."""

import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from apps.core.domain.exceptions import NotFound, PermissionDenied, ValidationFailed
from apps.makes.tests.factories import MakeFactory
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory
from apps.uploads import rules, store
from apps.uploads.flow import services
from apps.uploads.models import Image, ThingFile, Upload
from apps.uploads.tests.upload_helpers import stl_bytes, upload_started

# --- rules -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw,clean",
    [
        ("part.stl", "part.stl"),
        ("../../etc/passwd", "passwd"),
        ("C:\\Users\\x\\part.STL", "part.STL"),
        ("  spaced   out  name .stl ", "spaced out name .stl"),
        ("tab\there.stl", "tab here.stl"),
        ("nul\x00byte.stl", "nulbyte.stl"),
        ("bidi\u202efdp.exe", "bidifdp.exe"),
        ("...", ""),
        ("dir/", ""),
        ("", ""),
    ],
)
def test_filename_clean_keeps_only_a_printable_last_segment(raw, clean):
    assert rules.filename_clean(raw) == clean


def test_filename_clean_shortens_long_names_and_keeps_the_extension():
    name = rules.filename_clean("x" * 300 + ".stl")
    assert len(name) == 255 and name.endswith(".stl")


def test_object_keys_are_unique_ascii_and_under_the_owners_prefix():
    key = rules.object_key(owner_id=7, name="Pièce (1) ü.stl")
    prefix, owner, token, name = key.split("/")
    assert (prefix, owner, name) == ("uploads", "7", "Piece_1_u.stl")
    assert len(token) == 32
    assert rules.object_key(owner_id=7, name="a.stl") != rules.object_key(owner_id=7, name="a.stl")
    assert rules.object_key(owner_id=7, name="日本.").endswith("/file")
    assert len(rules.object_key(owner_id=7, name="y" * 250 + ".3mf").rsplit("/", 1)[1]) == 100


@pytest.mark.parametrize(
    "name,kind,ctype",
    [
        ("a.stl", Upload.Kind.THING_FILE, "model/stl"),
        ("a.3mf", Upload.Kind.THING_FILE, "model/3mf"),
        ("a.scad", Upload.Kind.THING_FILE, "text/plain"),
        ("README", Upload.Kind.THING_FILE, "application/octet-stream"),
        ("a.JPG", Upload.Kind.THING_IMAGE, "image/jpeg"),
        ("a.webp", Upload.Kind.THING_IMAGE, "image/webp"),
        (".png", Upload.Kind.THING_FILE, "application/octet-stream"),
    ],
)
def test_kind_and_content_type_follow_the_extension(name, kind, ctype):
    assert rules.thing_upload_kind(name) == kind
    assert rules.content_type_for(name) == ctype


def test_size_rules_follow_the_policy_bounds():
    assert rules.upload_size_problem(0, max_bytes=10) == rules.UPLOAD_EMPTY
    assert rules.upload_size_problem(1, max_bytes=10) is None
    assert rules.upload_size_problem(10, max_bytes=10) is None
    assert rules.upload_size_problem(11, max_bytes=10) == rules.UPLOAD_TOO_LARGE


# --- services ----------------------------------------------------------------------------------------


pytestmark_db = pytest.mark.django_db


@pytestmark_db
def test_start_is_generic_over_kinds_and_targets(user):
    upload = services.upload_start(owner=user, kind=Upload.Kind.COPY_IMAGE, target_id=42, filename="make.jpg")
    assert (upload.kind, upload.target_id, upload.content_type) == (Upload.Kind.COPY_IMAGE, 42, "image/jpeg")
    with pytest.raises(ValidationFailed):
        services.upload_start(owner=user, kind=Upload.Kind.COPY_IMAGE, target_id=42, filename="make.stl")
    with pytest.raises(ValueError):
        services.upload_start(owner=user, kind="no-such-kind", target_id=1, filename="a.png")


@pytestmark_db
def test_a_copy_image_upload_becomes_an_image_of_the_copy(user, s3):
    # The finalizer is apps.makes' (registered in its AppConfig.ready).
    make = MakeFactory(creator=user)
    upload = services.upload_start(
        owner=user, kind=Upload.Kind.COPY_IMAGE, target_id=make.pk, filename="make.jpg"
    )
    store.put(upload.key, b"\xff\xd8not-really-a-jpeg")
    summary = services.upload_finalize(upload_id=upload.pk, user=user)
    image = Image.objects.get()
    assert (image.copy_id, image.thing_id) == (make.pk, None)
    assert summary == {
        "id": image.pk,
        "name": "make.jpg",
        "url": f"http://testserver/copies/{make.pk}/images/{image.pk}",
    }


@pytestmark_db
def test_a_later_app_registers_its_finalizer(user, s3, monkeypatch):
    monkeypatch.setattr(services, "_FINALIZERS", dict(services._FINALIZERS))
    applied = []
    services.upload_finalizer_register(
        Upload.Kind.GROUP_IMAGE, lambda upload, *, size: applied.append((upload.pk, size))
    )
    upload = services.upload_start(owner=user, kind=Upload.Kind.GROUP_IMAGE, target_id=5, filename="logo.png")
    store.put(upload.key, b"png")
    assert services.upload_finalize(upload_id=upload.pk, user=user)["id"] == upload.pk
    assert applied == [(upload.pk, 3)]

    def gone(upload, *, size):
        raise LookupError("group deleted")

    services.upload_finalizer_register(Upload.Kind.GROUP_IMAGE, gone)
    other = services.upload_start(owner=user, kind=Upload.Kind.GROUP_IMAGE, target_id=6, filename="logo.png")
    store.put(other.key, b"png")
    with pytest.raises(NotFound):
        services.upload_finalize(upload_id=other.pk, user=user)
    assert Upload.objects.get(pk=other.pk).status == Upload.Status.FAILED


@pytestmark_db
def test_finalize_checks_the_owner(user, other_user, s3):
    upload = upload_started(owner=user, target_id=ThingFactory(creator=user).pk)
    store.put(upload.key, stl_bytes())
    with pytest.raises(PermissionDenied):
        services.upload_finalize(upload_id=upload.pk, user=other_user)
    with pytest.raises(NotFound):
        services.upload_finalize(upload_id="nope", user=user)


@pytestmark_db
def test_a_close_that_loses_the_race_answers_as_the_winner(user, s3):
    """A finalize that saw an empty object, while another call already finalized the upload."""
    thing = ThingFactory(creator=user)
    upload = upload_started(owner=user, target_id=thing.pk)
    store.put(upload.key, stl_bytes())
    summary = services.upload_finalize(upload_id=upload.pk, user=user)
    stale = Upload.objects.get(pk=upload.pk)
    stale.status = Upload.Status.PENDING  # what the loser read before the winner committed
    assert services._upload_close(stale, Upload.Status.FAILED, rules.UPLOAD_EMPTY, size=0) == summary
    assert Upload.objects.get(pk=upload.pk).status == Upload.Status.FINALIZED
    assert store.head(upload.key) is not None


def _run_concurrently(calls):
    barrier = threading.Barrier(len(calls))
    results, errors = [], []

    def run(call):
        try:
            barrier.wait()
            results.append(call())
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results, errors


@pytest.mark.django_db(transaction=True)
def test_concurrent_finalizes_create_one_file_and_count_it_once(s3):
    from apps.accounts.tests.factories import UserFactory

    owner = UserFactory()
    thing = ThingFactory(creator=owner)
    upload = upload_started(owner=owner, target_id=thing.pk)
    store.put(upload.key, stl_bytes())

    results, errors = _run_concurrently(
        [lambda: services.upload_finalize(upload_id=upload.pk, user=owner) for _ in range(8)]
    )
    assert errors == []
    file = ThingFile.objects.get()
    assert results == [{"id": file.pk, "name": "part.stl", "url": f"http://testserver/files/{file.pk}"}] * 8
    assert Thing.objects.get(pk=thing.pk).file_count == 1
    assert Upload.objects.get(pk=upload.pk).status == Upload.Status.FINALIZED


@pytest.mark.django_db(transaction=True)
def test_concurrent_finalize_and_verify_of_an_empty_object_fail_it_once(s3):
    from apps.accounts.tests.factories import UserFactory

    owner = UserFactory()
    upload = upload_started(owner=owner, target_id=ThingFactory(creator=owner).pk)
    store.put(upload.key, b"")

    def finalize():
        try:
            services.upload_finalize(upload_id=upload.pk, user=owner)
        except services.UploadProblem as exc:
            return exc.error_type

    results, errors = _run_concurrently(
        [finalize] * 4 + [lambda: services.upload_verify(upload_id=upload.pk)] * 4
    )
    assert errors == []
    assert sorted(results) == ["UPLOAD_EMPTY"] * 4 + ["failed"] * 4
    assert Upload.objects.get(pk=upload.pk).status == Upload.Status.FAILED
    assert store.head(upload.key) is None


@pytestmark_db
def test_expired_uploads_answer_expired_even_when_asked_by_the_service(user, s3):
    upload = upload_started(owner=user, target_id=ThingFactory(creator=user).pk)
    Upload.objects.filter(pk=upload.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert services.upload_verify(upload_id=upload.pk) == "expired"
    assert services.upload_verify(upload_id=upload.pk) == "expired"
    assert services.upload_verify(upload_id=999999) == "gone"
