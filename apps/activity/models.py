"""Events: what happened to a user (a follower, a like, a comment …), what spec §4.1 event-count counts.

The table is the one accounts created (accounts_event): the model moved here with its rows
(migrations activity.0001 and accounts.0002 move the state only).
"""
from django.conf import settings
from django.db import models


class Event(models.Model):
    """Something that happened to a user (a follower, a like, a comment …): what event-count counts."""

    class Kind(models.TextChoices):
        FOLLOW = "follow", "New follower"
        LIKE = "like", "Like"
        COMMENT = "comment", "Comment"
        MAKE = "make", "Make"
        COLLECT = "collect", "Collect"
        OTHER = "other", "Other"

    recipient = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="events")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    kind = models.CharField(max_length=16, choices=Kind.choices)
    target_type = models.CharField(max_length=32, blank=True)
    target_id = models.BigIntegerField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        db_table = "accounts_event"
        indexes = [models.Index(fields=["recipient", "created"], name="accounts_ev_recipie_7c3017_idx")]
        verbose_name = "activity event"
        verbose_name_plural = "activity events"

    def __str__(self) -> str:
        return f"{self.get_kind_display()} event {self.pk} for {self.recipient}"
