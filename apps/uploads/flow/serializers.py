"""Input and output shapes of the upload flow (start, finalize). The read side lives in serializers.py."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from apps.core.pipeline.fields import StrictCharField
from apps.uploads.rules import FILENAME_MAX_LENGTH, IMAGE_EXTENSIONS, THING_FILE_EXTENSIONS


# How every upload-start endpoint's OpenAPI description begins.
FLOW = (
    "Answers the upload descriptor: POST its `fields` in order, then a `file` part, to `action` "
    "(no Authorization header); the store redirects (303) to the finalize URL. The object may be "
    "1 to 262144000 bytes; the form is valid for one hour."
)


class UploadStartInput(serializers.Serializer):
    """Body of every upload start (spec §4.1 avatar/cover-image, §4.2 POST /things/{id}/files)."""

    filename = StrictCharField(
        max_length=FILENAME_MAX_LENGTH,
        help_text="The file's name. Only its last path segment is kept; the object key is chosen by "
        "the service.",
    )


def _any_case(text: str) -> str:
    return "".join(f"[{ch.lower()}{ch.upper()}]" if ch.isalpha() else ch for ch in text)


def _filename_pattern(extensions) -> str:
    """The names an upload whose extension must be one of `extensions` takes (services.upload_start: the
    rule on the name rules.filename_clean leaves): the last path segment ends in `.<extension>`, any case,
    and has a character the cleaning keeps (not a space, dot or control character) before it; trailing
    spaces, dots and control characters are dropped. A JSON Schema pattern (ECMA 262 and Python `re` alike)."""
    return (
        r"^(?:[\s\S]*[/\\])?[^/\\]*[^\s./\\\x00-\x1f\x7f-\x9f][^/\\]*\.(?:"
        + "|".join(_any_case(ext) for ext in sorted(extensions))
        + r")[\s.\x00-\x1f\x7f-\x9f]*$"
    )


# The image-only uploads (rules.upload_kind_accepts), and a Thing's files (rules.thing_file_type_problem:
# the file types of docs/uploads.md, images included).
IMAGE_FILENAME_PATTERN = _filename_pattern(IMAGE_EXTENSIONS)
THING_FILENAME_PATTERN = _filename_pattern(THING_FILE_EXTENSIONS)


@extend_schema_field(
    {"type": "string", "minLength": 1, "maxLength": FILENAME_MAX_LENGTH, "pattern": IMAGE_FILENAME_PATTERN}
)
class _ImageFilenameField(StrictCharField):
    pass


@extend_schema_field(
    {"type": "string", "minLength": 1, "maxLength": FILENAME_MAX_LENGTH, "pattern": THING_FILENAME_PATTERN}
)
class _ThingFilenameField(StrictCharField):
    pass


class ImageUploadStartInput(serializers.Serializer):
    """Documentation of the image-only upload starts (avatar, cover, copy and group images): the views
    parse UploadStartInput, and the service refuses another extension (400)."""

    filename = _ImageFilenameField(
        max_length=FILENAME_MAX_LENGTH,
        help_text="An image's name: jpg, jpeg, png, gif or webp (any case). Only its last path segment "
        "is kept; the object key is chosen by the service.",
    )


class ThingFileUploadStartInput(serializers.Serializer):
    """Documentation of POST /things/{id}/files: the view parses UploadStartInput, and the service refuses
    a name whose extension is none of a Thing's file types (400)."""

    filename = _ThingFilenameField(
        max_length=FILENAME_MAX_LENGTH,
        help_text="The file's name, with the extension of one of a Thing's file types (any case): 3D models "
        "(stl, 3mf, obj, step...), images, documents (pdf, txt...) or archives (zip...); the pattern lists "
        "them all. Only its last path segment is kept; the object key is chosen by the service.",
    )


# docs/decisions.md: Uploads (the S3 signature-v2 form; S3_SIGNATURE_MODE=v4 sends x-amz-* fields instead).
DESCRIPTOR_FIELDS = (
    "AWSAccessKeyId",
    "bucket",
    "key",
    "acl",
    "success_action_redirect",
    "policy",
    "signature",
    "Content-Type",
    "Content-Disposition",
)
# Built with type(): two field names are not Python identifiers.
UploadFieldsSerializer = type(
    "UploadFieldsSerializer",
    (serializers.Serializer,),
    {name: serializers.CharField(allow_blank=True) for name in DESCRIPTOR_FIELDS},
)


class UploadDescriptorSerializer(serializers.Serializer):
    """spec §2 Upload descriptor (documentation: views answer the descriptor dict as built)."""

    action = serializers.URLField(help_text="The object store's URL to POST the form to.")
    fields = UploadFieldsSerializer(
        help_text="Form fields to send back unchanged and in this order, before the `file` part."
    )


class FinalizedFileSerializer(serializers.Serializer):
    """spec §2 Finalized file summary."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    url = serializers.URLField()
