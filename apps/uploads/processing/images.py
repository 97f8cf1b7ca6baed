"""Image sizes (docs/decisions.md, Image `sizes`): validate an uploaded image and render its variants.

| type    | large      | medium    | small     | tiny    | how                                   |
|---------|------------|-----------|-----------|---------|---------------------------------------|
| thumb   | 240×180    | 120×90    | 75×56     | 40×30   | centre crop to exactly that size      |
| preview | 600×450    | 320×240   | 228×171   | —       | centre crop to exactly that size      |
| display | 1200×900   | 800×600   | 400×300   | —       | fit inside the box, never enlarged    |

Crops (thumb, preview) fill grids and cards, so they always have their exact size (a small original is
enlarged); display keeps the aspect ratio and the original's resolution when it is smaller.
Every variant is a baseline JPEG (transparency composited on white), stored at
`<original key>.<type>_<size>.jpg`.

Defences: only JPEG, PNG, GIF and WEBP are opened (by content, Pillow's plugin allow-list, never by
name); an image over MAX_PIXELS (width × height from the header) fails before any pixel is decoded,
and Pillow's own decompression-bomb check is an error too; truncated data is an error (Pillow's
LOAD_TRUNCATED_IMAGES stays off). JPEGs decode at a reduced scale (`draft`): a 20-megapixel photo is
decoded at 1/4 size, about 4 MB instead of 60. GIF and WEBP animations render their first frame.
"""
import warnings
from dataclasses import dataclass
from pathlib import Path

from celery.exceptions import SoftTimeLimitExceeded
from PIL import Image, ImageOps

ALLOWED_FORMATS = ("JPEG", "PNG", "GIF", "WEBP")
DEFAULT_MAX_PIXELS = 50_000_000
JPEG_QUALITY = 85

# (type, size, width, height, crop)
SIZES = (
    ("display", "large", 1200, 900, False),
    ("display", "medium", 800, 600, False),
    ("display", "small", 400, 300, False),
    ("preview", "large", 600, 450, True),
    ("preview", "medium", 320, 240, True),
    ("preview", "small", 228, 171, True),
    ("thumb", "large", 240, 180, True),
    ("thumb", "medium", 120, 90, True),
    ("thumb", "small", 75, 56, True),
    ("thumb", "tiny", 40, 30, True),
)
# EXIF orientations that swap width and height.
_TRANSPOSED = {5, 6, 7, 8}


class ImageProcessingError(ValueError):
    """The upload is not an image this service accepts; the message is shown as the processing error."""


@dataclass
class Rendition:
    type: str
    size: str
    path: Path
    width: int
    height: int


def size_key(original_key: str, type_: str, size: str) -> str:
    return f"{original_key}.{type_}_{size}.jpg"


def _flatten(image: Image.Image) -> Image.Image:
    """RGB, with any transparency composited on white."""
    if image.mode == "RGB":
        return image
    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        background = Image.new("RGB", rgba.size, (255, 255, 255))
        background.paste(rgba, mask=rgba.getchannel("A"))
        return background
    return image.convert("RGB")


def _open(path: Path, max_pixels: int) -> tuple[Image.Image, int, int]:
    """The decoded, upright RGB image (possibly reduced, for JPEG) and the original upright size."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(path, formats=ALLOWED_FORMATS)
    except Image.DecompressionBombError as exc:
        raise ImageProcessingError(f"The image has too many pixels: {exc}") from None
    except Image.DecompressionBombWarning as exc:
        raise ImageProcessingError(f"The image has too many pixels: {exc}") from None
    except Image.UnidentifiedImageError:
        raise ImageProcessingError(
            "Not an image in an accepted format (JPEG, PNG, GIF or WEBP), or the file is damaged."
        ) from None
    try:
        width, height = image.size
        if width < 1 or height < 1:
            raise ImageProcessingError("The image is empty (0 pixels).")
        if width * height > max_pixels:
            raise ImageProcessingError(
                f"The image is {width}×{height} ({width * height:,} pixels); "
                f"the limit is {max_pixels:,} pixels."
            )
        orientation = image.getexif().get(0x0112, 1)
        upright = (height, width) if orientation in _TRANSPOSED else (width, height)
        if image.format == "JPEG":
            # The largest variant is 1200×900; decode at the smallest scale that still covers it.
            largest = (SIZES[0][2], SIZES[0][3])
            image.draft("RGB", largest[::-1] if orientation in _TRANSPOSED else largest)
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image.load()
            decoded = _flatten(ImageOps.exif_transpose(image))
    except ImageProcessingError:
        image.close()
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        image.close()
        raise ImageProcessingError(f"The image has too many pixels: {exc}") from None
    except SoftTimeLimitExceeded:  # the task's time limit, not the image's fault: the task reports it
        image.close()
        raise
    except Exception as exc:  # noqa: BLE001 - Pillow raises OSError, SyntaxError, ValueError, EOFError…
        image.close()
        raise ImageProcessingError(f"The image could not be decoded ({type(exc).__name__}: {exc}).") from None
    if decoded is not image:
        image.close()
    return decoded, upright[0], upright[1]


def _reduced_to_cover(image: Image.Image, width: int, height: int) -> Image.Image:
    """The image shrunk by a whole factor (fast box filter) while it still covers width × height."""
    factor = min(image.width // width, image.height // height)
    return image.reduce(factor) if factor >= 2 else image


def image_render(path: Path, *, workdir: Path, max_pixels: int = DEFAULT_MAX_PIXELS):
    """Validate the image at `path` and write every size under `workdir`.

    Returns (width, height, [Rendition]) where width × height is the original's upright size.
    Raises ImageProcessingError for anything that is not an acceptable image.
    """
    source, width, height = _open(Path(path), max_pixels)
    renditions = []
    crop_source = None
    try:
        for type_, size, box_w, box_h, crop in SIZES:
            if crop:
                if crop_source is None:
                    crop_source = _reduced_to_cover(source, max(s[2] for s in SIZES if s[4]),
                                                    max(s[3] for s in SIZES if s[4]))
                variant = ImageOps.fit(crop_source, (box_w, box_h), Image.Resampling.LANCZOS)
            else:
                variant = source.copy()
                variant.thumbnail((box_w, box_h), Image.Resampling.LANCZOS)  # never enlarges
            out = Path(workdir) / f"{type_}_{size}.jpg"
            variant.save(out, "JPEG", quality=JPEG_QUALITY, optimize=True)
            renditions.append(Rendition(type_, size, out, variant.width, variant.height))
            variant.close()
    finally:
        if crop_source is not None and crop_source is not source:
            crop_source.close()
        source.close()
    return width, height, renditions
