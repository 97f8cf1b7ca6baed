"""file_process and image_process end to end: real objects in the (moto) store, real Postgres rows."""
import io
import json

import pytest
from django.db import InterfaceError, OperationalError
from PIL import Image as PILImage

from apps.uploads.models import Image, ProcessingStatus, ThingFile
from apps.uploads.processing import services, tasks
from apps.uploads.processing.images import SIZES
from apps.uploads.store import StoreError
from apps.uploads.tests.processing.meshes import (
    ascii_stl, binary_stl, cube_obj, cube_triangles, mesh_object, model_xml, threemf_zip)
from apps.uploads.tests.processing.pictures import picture, png_declaring

pytestmark = pytest.mark.django_db


# --- Thing files ----------------------------------------------------------------------------------


def test_a_binary_stl_goes_live_with_geometry_thumbnail_and_threejs(thing_file, object_bytes):
    file = thing_file(binary_stl(cube_triangles(10.0)), "cube.stl")

    assert services.file_process(file_id=file.pk) == "live"

    file.refresh_from_db()
    assert file.status == ProcessingStatus.LIVE
    assert file.processing_error == ""
    assert file.geometry == {
        "format": "stl-binary",
        "triangles": 12,
        "bbox_mm": {"x": [0.0, 10.0], "y": [0.0, 10.0], "z": [0.0, 10.0]},
        "size_mm": {"x": 10.0, "y": 10.0, "z": 10.0},
        "volume_mm3": 1000.0,
        "area_mm2": 600.0,
        "closed": True,
        "units": "mm",
    }
    assert (file.thumbnail_key, file.threejs_key) == (f"{file.key}.thumb.png", f"{file.key}.three.json")
    with PILImage.open(io.BytesIO(object_bytes(file.thumbnail_key))) as thumb:
        assert (thumb.format, thumb.size) == ("PNG", (400, 300))
    geometry = json.loads(object_bytes(file.threejs_key))
    assert geometry["metadata"] == {"version": 4.5, "type": "BufferGeometry", "generator": "Thingyard"}
    position = geometry["data"]["attributes"]["position"]
    normal = geometry["data"]["attributes"]["normal"]
    assert (position["itemSize"], position["type"], len(position["array"])) == (3, "Float32Array", 3 * 3 * 12)
    assert position["array"][:9] == [0.0, 0.0, 0.0, 0.0, 0.0, 10.0, 0.0, 10.0, 10.0]
    assert len(normal["array"]) == 3 * 3 * 12
    assert normal["array"][:3] == [-1.0, 0.0, 0.0]


def test_an_ascii_stl_with_an_upper_case_extension_is_processed(thing_file):
    file = thing_file(ascii_stl(cube_triangles(10.0)), "CUBE.STL")

    services.file_process(file_id=file.pk)

    file.refresh_from_db()
    assert file.status == ProcessingStatus.LIVE
    assert (file.geometry["format"], file.geometry["closed"]) == ("stl-ascii", True)


def test_an_open_mesh_goes_live_flagged_not_closed(thing_file):
    file = thing_file(binary_stl(cube_triangles(10.0, drop=2)))

    services.file_process(file_id=file.pk)

    file.refresh_from_db()
    assert (file.status, file.geometry["closed"], file.geometry["triangles"]) == ("live", False, 10)


def test_a_truncated_stl_fails_with_a_clear_error_and_keeps_the_original(thing_file, object_exists):
    file = thing_file(binary_stl(cube_triangles())[:-10])

    assert services.file_process(file_id=file.pk) == "failed"

    file.refresh_from_db()
    assert file.status == ProcessingStatus.FAILED
    assert file.processing_error == (
        "Not a valid STL file: the header declares 12 triangles (684 bytes) but the file has 674 bytes."
    )
    assert (file.geometry, file.thumbnail_key, file.threejs_key) == (None, "", "")
    assert object_exists(file.key)
    assert not object_exists(f"{file.key}.thumb.png")


def test_an_stl_with_nan_coordinates_fails(thing_file):
    tris = cube_triangles()
    tris[0, 0, 0] = float("nan")
    file = thing_file(binary_stl(tris))

    services.file_process(file_id=file.pk)

    file.refresh_from_db()
    assert file.status == ProcessingStatus.FAILED
    assert "not a number" in file.processing_error


def test_an_stl_over_the_configured_triangle_limit_fails(thing_file, settings):
    settings.UPLOADS_STL_MAX_TRIANGLES = 11
    file = thing_file(binary_stl(cube_triangles()))

    services.file_process(file_id=file.pk)

    file.refresh_from_db()
    assert file.status == ProcessingStatus.FAILED
    assert file.processing_error == "The STL file has 12 triangles; the limit is 11."


def test_a_file_that_is_not_an_stl_goes_live_with_no_geometry(thing_file):
    file = thing_file(b"PK\x03\x04 not really a zip", "instructions.zip")

    assert services.file_process(file_id=file.pk) == "live"

    file.refresh_from_db()
    assert (file.status, file.geometry, file.thumbnail_key, file.threejs_key) == ("live", None, "", "")


def test_a_file_missing_from_the_store_fails(thing, s3):

    file = ThingFile.objects.create(thing=thing, name="gone.stl", key="tests/never-put.stl", size=1)

    services.file_process(file_id=file.pk)

    file.refresh_from_db()
    assert (file.status, file.processing_error) == ("failed", "The uploaded file is missing from storage.")


def test_processing_a_live_file_again_is_a_no_op(thing_file, django_assert_num_queries):
    file = thing_file(binary_stl(cube_triangles()))
    services.file_process(file_id=file.pk)

    # 1. SELECT the file: it is live, nothing else happens (no download, no update).
    with django_assert_num_queries(1):
        assert services.file_process(file_id=file.pk) == "skipped"


def test_processing_a_failed_file_again_is_a_no_op(thing_file):
    file = thing_file(b"solid garbage\nnot a facet\n")
    services.file_process(file_id=file.pk)
    file.refresh_from_db()
    error = file.processing_error

    assert services.file_process(file_id=file.pk) == "skipped"
    file.refresh_from_db()
    assert (file.status, file.processing_error) == ("failed", error)


def test_processing_a_deleted_file_is_a_no_op(db):
    assert services.file_process(file_id=987654321) == "skipped"


def test_the_file_task_runs_the_service(thing_file):
    file = thing_file(binary_stl(cube_triangles()))

    tasks.file_process.delay(file.pk)

    file.refresh_from_db()
    assert file.status == ProcessingStatus.LIVE


# --- Renders are images (docs/decisions.md: Thing images) ---------------------------------------------------


def test_a_processed_stl_gets_its_render_as_a_live_image_of_its_thing(thing_file, object_bytes):
    file = thing_file(binary_stl(cube_triangles(10.0)), "cube.stl")

    services.file_process(file_id=file.pk)

    render = Image.objects.get(source_file=file)
    assert (render.thing_id, render.copy_id, render.name, render.status) == (file.thing_id, None, "cube.png", "live")
    assert render.key == f"{file.key}.render.png"
    with PILImage.open(io.BytesIO(object_bytes(render.key))) as original:
        assert (original.format, original.size, render.size) == ("PNG", (800, 600), len(object_bytes(render.key)))
    assert [(e["type"], e["size"]) for e in render.sizes] == [(t, s) for t, s, *_ in SIZES]
    for entry in render.sizes:
        assert entry["key"] == f"{render.key}.{entry['type']}_{entry['size']}.jpg"
        with PILImage.open(io.BytesIO(object_bytes(entry["key"]))) as rendered:
            assert (rendered.format, rendered.size) == ("JPEG", (entry["width"], entry["height"]))


def test_a_file_that_is_not_a_mesh_or_fails_gets_no_render_image(thing_file):
    other = thing_file(b"PK\x03\x04 not really a zip", "instructions.zip")
    broken = thing_file(binary_stl(cube_triangles())[:-10])

    services.file_process(file_id=other.pk)
    services.file_process(file_id=broken.pk)

    assert not Image.objects.filter(source_file__in=[other, broken]).exists()


def test_processing_a_file_again_replaces_its_render_image_in_place(thing_file, object_bytes):
    file = thing_file(binary_stl(cube_triangles(10.0)))
    services.file_process(file_id=file.pk)
    first = Image.objects.get(source_file=file)
    # The stuck-processing sweep (or an operator) sends a file back to processing.
    ThingFile.objects.filter(pk=file.pk).update(status=ProcessingStatus.PROCESSING)

    assert services.file_process(file_id=file.pk) == "live"

    again = Image.objects.get(source_file=file)
    assert (again.pk, again.key, again.sizes) == (first.pk, first.key, first.sizes)
    assert Image.objects.filter(thing_id=file.thing_id).count() == 1


def test_a_render_lists_after_the_uploaded_images_whatever_their_rank(thing, thing_file, image):
    file = thing_file(binary_stl(cube_triangles(10.0)))
    services.file_process(file_id=file.pk)
    photos = [image(picture("JPEG", (64, 48)), f"p{n}.jpg") for n in range(2)]
    Image.objects.filter(pk=photos[0].pk).update(rank=7)
    Image.objects.filter(source_file=file).update(rank=-5)

    ordered = list(Image.objects.filter(thing=thing).values_list("name", flat=True))

    assert ordered == ["p1.jpg", "p0.jpg", "part.png"]


# --- Images -----------------------------------------------------------------------------------------


def test_a_jpeg_goes_live_with_every_size_uploaded(image, object_bytes):
    img = image(picture("JPEG", (1600, 1200)))

    assert services.image_process(image_id=img.pk) == "live"

    img.refresh_from_db()
    assert (img.status, img.width, img.height, img.processing_error) == ("live", 1600, 1200, "")
    assert [(s["type"], s["size"]) for s in img.sizes] == [(t, s) for t, s, *_ in SIZES]
    display_large = img.sizes[0]
    assert display_large == {"type": "display", "size": "large", "key": f"{img.key}.display_large.jpg",
                             "width": 1200, "height": 900}
    for entry in img.sizes:
        assert entry["key"] == f"{img.key}.{entry['type']}_{entry['size']}.jpg"
        with PILImage.open(io.BytesIO(object_bytes(entry["key"]))) as rendered:
            assert (rendered.format, rendered.size) == ("JPEG", (entry["width"], entry["height"]))


@pytest.mark.parametrize("fmt, mode", [("PNG", "RGBA"), ("GIF", "P"), ("WEBP", "RGB")])
def test_png_gif_and_webp_images_go_live(image, fmt, mode):
    img = image(picture(fmt, (500, 400), mode), f"picture.{fmt.lower()}")

    services.image_process(image_id=img.pk)

    img.refresh_from_db()
    assert (img.status, img.width, img.height, len(img.sizes)) == ("live", 500, 400, len(SIZES))


@pytest.mark.parametrize("fmt", ["BMP", "TIFF"])
def test_bmp_and_tiff_images_fail(image, fmt):
    img = image(picture(fmt, (100, 100)), "picture.jpg")

    assert services.image_process(image_id=img.pk) == "failed"

    img.refresh_from_db()
    assert img.status == ProcessingStatus.FAILED
    assert "accepted format (JPEG, PNG, GIF or WEBP)" in img.processing_error
    assert (img.sizes, img.width, img.height) == ([], None, None)


def test_a_corrupt_image_fails_and_keeps_the_original(image, object_exists):
    data = picture("JPEG", (800, 600))
    img = image(data[: len(data) // 3])

    services.image_process(image_id=img.pk)

    img.refresh_from_db()
    assert img.status == ProcessingStatus.FAILED
    assert img.processing_error.startswith("The image could not be decoded")
    assert object_exists(img.key)
    assert not object_exists(f"{img.key}.display_large.jpg")


def test_a_decompression_bomb_fails_cleanly(image):
    img = image(png_declaring(30000, 30000), "bomb.png")

    services.image_process(image_id=img.pk)

    img.refresh_from_db()
    assert img.status == ProcessingStatus.FAILED
    assert "too many pixels" in img.processing_error


def test_an_image_over_the_configured_pixel_limit_fails(image, settings):
    settings.UPLOADS_IMAGE_MAX_PIXELS = 10_000
    img = image(picture("PNG", (200, 100)))

    services.image_process(image_id=img.pk)

    img.refresh_from_db()
    assert (img.status, img.processing_error) == (
        "failed", "The image is 200×100 (20,000 pixels); the limit is 10,000 pixels.")


def test_processing_a_live_image_again_is_a_no_op(image, django_assert_num_queries):
    img = image(picture("JPEG", (400, 300)))
    services.image_process(image_id=img.pk)

    # 1. SELECT the image: it is live, nothing else happens.
    with django_assert_num_queries(1):
        assert services.image_process(image_id=img.pk) == "skipped"


def test_the_image_task_runs_the_service(image):
    img = image(picture("JPEG", (400, 300)))

    tasks.image_process.delay(img.pk)

    img.refresh_from_db()
    assert img.status == ProcessingStatus.LIVE


@pytest.mark.parametrize("task", [tasks.file_process, tasks.image_process])
def test_the_tasks_retry_store_and_database_outages_with_capped_jittered_backoff_a_bounded_number_of_times(task):
    assert task.autoretry_for == (StoreError, OperationalError, InterfaceError)
    assert (task.retry_backoff, task.retry_backoff_max, task.retry_jitter, task.max_retries) == (2, 60, True, 12)


@pytest.mark.parametrize("task", [tasks.file_process, tasks.image_process])
def test_the_tasks_have_a_time_limit_and_run_on_the_processing_queue(task, settings):
    from config.celery import app

    assert (task.soft_time_limit, task.time_limit) == (
        settings.PROCESSING_TIME_LIMIT_SECONDS, settings.PROCESSING_HARD_TIME_LIMIT_SECONDS
    )
    assert 0 < task.soft_time_limit < task.time_limit < settings.CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"]
    assert app.amqp.router.route({}, task.name)["queue"].name == "processing"


def test_a_store_call_interrupted_by_the_time_limit_fails_the_file_instead_of_retrying(
    thing_file, settings, monkeypatch
):
    """The soft time limit can strike inside a store request, which botocore reports as the request's own
    error (a StoreError here): past the limit that is the limit, not an outage to retry."""
    from celery.exceptions import Retry

    file = thing_file(binary_stl(cube_triangles()))
    settings.S3_ENDPOINT_URL = "http://127.0.0.1:1"  # the store fails every call (nothing listens there)
    # Within the limit: an outage, retried.
    with pytest.raises(Retry):
        tasks.file_process.apply((file.pk,))
    file.refresh_from_db()
    assert file.status == ProcessingStatus.PROCESSING
    # Past it (a limit of a microsecond has passed by the time the call fails): failed, not retried.
    monkeypatch.setattr(tasks.file_process, "soft_time_limit", 1e-6)
    assert tasks.file_process.apply((file.pk,)).get() == "failed"
    file.refresh_from_db()
    assert (file.status, file.processing_error) == (
        ProcessingStatus.FAILED, "The model is too complex to process within the time limit (1e-06 s)."
    )


@pytest.mark.django_db(transaction=True)  # autocommit, as in the worker: no test transaction around the run
def test_a_database_statement_interrupted_by_the_time_limit_still_fails_the_file(thing_file, monkeypatch):
    """The soft time limit is an exception raised from a signal handler wherever the run is: inside a
    statement, psycopg stops waiting and the answer stays unread. Failing the row must still work
    (apps.core.db.postgresql drops that connection), rather than raise "another command is already in
    progress", which the task would retry with the same mesh."""
    from celery.exceptions import SoftTimeLimitExceeded
    from django.db import connection

    from tests.support.signals import raised_after

    file = thing_file(binary_stl(cube_triangles()))

    def interrupted_mid_statement(file_id, deadline=None):
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_sleep(5)")
        raise AssertionError("the statement ran to its end")

    monkeypatch.setattr(services, "file_process", interrupted_mid_statement)
    with raised_after(0.3, SoftTimeLimitExceeded):
        assert tasks.file_process.apply((file.pk,)).get() == "failed"
    file.refresh_from_db()
    assert (file.status, file.processing_error) == (
        ProcessingStatus.FAILED,
        f"The model is too complex to process within the time limit ({tasks.file_process.soft_time_limit:g} s).",
    )


def test_a_run_whose_time_limit_a_library_swallowed_still_fails_the_file(thing_file, monkeypatch):
    """botocore sends a request that the soft time limit interrupted again (it wraps whatever the request
    raised as a retryable HTTPClientError), and the limit's exception is gone. Seen in CI: the mesh then
    went live 2 s past its 1 s limit. The service checks the deadline before the row goes live, so the
    run fails as too complex wherever the signal landed."""
    import time

    from celery.exceptions import SoftTimeLimitExceeded

    from apps.uploads import store
    from tests.support.signals import raised_after

    file = thing_file(binary_stl(cube_triangles()))
    real_open_stream = store.open_stream

    def retried_like_botocore(key):
        try:
            time.sleep(1)  # the request under way when the limit strikes
        except Exception:  # noqa: BLE001 (what botocore does: the request is sent again)
            pass
        return real_open_stream(key)

    monkeypatch.setattr(store, "open_stream", retried_like_botocore)
    monkeypatch.setattr(tasks.file_process, "soft_time_limit", 0.3)
    with raised_after(0.3, SoftTimeLimitExceeded):
        assert tasks.file_process.apply((file.pk,)).get() == "failed"
    file.refresh_from_db()
    assert (file.status, file.processing_error) == (
        ProcessingStatus.FAILED, "The model is too complex to process within the time limit (0.3 s)."
    )


# --- 3MF and OBJ (issue 27) ------------------------------------------------------------------------------


def test_a_3mf_goes_live_with_geometry_objects_settings_preview_and_render(thing_file, object_bytes):
    project = {"printer_model": "Bambu Lab A1", "filament_type": ["PETG"], "layer_height": "0.2"}
    data = threemf_zip(model_xml(mesh_object(1, 10.0, name="Cube"), '<item objectid="1"/>'),
                       files={"Metadata/project_settings.config": json.dumps(project)})
    file = thing_file(data, "Cube.3MF")

    assert services.file_process(file_id=file.pk) == "live"

    file.refresh_from_db()
    assert file.processing_error == ""
    assert (file.geometry["format"], file.geometry["triangles"], file.geometry["closed"]) == ("3mf", 12, True)
    assert file.geometry["volume_mm3"] == 1000.0
    assert file.geometry["objects"] == [{"id": "1", "name": "Cube", "triangles": 12,
                                         "bbox_mm": {"x": [0.0, 10.0], "y": [0.0, 10.0], "z": [0.0, 10.0]}}]
    assert file.geometry["settings"] == {"printer": "Bambu Lab A1", "material": "PETG", "layer_height_mm": 0.2}
    position = json.loads(object_bytes(file.threejs_key))["data"]["attributes"]["position"]["array"]
    assert len(position) == 3 * 3 * 12
    with PILImage.open(io.BytesIO(object_bytes(file.thumbnail_key))) as thumb:
        assert thumb.size == (400, 300)
    assert Image.objects.filter(source_file=file, status=ProcessingStatus.LIVE).count() == 1


def test_an_obj_goes_live_with_geometry_preview_and_render(thing_file, object_bytes):
    file = thing_file(cube_obj(10.0, quads=True), "cube.obj")

    assert services.file_process(file_id=file.pk) == "live"

    file.refresh_from_db()
    assert (file.geometry["format"], file.geometry["triangles"], file.geometry["closed"]) == ("obj", 12, True)
    assert file.geometry["objects"] == [{"name": "cube", "triangles": 12}]
    assert len(json.loads(object_bytes(file.threejs_key))["data"]["attributes"]["normal"]["array"]) == 108
    assert Image.objects.filter(source_file=file).count() == 1


def test_a_3mf_zip_bomb_fails_with_a_clear_error(thing_file):
    bomb = threemf_zip(model_xml("", "") + " " * (40 << 20))
    file = thing_file(bomb, "bomb.3mf")

    assert services.file_process(file_id=file.pk) == "failed"

    file.refresh_from_db()
    assert "a zip bomb" in file.processing_error
    assert (file.geometry, file.threejs_key) == (None, "")
