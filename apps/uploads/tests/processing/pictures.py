"""Test images, generated in memory (never shipped as binaries)."""
import io
import struct
import zlib

from PIL import Image


def picture(fmt: str = "JPEG", size=(1600, 1000), mode: str = "RGB", **save) -> bytes:
    image = Image.new(mode, size)
    # A gradient, so resampling and crops have something to chew on.
    gradient = Image.linear_gradient("L").resize(size)
    if mode in ("RGB", "RGBA"):
        mirrored = gradient.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
        image.paste(Image.merge("RGB", (gradient, mirrored, gradient)))
    out = io.BytesIO()
    image.save(out, fmt, **save)
    return out.getvalue()


def jpeg_rotated(size=(800, 600)) -> bytes:
    """A landscape JPEG whose EXIF says: display rotated 90° (orientation 6), i.e. portrait."""
    exif = Image.Exif()
    exif[0x0112] = 6
    return picture("JPEG", size, exif=exif.tobytes())


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png_declaring(width: int, height: int) -> bytes:
    """A tiny PNG file whose header declares width × height 1-bit pixels (a decompression bomb)."""
    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", zlib.compress(b"\0" * 64))
            + _chunk(b"IEND", b""))
