"""Collections of Things (spec §4.5): a user's named list, each entry with the reason it was added."""
from django.conf import settings
from django.db import models

NAME_MAX_LENGTH = 100
DESCRIPTION_MAX_LENGTH = 2000
REASON_MAX_LENGTH = 1000


class Collection(models.Model):
    creator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="thing_collections"
    )
    name = models.CharField(max_length=NAME_MAX_LENGTH)
    description = models.TextField(max_length=DESCRIPTION_MAX_LENGTH, blank=True, default="")
    # spec §4.5: apps may change only collections they created. Null = created on the site; a deleted
    # app's collections fall back to that, so no other app inherits them.
    created_by_app = models.ForeignKey(
        settings.OAUTH2_PROVIDER_APPLICATION_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    # Staff feature collections in the admin, as they feature Things (the API shows `is_featured`).
    is_featured = models.BooleanField(default=False)
    added = models.DateTimeField(auto_now_add=True)
    modified = models.DateTimeField(auto_now=True)
    things = models.ManyToManyField("things.Thing", through="CollectionThing", related_name="collections")

    class Meta:
        indexes = [
            models.Index(fields=["-added", "-id"], name="collections_latest_idx"),
            models.Index(fields=["creator", "-added", "-id"], name="collections_creator_idx"),
        ]

    def __str__(self) -> str:
        return self.name


class CollectionThing(models.Model):
    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="entries")
    thing = models.ForeignKey("things.Thing", on_delete=models.CASCADE, related_name="collection_entries")
    description = models.TextField(max_length=REASON_MAX_LENGTH, blank=True, default="")
    # spec §4.5: apps may remove only the Things they added. Null = added on the site.
    added_by_app = models.ForeignKey(
        settings.OAUTH2_PROVIDER_APPLICATION_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    added = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["collection", "thing"], name="collection_thing_unique"),
        ]
        indexes = [models.Index(fields=["collection", "-added", "-id"], name="collection_entries_added_idx")]

    def __str__(self) -> str:
        return f"{self.collection_id}:{self.thing_id}"
