"""Image validation and sizes (no store, no database): processing/images.py on generated files."""
import pytest
from PIL import Image

from apps.uploads.processing.images import SIZES, ImageProcessingError, image_render
from apps.uploads.tests.processing.pictures import jpeg_rotated, picture, png_declaring


@pytest.fixture
def render(tmp_path):
    def run(data: bytes, **kwargs):
        path = tmp_path / "original"
        path.write_bytes(data)
        out = tmp_path / "out"
        out.mkdir(exist_ok=True)
        return image_render(path, workdir=out, **kwargs)

    return run


def _by_name(renditions):
    return {(r.type, r.size): r for r in renditions}


def test_a_jpeg_renders_every_size_with_its_dimensions(render):
    width, height, renditions = render(picture("JPEG", (1600, 1000)))

    assert (width, height) == (1600, 1000)
    sizes = _by_name(renditions)
    assert set(sizes) == {(t, s) for t, s, *_ in SIZES}
    assert (sizes["display", "large"].width, sizes["display", "large"].height) == (1200, 750)
    assert (sizes["display", "small"].width, sizes["display", "small"].height) == (400, 250)
    assert (sizes["thumb", "large"].width, sizes["thumb", "large"].height) == (240, 180)
    assert (sizes["preview", "medium"].width, sizes["preview", "medium"].height) == (320, 240)
    for r in renditions:
        with Image.open(r.path) as im:
            assert (im.format, im.size) == ("JPEG", (r.width, r.height))


def test_a_large_jpeg_is_decoded_at_reduced_scale_but_reports_its_full_size(render):
    width, height, renditions = render(picture("JPEG", (4800, 3600)))

    assert (width, height) == (4800, 3600)
    display_large = _by_name(renditions)["display", "large"]
    assert (display_large.width, display_large.height) == (1200, 900)


def test_display_sizes_never_enlarge_a_small_image_but_crops_fill_their_box(render):
    width, height, renditions = render(picture("PNG", (300, 200)))

    sizes = _by_name(renditions)
    assert (width, height) == (300, 200)
    assert (sizes["display", "large"].width, sizes["display", "large"].height) == (300, 200)
    assert (sizes["preview", "large"].width, sizes["preview", "large"].height) == (600, 450)


def test_exif_orientation_is_applied(render):
    width, height, renditions = render(jpeg_rotated((800, 600)))

    assert (width, height) == (600, 800)
    assert _by_name(renditions)["display", "large"].height == 800


@pytest.mark.parametrize("fmt, mode", [("PNG", "RGBA"), ("GIF", "P"), ("WEBP", "RGB"), ("PNG", "L")])
def test_png_gif_and_webp_are_accepted(render, fmt, mode):
    width, height, renditions = render(picture(fmt, (640, 480), mode))

    assert (width, height) == (640, 480)
    assert len(renditions) == len(SIZES)


@pytest.mark.parametrize("fmt", ["BMP", "TIFF", "ICO"])
def test_other_formats_are_refused_by_content(render, fmt):
    with pytest.raises(ImageProcessingError, match="accepted format"):
        render(picture(fmt, (64, 64)))


def test_a_file_that_is_not_an_image_is_refused(render):
    with pytest.raises(ImageProcessingError, match="accepted format"):
        render(b"<svg xmlns='http://www.w3.org/2000/svg'/>")


def test_a_truncated_jpeg_fails_to_decode(render):
    data = picture("JPEG", (1600, 1000))

    with pytest.raises(ImageProcessingError, match="could not be decoded"):
        render(data[: len(data) // 2])


def test_a_corrupt_png_fails_to_decode(render):
    data = bytearray(picture("PNG", (200, 200)))
    data[100:140] = b"\xff" * 40

    with pytest.raises(ImageProcessingError, match="could not be decoded|accepted format"):
        render(bytes(data))


def test_a_png_declaring_900_megapixels_is_refused_before_decoding(render):
    with pytest.raises(ImageProcessingError, match="too many pixels"):
        render(png_declaring(30000, 30000))


def test_an_image_over_the_pixel_limit_is_refused_from_its_header(render):
    # 60 megapixels: under Pillow's own bomb threshold, over the service's 50.
    expected = r"12000×5000 \(60,000,000 pixels\); the limit is 50,000,000"
    with pytest.raises(ImageProcessingError, match=expected):
        render(png_declaring(12000, 5000))


def test_the_pixel_limit_is_configurable(render):
    with pytest.raises(ImageProcessingError, match="the limit is 1,000 pixels"):
        render(picture("PNG", (100, 100)), max_pixels=1000)
