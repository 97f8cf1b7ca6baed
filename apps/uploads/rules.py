"""Pure rules of the upload flow: file names, kinds, object keys, and what finalize may do."""

import mimetypes
import re
import unicodedata
import uuid
from datetime import datetime

from apps.uploads.models import ProcessingStatus, Upload

FILENAME_MAX_LENGTH = 255
IMAGE_EXTENSIONS = frozenset({"jpg", "jpeg", "png", "gif", "webp"})
# Types browsers and the stdlib do not agree on, or do not know (3D formats).
CONTENT_TYPES = {
    "stl": "model/stl",
    "obj": "model/obj",
    "3mf": "model/3mf",
    "amf": "application/x-amf",
    "scad": "text/plain",
    "gcode": "text/x.gcode",
    "step": "model/step",
    "stp": "model/step",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "png": "image/png",
    "gif": "image/gif",
    "webp": "image/webp",
    "zip": "application/zip",
    "pdf": "application/pdf",
    "txt": "text/plain",
}
DEFAULT_CONTENT_TYPE = "application/octet-stream"
KEY_PREFIX = "uploads"
# docs/security.md (issue 14, finding 4): at finalize the checked object is copied to a key of its own
# that no upload policy names, so re-posting the policy's form cannot replace what a file serves.
STORED_PREFIX = "stored"
KEY_NAME_MAX_LENGTH = 100
# Kinds a target accepts: a user's avatar and cover, and every image kind, take images only.
IMAGE_ONLY_KINDS = frozenset(
    {
        Upload.Kind.THING_IMAGE,
        Upload.Kind.COPY_IMAGE,
        Upload.Kind.COPY_NEW,
        Upload.Kind.AVATAR,
        Upload.Kind.COVER,
        Upload.Kind.GROUP_IMAGE,
    }
)

# What a Thing's files may be (issue 26: an allow-list per kind of file, by extension, before the upload
# starts; the content is sniffed again at finalize: content_executable_kind). Anything else is refused
# with the list, executables and scripts by name.
FILE_TYPES = {
    "3D models": frozenset({
        "stl", "3mf", "obj", "amf", "ply", "off", "step", "stp", "iges", "igs", "scad", "f3d", "f3z", "fcstd",
        "blend", "skp", "dxf", "dwg", "svg", "gcode", "bgcode", "gco", "x3g", "3ds", "dae", "fbx", "glb", "gltf",
        "wrl", "x3d", "sldprt", "sldasm", "ipt", "iam", "123dx", "lys", "ctb", "chitubox", "ldr", "mpd", "brep",
    }),
    "images": IMAGE_EXTENSIONS | frozenset({"bmp", "tif", "tiff", "heic", "avif"}),
    "documents": frozenset({
        "pdf", "txt", "md", "rtf", "doc", "docx", "odt", "csv", "xls", "xlsx", "ods", "ini", "cfg", "json",
        "yaml", "yml", "xml", "ino", "c", "h", "cpp", "py", "ttf", "otf",
    }),
    "archives": frozenset({"zip", "7z", "rar", "tar", "gz", "tgz", "bz2", "xz"}),
}
THING_FILE_EXTENSIONS = frozenset().union(*FILE_TYPES.values())
# Named in the refusal: programs a visitor's computer would run.
EXECUTABLE_EXTENSIONS = frozenset({
    "exe", "dll", "msi", "com", "scr", "bat", "cmd", "ps1", "vbs", "vbe", "js", "jse", "wsf", "hta", "jar",
    "sh", "bash", "zsh", "command", "app", "dmg", "pkg", "apk", "deb", "rpm", "elf", "bin", "run", "lnk",
})

# Error types of a finalize that cannot succeed (docs/decisions.md: Errors; spec §7 "Finalize fails").
UPLOAD_MISSING = "UPLOAD_MISSING"
UPLOAD_EMPTY = "UPLOAD_EMPTY"
UPLOAD_TOO_LARGE = "UPLOAD_TOO_LARGE"
UPLOAD_EXPIRED = "UPLOAD_EXPIRED"
UPLOAD_FAILED = "UPLOAD_FAILED"
MESSAGES = {
    UPLOAD_MISSING: "The upload has not arrived in the store yet",
    UPLOAD_EMPTY: "The uploaded file is empty",
    UPLOAD_TOO_LARGE: "The uploaded file is too large",
    UPLOAD_EXPIRED: "The upload expired before the file arrived",
    UPLOAD_FAILED: "The upload failed",
}


def filename_clean(raw: str) -> str:
    """The display name of a client's file name: its last path segment, printable, at most 255 chars.

    "" when nothing is left (the caller answers 400). Never used for a path: see `object_key`.
    """
    name = re.split(r"[/\\]", raw or "")[-1]
    name = re.sub(r"\s+", " ", unicodedata.normalize("NFC", name))
    # Control and format characters (NUL, newlines, bidi overrides) have no place in a name or a header.
    name = "".join(ch for ch in name if unicodedata.category(ch)[0] != "C")
    name = re.sub(r" +", " ", name).strip(" .")
    if len(name) > FILENAME_MAX_LENGTH:
        stem, dot, ext = name.rpartition(".")
        if dot and 0 < len(ext) <= 16:
            name = stem[: FILENAME_MAX_LENGTH - len(ext) - 1].rstrip() + "." + ext
        else:
            name = name[:FILENAME_MAX_LENGTH]
    return name


def filename_extension(name: str) -> str:
    stem, dot, ext = name.rpartition(".")
    return ext.lower() if dot and stem else ""


def filename_is_image(name: str) -> bool:
    return filename_extension(name) in IMAGE_EXTENSIONS


def content_type_for(name: str) -> str:
    ext = filename_extension(name)
    if ext in CONTENT_TYPES:
        return CONTENT_TYPES[ext]
    guessed, _ = mimetypes.guess_type("x." + ext) if ext else (None, None)
    return guessed or DEFAULT_CONTENT_TYPE


def thing_upload_kind(name: str) -> str:
    """POST /things/{id}/files: an image extension makes a Thing image, anything else a Thing file."""
    return Upload.Kind.THING_IMAGE if filename_is_image(name) else Upload.Kind.THING_FILE


def upload_kind_accepts(kind: str, name: str) -> bool:
    return kind not in IMAGE_ONLY_KINDS or filename_is_image(name)


def thing_file_type_problem(name: str) -> str | None:
    """Why a Thing file named `name` is refused before its upload starts, or None (FILE_TYPES)."""
    ext = filename_extension(name)
    if ext in THING_FILE_EXTENSIONS:
        return None
    kinds = "3D models (stl, 3mf, obj, step...), images, documents (pdf, txt...) or archives (zip...)"
    if ext in EXECUTABLE_EXTENSIONS:
        return f"Programs and scripts (.{ext}) cannot be uploaded. A Thing's files may be {kinds}: docs/uploads.md."
    what = f".{ext} files" if ext else "Files without an extension"
    return f"{what} cannot be uploaded. A Thing's files may be {kinds}: docs/uploads.md."


SNIFF_BYTES = 4096
_MACH_O = (b"\xfe\xed\xfa\xce", b"\xfe\xed\xfa\xcf", b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe", b"\xca\xfe\xba\xbe")


def content_executable_kind(head: bytes) -> str | None:
    """What program `head` (the first SNIFF_BYTES of a file) starts, or None: a Windows program (MZ with a
    PE header where the DOS header says), an ELF or Mach-O binary (or a universal one), or a script
    (`#!`). A plain "MZ" without its PE header is not enough (a binary STL's free 80-byte header may
    start so)."""
    if head.startswith(b"MZ") and len(head) >= 64:
        offset = int.from_bytes(head[60:64], "little")
        if 64 <= offset <= len(head) - 4 and head[offset:offset + 4] == b"PE\0\0":
            return "a Windows program"
    if head.startswith(b"\x7fELF"):
        return "an ELF program"
    if head[:4] in _MACH_O:
        return "a macOS program"
    if head.startswith(b"#!"):
        return "a script"
    return None


def object_key(*, owner_id: int, name: str, token: str | None = None) -> str:
    """`uploads/<owner id>/<random>/<safe name>`: unique, unguessable, and ASCII whatever the name is."""
    safe = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", safe).strip("._") or "file"
    if len(safe) > KEY_NAME_MAX_LENGTH:
        stem, dot, ext = safe.rpartition(".")
        if dot and stem and len(ext) <= 16:
            safe = stem[: KEY_NAME_MAX_LENGTH - len(ext) - 1] + "." + ext
        else:
            safe = safe[:KEY_NAME_MAX_LENGTH]
    return f"{KEY_PREFIX}/{owner_id}/{token or uuid.uuid4().hex}/{safe}"


def stored_key(key: str, *, token: str | None = None) -> str:
    """`stored/<random>/<upload key>`: where a finalize freezes the object. Random per finalize, so no
    policy and no other (racing) finalize ever writes to it: what is checked there is what is served."""
    return f"{STORED_PREFIX}/{token or uuid.uuid4().hex}/{key}"


def policy_key_of(key: str) -> str:
    """The upload-policy key behind a stored key (the key itself when it is not a stored one)."""
    if key.startswith(STORED_PREFIX + "/"):
        parts = key.split("/", 2)
        if len(parts) == 3:
            return parts[2]
    return key


def key_is_ours(key: str) -> bool:
    """Whether the upload flow created the object at `key` (only those are ours to delete)."""
    return policy_key_of(key).startswith(KEY_PREFIX + "/")


def upload_can_finalize(upload: Upload, *, user) -> bool:
    return user is not None and user.is_authenticated and upload.owner_id == user.pk


def upload_is_expired(upload: Upload, *, now: datetime) -> bool:
    return upload.expires_at <= now


def upload_size_problem(size: int, *, max_bytes: int) -> str | None:
    """Why an arrived object cannot be accepted, or None (spec §8: 1..262144000 bytes)."""
    if size <= 0:
        return UPLOAD_EMPTY
    if size > max_bytes:
        return UPLOAD_TOO_LARGE
    return None


def upload_failure_type(upload: Upload) -> str:
    """The error type a failed or expired upload answers with again (stored as `TYPE: message`)."""
    if upload.status == Upload.Status.EXPIRED:
        return UPLOAD_EXPIRED
    error_type = upload.error.split(":", 1)[0]
    return error_type if error_type in MESSAGES else UPLOAD_FAILED


# --- processing that never stays silent (issue 23) -----------------------------------------------------


def processing_is_stalled(*, status: str, since: datetime | None, now: datetime, after_seconds: float) -> bool:
    """A file or image still `processing` `after_seconds` after it was queued (or last retried): its worker
    or its broker is gone, or its retries are running out. The site shows an error and a retry, the API
    the same error in `processing_error`; the row itself stays `processing` (its task may still come)."""
    return (
        status == ProcessingStatus.PROCESSING
        and since is not None
        and (now - since).total_seconds() > after_seconds
    )


def processing_stalled_message(*, after_seconds: float) -> str:
    minutes = max(1, round(after_seconds / 60))
    unit = "minute" if minutes == 1 else "minutes"
    return f"Processing has not finished after {minutes} {unit}. Its owner can try again."
