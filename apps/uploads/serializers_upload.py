"""Input and output shapes of the upload flow (start, finalize). The read side lives in serializers.py."""

from rest_framework import serializers

from apps.core.fields import StrictCharField
from apps.uploads.rules import FILENAME_MAX_LENGTH


class UploadStartInput(serializers.Serializer):
    """Body of every upload start (spec §4.1 avatar/cover-image, §4.2 POST /things/{id}/files)."""

    filename = StrictCharField(
        max_length=FILENAME_MAX_LENGTH,
        help_text="The file's name. Only its last path segment is kept; the object key is chosen by "
        "the service.",
    )


# DECISIONS.md: Uploads (the S3 signature-v2 form; S3_SIGNATURE_MODE=v4 sends x-amz-* fields instead).
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
