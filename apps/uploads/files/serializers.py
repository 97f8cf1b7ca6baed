"""Output shapes of files and images (docs/decisions.md: File, Image) and the inputs of their endpoints."""
from rest_framework import serializers

from apps.core.pipeline.fields import StrictBooleanField, StrictIntegerField
from apps.uploads import links
from apps.uploads.files.selectors import processing_error_of
from apps.uploads.links import IMAGE_SIZES, IMAGE_TYPES
from apps.uploads.models import ProcessingStatus


class ImageSizeSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=IMAGE_TYPES)
    size = serializers.ChoiceField(choices=IMAGE_SIZES)
    url = serializers.URLField(help_text="A signed store URL, valid for an hour.")


class ImageSerializer(serializers.Serializer):
    """docs/decisions.md Image, plus `status` (processing|live|failed). `url` is the original (signed).
    Context `type`/`size` narrow `sizes` to those variants (GET .../images?type=…&size=…)."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    url = serializers.URLField()
    added = serializers.CharField(help_text="ISO 8601 with offset")
    rank = serializers.IntegerField()
    featured = serializers.BooleanField()
    sizes = ImageSizeSerializer(many=True)
    status = serializers.ChoiceField(choices=ProcessingStatus.choices)

    def to_representation(self, image):
        return links.image_dict(
            id=image.pk,
            name=image.name,
            key=image.key,
            added=image.added,
            rank=image.rank,
            featured=image.featured,
            sizes=image.sizes,
            status=image.status,
            type=self.context.get("type"),
            size=self.context.get("size"),
        )


class ImageStateSerializer(ImageSerializer):
    """An image where it is the resource itself (GET …/images, …/images/{id} of a Thing or a copy): the
    Image shape plus `processing_error`: why processing failed, or, while `status` is still `processing`
    past PROCESSING_STALLED_SECONDS, that it has not finished and can be tried again (issue 23); else "".
    Where an image is embedded (a file's `default_image`, a copy's `images`) the shape stays Image's."""

    processing_error = serializers.CharField()

    def to_representation(self, image):
        return {**super().to_representation(image), "processing_error": processing_error_of(image)}


class FileGeometrySerializer(serializers.Serializer):
    """The mesh analysis of a file (processing/stl.py stl_measure), in millimetres."""

    format = serializers.CharField(help_text="`stl-binary`, `stl-ascii`, `3mf` or `obj`.")
    triangles = serializers.IntegerField()
    bbox_mm = serializers.DictField(
        child=serializers.ListField(child=serializers.FloatField()),
        help_text="`{x: [min, max], y: [min, max], z: [min, max]}`.",
    )
    size_mm = serializers.DictField(child=serializers.FloatField(), help_text="`{x, y, z}`.")
    volume_mm3 = serializers.FloatField(help_text="The enclosed volume; meaningful when `closed`.")
    area_mm2 = serializers.FloatField()
    closed = serializers.BooleanField()
    units = serializers.CharField(help_text="Always `mm`.")
    objects = serializers.ListField(
        child=serializers.DictField(), required=False,
        help_text="3MF: the objects the build places `[{id, name, triangles, bbox_mm, plate}]` (`plate` where the "
        "slicer wrote plates); OBJ: its `o` objects `[{name, triangles}]`. Absent for STL.",
    )
    plates = serializers.ListField(
        child=serializers.DictField(), required=False,
        help_text="3MF from Bambu Studio or OrcaSlicer: `[{id, name, objects: [object id]}]`.",
    )
    settings = serializers.DictField(
        required=False,
        help_text="3MF: the print settings the file carries, those present of `slicer`, `printer`, `material`, "
        "`filament`, `layer_height_mm`, `nozzle_mm`, `infill_percent`, `supports`.",
    )


class FileSerializer(serializers.Serializer):
    """docs/decisions.md File (`meta_data` an array, the mesh analysis as `geometry`), plus `status` and
    `processing_error` (why processing failed, or, while `status` is still `processing` past
    PROCESSING_STALLED_SECONDS, that it has not finished and can be tried again: issue 23; else "")."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    size = serializers.IntegerField()
    url = serializers.URLField(help_text="API URL of the file (GET /files/{id})")
    public_url = serializers.URLField(help_text="The file on the Thing's site page")
    download_url = serializers.URLField(help_text="GET: redirects to the file and records the download")
    threejs_url = serializers.CharField(help_text="Signed URL of the three.js JSON, or an empty string")
    thumbnail = serializers.URLField()
    date = serializers.CharField(help_text="YYYY-MM-DD hh:mm:ss, UTC")
    formatted_size = serializers.CharField()
    default_image = ImageSerializer(allow_null=True, help_text="The file's render as an image, or null.")
    meta_data = serializers.ListField(
        child=serializers.JSONField(),
        help_text="Always an array (compat: the original API typed it so); empty in Thingyard. The mesh "
        "analysis is `geometry`.",
    )
    geometry = FileGeometrySerializer(
        allow_null=True, help_text="The mesh analysis of a 3D model; null before processing and for other files."
    )
    status = serializers.ChoiceField(choices=ProcessingStatus.choices)
    processing_error = serializers.CharField()
    # Served in every wire version (docs/decisions.md: Wire versions, the additive fields).
    direct_url = serializers.URLField(
        allow_null=True,
        help_text="The file's bytes to a plain GET, with or without an Authorization header; null for files "
        "that are not printable (a PDF, a picture).",
    )
    download_count = serializers.IntegerField()

    def to_representation(self, file):
        return {
            "id": file.pk,
            "name": file.name,
            "size": file.size,
            "url": links.file_api_url(file.pk),
            "public_url": links.file_public_url(file.thing_id, file.pk),
            "download_url": links.file_download_url(file.pk),
            "threejs_url": links.store_url(file.threejs_key) if file.threejs_key else "",
            "thumbnail": links.file_thumbnail_url(file),
            "date": links.file_date(file.added),
            "formatted_size": links.formatted_size(file.size),
            "default_image": links.file_default_image(file),
            "meta_data": [],
            "geometry": links.file_geometry(file),
            "status": file.status,
            "processing_error": processing_error_of(file),
            "direct_url": links.file_direct_url(file),
            "download_count": file.download_count,
        }


# --- inputs ------------------------------------------------------------------------------------------


class ImageQueryInput(serializers.Serializer):
    """spec §4.2: `type` optional, and required when `size` is given."""

    type = serializers.ChoiceField(choices=IMAGE_TYPES, required=False)
    size = serializers.ChoiceField(choices=IMAGE_SIZES, required=False)

    def validate(self, attrs):
        if "size" in attrs and "type" not in attrs:
            raise serializers.ValidationError({"type": ["type is required when size is given."]})
        return attrs


class ImageUpdateInput(serializers.Serializer):
    """spec §4.2 PATCH /things/{id}/images/{image_id}: both optional."""

    rank = StrictIntegerField(required=False, min_value=0, max_value=1_000_000)
    featured = StrictBooleanField(
        required=False, help_text="true makes it the Thing's default image (and unfeatures the others)."
    )
