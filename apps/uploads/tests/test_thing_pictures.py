"""A Thing's pictures as pointers (Thing.default_image, Thing.file_thumbnail_key; docs/decisions.md "A
Thing's pictures as pointers", issue 17).

Every service that changes a Thing's images or files keeps the pointers, and what the API shows from
them is exactly what the correlated subqueries computed before (files.selectors.thing_image_annotations,
the reference, read by the links functions of that time): after each change below, the detail's
`default_image` and `thumbnail`, the short form's `thumbnail`, a collection's preview picture and a make's
Thing are compared with the reference, as JSON text.
"""
import importlib
import json
import uuid
from types import SimpleNamespace

import pytest
from django.apps import apps as django_apps
from django.conf import settings
from django.core.management import call_command
from django.db import connection

from apps.makes.selectors import make_queryset
from apps.makes.serializers import MakeSerializer
from apps.makes.services import make_image_delete, make_image_update
from apps.makes.tests.factories import MakeFactory, make_image
from apps.things import links as thing_links
from apps.things import selectors as thing_selectors
from apps.things import services as thing_services
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory
from apps.uploads.files import selectors as file_selectors
from apps.uploads.files.services import (
    file_delete,
    image_delete,
    image_reorder,
    image_update,
    thing_pictures_repair,
)
from apps.uploads.links import (
    PREVIEW_PREFERENCE,
    image_from_row,
    placeholder_thumbnail_url,
    thing_thumbnail_from_row,
)
from apps.uploads.models import Image, ProcessingStatus, ThingFile
from apps.uploads.processing.services import file_process, image_process, processing_time_out
from apps.uploads.tests.file_factories import ImageFactory, ThingFileFactory
from apps.uploads.tests.processing.meshes import binary_stl, cube_triangles
from apps.uploads.tests.processing.pictures import picture

pytestmark = pytest.mark.django_db


@pytest.fixture
def thing(other_user):
    return ThingFactory(creator=other_user)


@pytest.fixture
def stored(s3):
    def put(data: bytes, name: str) -> str:
        key = f"tests/pictures/{uuid.uuid4().hex}/{name}"
        s3.put_object(Bucket=settings.S3_BUCKET, Key=key, Body=data)
        return key

    return put


@pytest.fixture
def new_image(stored):
    """What an image upload's finalize leaves: a processing image of the Thing, its original stored."""

    def make(thing, name: str = "photo.jpg", **fields) -> Image:
        key = stored(picture("JPEG", (320, 240)), name)
        return Image.objects.create(thing=thing, name=name, key=key, size=1, **fields)

    return make


@pytest.fixture
def new_file(stored):
    """What a file upload's finalize leaves: a processing file of the Thing, its original stored."""

    def make(thing, name: str = "part.stl") -> ThingFile:
        data = binary_stl(cube_triangles(10.0)) if name.endswith(".stl") else b"notes"
        return ThingFile.objects.create(thing=thing, name=name, key=stored(data, name), size=len(data))

    return make


REFERENCE = ("default_image_row", "first_file_thumbnail_key")


def reference(thing_id: int) -> dict:
    """The Thing's pictures as the correlated subqueries computed them, shown as the API showed them."""
    row, key = (
        Thing.objects.filter(pk=thing_id)
        .annotate(**file_selectors.thing_image_annotations())
        .values_list(*REFERENCE)
        .get()
    )
    default_image = image_from_row(row)
    return {
        "default_image": json.dumps(default_image),
        "thumbnail": thing_thumbnail_from_row(row, key) or placeholder_thumbnail_url(),
        "preview": thing_thumbnail_from_row(row, key, PREVIEW_PREFERENCE) or placeholder_thumbnail_url(),
        "pointers": (default_image["id"] if default_image else None, key or ""),
    }


def shown(api, thing_id: int) -> dict:
    """The same, read back through the pointers: detail, short form of a list, a collection's preview."""
    detail = api.get(f"/things/{thing_id}/").json()
    creator = Thing.objects.filter(pk=thing_id).values_list("creator__username", flat=True).get()
    short = {row["id"]: row for row in api.get(f"/users/{creator}/things").json()}[thing_id]
    assert short["thumbnail"] == detail["thumbnail"]
    listed = thing_selectors.thing_short_queryset().get(pk=thing_id)
    assert thing_links.thing_thumbnail_url(listed) == detail["thumbnail"]
    pointers = Thing.objects.values_list("default_image_id", "file_thumbnail_key").get(pk=thing_id)
    return {
        "default_image": json.dumps(detail["default_image"]),
        "thumbnail": detail["thumbnail"],
        "preview": thing_links.thing_preview_url(listed),
        "pointers": pointers,
    }


def assert_as_before(api, thing) -> dict:
    got = shown(api, thing.pk)
    assert got == reference(thing.pk)
    return json.loads(got["default_image"]) or {}


# --- every change to a Thing's images --------------------------------------------------------------


def test_no_picture_shows_the_placeholder(api, thing):
    assert assert_as_before(api, thing) == {}
    assert api.get(f"/things/{thing.pk}/").json()["thumbnail"] == placeholder_thumbnail_url()


def test_images_uploaded_processed_failed_featured_reordered_deleted(api, thing, new_image):
    pending = new_image(thing, "a.jpg")  # processing: not the default yet
    assert assert_as_before(api, thing) == {}
    assert image_process(image_id=pending.pk) == "live"
    assert assert_as_before(api, thing)["id"] == pending.pk

    second = new_image(thing, "b.jpg", rank=-1)  # still processing: never the default, whatever its rank
    assert assert_as_before(api, thing)["id"] == pending.pk
    assert image_process(image_id=second.pk) == "live"
    assert assert_as_before(api, thing)["id"] == second.pk  # the first by rank

    broken = new_image(thing, "c.jpg", rank=-5)
    assert processing_time_out(kind="image_process", record_id=broken.pk, seconds=30) == "failed"
    assert assert_as_before(api, thing)["id"] == second.pk  # a failed image never is

    image_update(image=Image.objects.get(pk=pending.pk), featured=True)
    assert assert_as_before(api, thing)["id"] == pending.pk  # featured first, whatever the ranks
    image_update(image=Image.objects.get(pk=pending.pk), featured=False)
    assert assert_as_before(api, thing)["id"] == second.pk
    image_update(image=Image.objects.get(pk=second.pk), rank=10)
    assert assert_as_before(api, thing)["id"] == pending.pk
    image_reorder(thing=thing, image_ids=[second.pk, pending.pk])
    assert assert_as_before(api, thing)["id"] == second.pk

    image_delete(image=Image.objects.get(pk=second.pk))  # the default image deleted: the next one
    assert assert_as_before(api, thing)["id"] == pending.pk
    image_delete(image=Image.objects.get(pk=pending.pk))
    assert assert_as_before(api, thing) == {}
    assert Thing.objects.filter(pk=thing.pk, default_image=None).exists()


def test_ties_of_rank_go_to_the_oldest(api, thing):
    first, second = ImageFactory(thing=thing, rank=3), ImageFactory(thing=thing, rank=3)
    assert assert_as_before(api, thing)["id"] == first.pk
    image_update(image=second, featured=True)
    image_update(image=second, featured=False)
    assert assert_as_before(api, thing)["id"] == first.pk


def test_an_image_without_sizes_shows_its_original(api, thing):
    ImageFactory(thing=thing, sizes=[])
    assert assert_as_before(api, thing)["sizes"] == []


# --- files, their renders and render images ----------------------------------------------------------


def test_files_rendered_processed_failed_and_deleted(api, thing, new_file, new_image):
    notes = new_file(thing, "notes.txt")
    assert file_process(file_id=notes.pk) == "live"  # live, no render
    assert assert_as_before(api, thing) == {}

    part = new_file(thing, "part.stl")
    assert assert_as_before(api, thing) == {}  # processing: not shown yet
    assert file_process(file_id=part.pk) == "live"  # its render and its render image
    render = Image.objects.get(source_file=part)
    assert assert_as_before(api, thing)["id"] == render.pk  # the only image: the render

    broken = new_file(thing, "broken.stl")
    assert processing_time_out(kind="file_process", record_id=broken.pk, seconds=30) == "failed"
    assert assert_as_before(api, thing)["id"] == render.pk

    photo = new_image(thing, rank=50)
    image_process(image_id=photo.pk)
    assert assert_as_before(api, thing)["id"] == photo.pk  # uploaded images before renders, any rank
    image_update(image=render, featured=True)
    assert assert_as_before(api, thing)["id"] == render.pk  # a featured render is the default

    image_delete(image=Image.objects.get(pk=photo.pk))
    image_delete(image=render)  # the render image only: the file keeps its render (the thumbnail)
    body = assert_as_before(api, thing)
    assert body == {} and api.get(f"/things/{thing.pk}/").json()["thumbnail"] != placeholder_thumbnail_url()

    file_delete(file=ThingFile.objects.get(pk=part.pk))
    assert assert_as_before(api, thing) == {}
    assert api.get(f"/things/{thing.pk}/").json()["thumbnail"] == placeholder_thumbnail_url()


def test_the_first_rendered_file_is_the_thumbnail_and_deleting_it_falls_back(api, thing):
    ThingFileFactory(thing=thing)  # live, no render
    first = ThingFileFactory(thing=thing, thumbnail_key="renders/first.png")
    ThingFileFactory(thing=thing, thumbnail_key="renders/second.png")
    assert shown(api, thing.pk)["pointers"] == (None, "renders/first.png")
    assert assert_as_before(api, thing) == {}
    file_delete(file=first)
    assert shown(api, thing.pk)["pointers"] == (None, "renders/second.png")
    assert assert_as_before(api, thing) == {}


def test_a_file_deleted_takes_its_render_image_from_the_default(api, thing, new_file):
    first, second = new_file(thing, "a.stl"), new_file(thing, "b.stl")
    file_process(file_id=first.pk)
    file_process(file_id=second.pk)
    first_render = Image.objects.get(source_file=first)
    assert assert_as_before(api, thing)["id"] == first_render.pk
    file_delete(file=ThingFile.objects.get(pk=first.pk))
    assert assert_as_before(api, thing)["id"] == Image.objects.get(source_file=second).pk


def test_a_thing_loaded_without_its_pictures_shows_the_placeholder_without_a_query(
    thing, django_assert_num_queries
):
    ImageFactory(thing=thing)
    ThingFileFactory(thing=thing, thumbnail_key="r.png")
    plain = Thing.objects.get(pk=thing.pk)  # not through the selectors: no join
    with django_assert_num_queries(0):
        assert thing_links.thing_thumbnail_url(plain) == placeholder_thumbnail_url()
        assert thing_links.thing_default_image(plain) is None


# --- what does not touch the Thing's pictures --------------------------------------------------------


def test_a_makes_images_never_move_its_things_pointers(api, thing):
    image = ImageFactory(thing=thing)
    make = MakeFactory(thing=thing)
    copy_image = make_image(make, rank=-1)
    make_image_update(make=make, image=copy_image, featured=True)
    assert assert_as_before(api, thing)["id"] == image.pk
    make_image_delete(image=copy_image)
    assert assert_as_before(api, thing)["id"] == image.pk


def test_a_make_shows_its_things_pictures_as_the_thing_does(api, thing):
    ImageFactory(thing=thing)
    make = MakeFactory(thing=thing)
    row = make_queryset(viewer=None).get(pk=make.pk)
    made = MakeSerializer(row, context={}).data["thing"]
    assert made["thumbnail"] == api.get(f"/things/{thing.pk}/").json()["thumbnail"]


def test_deleting_a_thing_with_pictures(thing):
    ImageFactory(thing=thing)
    ThingFileFactory(thing=thing, thumbnail_key="r.png")
    thing_services.thing_delete(thing=thing)
    assert not Thing.objects.filter(pk=thing.pk).exists()
    assert not Image.objects.filter(thing_id=thing.pk).exists()


# --- filling and repairing the pointers ------------------------------------------------------------


def _mixed_things() -> list[Thing]:
    """Things with every kind of picture: none, pending, failed, featured, ranked, renders, legacy renders."""
    bare = ThingFactory()
    pending = ThingFactory()
    ImageFactory(thing=pending, status=ProcessingStatus.PROCESSING)
    failed = ThingFactory()
    ImageFactory(thing=failed, status=ProcessingStatus.FAILED)
    ThingFileFactory(thing=failed, thumbnail_key="f.png", status=ProcessingStatus.FAILED)
    ranked = ThingFactory()
    for rank in (3, 1, 2):
        ImageFactory(thing=ranked, rank=rank)
    featured = ThingFactory()
    ImageFactory(thing=featured, rank=0)
    ImageFactory(thing=featured, rank=9, featured=True)
    rendered = ThingFactory()
    file = ThingFileFactory(thing=rendered, thumbnail_key="r.png")
    ImageFactory(thing=rendered, source_file=file, rank=-3)
    ImageFactory(thing=rendered, rank=4)
    legacy = ThingFactory()
    ThingFileFactory(thing=legacy)
    ThingFileFactory(thing=legacy, thumbnail_key="legacy-1.png")
    ThingFileFactory(thing=legacy, thumbnail_key="legacy-2.png")
    return [bare, pending, failed, ranked, featured, rendered, legacy]


def _pointers(things) -> tuple[dict, dict]:
    rows = Thing.objects.filter(pk__in=[t.pk for t in things]).values_list(
        "pk", "default_image_id", "file_thumbnail_key"
    )
    return {pk: image for pk, image, _ in rows}, {pk: file for pk, _, file in rows}


def _expected(things) -> tuple[dict, dict]:
    rows = Thing.objects.filter(pk__in=[t.pk for t in things]).annotate(
        image=file_selectors.thing_default_image_id(), file=file_selectors.thing_first_file_thumbnail_key()
    )
    return {t.pk: t.image for t in rows}, {t.pk: t.file or "" for t in rows}


@pytest.mark.parametrize("vendor", ["postgresql", "other"])
def test_the_migration_fills_exactly_what_the_subqueries_computed(api, vendor, monkeypatch):
    things = _mixed_things()
    expected = _expected(things)
    assert _pointers(things) == expected  # the factories kept them, as the services do
    Thing.objects.update(default_image=None, file_thumbnail_key="")
    migration = importlib.import_module("apps.things.migrations.0008_picture_pointers_fill")
    monkeypatch.setattr(migration, "BATCH", 2)  # several batches, some of them without a Thing
    fill = migration.fill
    on = SimpleNamespace(vendor=vendor, ops=connection.ops, cursor=connection.cursor, alias=connection.alias)
    editor = SimpleNamespace(connection=on)
    fill(django_apps, editor)
    assert _pointers(things) == expected
    assert any(expected[0].values()) and any(expected[1].values())
    for thing in things:
        assert shown(api, thing.pk) == reference(thing.pk)
    fill(django_apps, editor)  # a second run changes nothing
    assert _pointers(things) == expected


def test_repair_re_points_only_the_things_that_disagree_with_their_rows(api):
    things = _mixed_things()
    expected = _expected(things)
    ranked, legacy = things[3], things[6]
    Thing.objects.filter(pk=ranked.pk).update(default_image=None)
    Thing.objects.filter(pk=legacy.pk).update(file_thumbnail_key="")
    assert sorted(thing_pictures_repair(batch=2)) == sorted([ranked.pk, legacy.pk])
    assert _pointers(things) == expected
    assert thing_pictures_repair() == []


def test_an_image_deleted_outside_the_services_leaves_no_dangling_pointer(api):
    things = _mixed_things()
    featured = things[4]
    default_image_id = Thing.objects.get(pk=featured.pk).default_image_id
    assert default_image_id is not None
    Image.objects.filter(pk=default_image_id).delete()
    assert Thing.objects.get(pk=featured.pk).default_image_id is None  # ON DELETE SET NULL
    assert thing_pictures_repair() == [featured.pk]
    assert shown(api, featured.pk) == reference(featured.pk)


def test_the_repair_command(capsys):
    things = _mixed_things()
    expected = _expected(things)
    Thing.objects.update(default_image=None, file_thumbnail_key="")
    call_command("thing_pictures_repair", "--batch-size", "3")
    assert capsys.readouterr().out.strip() == "Re-pointed 4 Things."  # ranked, featured, rendered, legacy
    assert _pointers(things) == expected
