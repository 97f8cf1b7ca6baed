"""Makes, called copies on the wire (spec §4.4): someone printed a Thing and shows the result."""
from django.conf import settings
from django.db import models

from apps.core.domain.moderation import Moderated

DESCRIPTION_MAX_LENGTH = 10000


class Make(Moderated):
    thing = models.ForeignKey("things.Thing", on_delete=models.CASCADE, related_name="makes")
    creator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="makes")
    description = models.TextField(blank=True, max_length=DESCRIPTION_MAX_LENGTH)
    # Counters kept by the services that change them (F() updates under row locks), read by every list.
    like_count = models.PositiveIntegerField(default=0)
    comment_count = models.PositiveIntegerField(default=0)
    added = models.DateTimeField(auto_now_add=True)
    modified = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [
            models.Index(fields=["-added", "-id"], name="makes_latest_idx"),
            models.Index(fields=["thing", "-added", "-id"], name="makes_thing_idx"),
            models.Index(fields=["creator", "-added", "-id"], name="makes_creator_idx"),
        ]

    def __str__(self) -> str:
        return f"Make {self.pk} of Thing {self.thing_id}"


class MakeLike(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="make_likes")
    make = models.ForeignKey(Make, on_delete=models.CASCADE, related_name="likes")
    created = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "make"], name="makes_like_unique")]
