"""Uploads (spec §4.10) and what they become: Thing files, images, downloads, packages.

File bytes never pass through Django: an Upload row is the pending upload a signed form descriptor was
issued for; finalize (or the delayed verification task) turns it into a ThingFile or an Image, or
applies it to a user's avatar/cover. Processing then renders sizes, thumbnails and geometry.
"""
from django.conf import settings
from django.db import models

from apps.core.db.loading import LeanFromDb


class Upload(models.Model):
    class Kind(models.TextChoices):
        THING_FILE = "thing_file", "Thing file"
        THING_IMAGE = "thing_image", "Thing image"
        COPY_IMAGE = "copy_image", "Copy (make) image"
        # POST /things/{id}/copies: target_id is the Thing; finalize creates the make with this image.
        COPY_NEW = "copy_new", "New copy (make) with its first image"
        AVATAR = "avatar", "User avatar"
        COVER = "cover", "User cover"
        GROUP_IMAGE = "group_image", "Group image"

    class Status(models.TextChoices):
        PENDING = "pending", "Pending: waiting for the bytes"
        FINALIZED = "finalized", "Finalized"
        FAILED = "failed", "Failed"
        EXPIRED = "expired", "Expired: the bytes never arrived"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="uploads")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    target_id = models.BigIntegerField(help_text="Thing, copy, user or group id, by kind (copy_new: the Thing)")
    filename = models.CharField(max_length=255)
    content_type = models.CharField(max_length=100)
    key = models.CharField(max_length=512, unique=True, help_text="Object key chosen by the server")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    size = models.BigIntegerField(null=True, blank=True)
    error = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(help_text="When the signed policy stops accepting the bytes")
    finalized_at = models.DateTimeField(null=True, blank=True)
    # What finalize made of it (at most one); the summary of a repeated finalize comes from here.
    file = models.OneToOneField("ThingFile", null=True, blank=True, on_delete=models.SET_NULL, related_name="upload")
    image = models.OneToOneField("Image", null=True, blank=True, on_delete=models.SET_NULL, related_name="upload")

    class Meta:
        indexes = [models.Index(fields=["status", "expires_at"], name="uploads_upload_sweep_idx")]

    def __str__(self) -> str:
        return f"Upload {self.pk}: {self.filename} ({self.get_status_display()})"


class ProcessingStatus(models.TextChoices):
    PROCESSING = "processing", "Processing"
    LIVE = "live", "Live"
    FAILED = "failed", "Processing failed"


class ThingFile(models.Model):
    thing = models.ForeignKey("things.Thing", on_delete=models.CASCADE, related_name="files")
    name = models.CharField(max_length=255)
    key = models.CharField(max_length=512)
    size = models.BigIntegerField()
    content_type = models.CharField(max_length=100, blank=True)
    status = models.CharField(max_length=16, choices=ProcessingStatus.choices, default=ProcessingStatus.PROCESSING)
    processing_error = models.TextField(blank=True)
    # The mesh analysis of a 3D model (processing: format, triangles, bbox_mm, size_mm, volume_mm3,
    # area_mm2, closed, units); null before processing and for files that are not meshes. The API shows
    # it as `geometry` (docs/decisions.md: File; `meta_data` on the wire is a separate, always-array field).
    geometry = models.JSONField(null=True, blank=True, default=None)
    thumbnail_key = models.CharField(max_length=512, blank=True)
    threejs_key = models.CharField(max_length=512, blank=True)
    download_count = models.PositiveIntegerField(default=0)
    added = models.DateTimeField(auto_now_add=True)
    modified = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["added", "id"]
        verbose_name = "Thing file"
        verbose_name_plural = "Thing files"

    def __str__(self) -> str:
        return f"File {self.name} of Thing {self.thing_id}"


# docs/decisions.md (Thing images): the renders of a Thing's mesh files come after its uploaded images.
RENDERS_LAST = models.Case(
    models.When(source_file__isnull=True, then=models.Value(0)),
    default=models.Value(1),
    output_field=models.IntegerField(),
)


class Image(LeanFromDb, models.Model):
    """An image of a Thing or of a copy (make). `sizes` lists the rendered variants (docs/decisions.md).

    `source_file` is set on a render: the image processing made of a mesh file (docs/decisions.md: Thing
    images, compat). It goes with its file, and processing the file again replaces it.
    """

    thing = models.ForeignKey("things.Thing", null=True, blank=True, on_delete=models.CASCADE, related_name="images")
    # The column stays `copy_id` (this was a plain id before the makes app existed); a make's images go
    # with it, as a Thing's do.
    copy = models.ForeignKey(
        "makes.Make", null=True, blank=True, on_delete=models.CASCADE, related_name="images",
        help_text="The copy (make) it belongs to",
    )
    name = models.CharField(max_length=255)
    key = models.CharField(max_length=512)
    size = models.BigIntegerField()
    width = models.PositiveIntegerField(null=True, blank=True)
    height = models.PositiveIntegerField(null=True, blank=True)
    status = models.CharField(max_length=16, choices=ProcessingStatus.choices, default=ProcessingStatus.PROCESSING)
    processing_error = models.TextField(blank=True)
    rank = models.IntegerField(default=0)
    featured = models.BooleanField(default=False)
    # [{"type": "thumb|preview|display", "size": "large|medium|small|tiny", "key": …, "width": …, "height": …}]
    sizes = models.JSONField(default=list, blank=True)
    source_file = models.OneToOneField(
        ThingFile, null=True, blank=True, on_delete=models.CASCADE, related_name="render_image",
        help_text="The mesh file this image is the render of (null for an uploaded image)",
    )
    added = models.DateTimeField(auto_now_add=True)
    modified = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = [RENDERS_LAST, "rank", "added", "id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(thing__isnull=False) | models.Q(copy_id__isnull=False),
                name="uploads_image_has_owner",
            )
        ]

    def __str__(self) -> str:
        owner = f"Thing {self.thing_id}" if self.thing_id else f"make {self.copy_id}"
        return f"Image {self.name} of {owner}"


class Download(models.Model):
    """A user's download of a file (spec §4.3): GET /users/{username}/downloads lists the Things."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="downloads")
    # A deleted file leaves the user's history (which lists Things) as it was.
    file = models.ForeignKey(ThingFile, null=True, on_delete=models.SET_NULL, related_name="downloads")
    thing = models.ForeignKey("things.Thing", on_delete=models.CASCADE, related_name="+")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["user", "-created"], name="uploads_download_user_idx")]


class ThingPackage(models.Model):
    """The ZIP of a Thing's files plus license text (package-url), rebuilt when the files change."""

    class Status(models.TextChoices):
        BUILDING = "building", "Building"
        READY = "ready", "Ready"
        FAILED = "failed", "Failed"

    thing = models.OneToOneField("things.Thing", on_delete=models.CASCADE, related_name="package")
    signature = models.CharField(max_length=64, help_text="Hash of the files it was built from")
    key = models.CharField(max_length=512, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.BUILDING)
    error = models.TextField(blank=True)
    built_at = models.DateTimeField(null=True, blank=True)
