"""Notifications (issue 26): what a member is told about on the site (the bell, /notifications) and by
e-mail, per notification or as a daily digest (User.notify_email)."""
from django.conf import settings
from django.db import models
from django.db.models import Q


class Notification(models.Model):
    class Kind(models.TextChoices):
        LIKE = "like", "Like"
        COMMENT = "comment", "Comment"
        REPLY = "reply", "Reply"
        MAKE = "make", "Make"
        REMIX = "remix", "Remix"
        NEW_THING = "new_thing", "New Thing from someone you follow"
        MODERATION = "moderation", "Moderation notice"

    recipient = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications")
    # Null for the moderators' notices (the site speaks) and once the actor's account is gone.
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    kind = models.CharField(max_length=16, choices=Kind.choices)
    # What happened, written when it happened: the Thing's name and the page to open (a later rename or
    # deletion does not rewrite history; the page then says it is gone).
    subject = models.CharField(max_length=200, blank=True)
    url = models.CharField(max_length=300, blank=True)
    body = models.TextField(blank=True)  # the moderators' text; a comment's first words
    # One notification per happening and recipient: a second run of a fan-out task, or liking again
    # after an unlike, finds the row already there (notifications_once).
    key = models.CharField(max_length=100)
    created = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)
    # Set when an e-mail (single or digest) claimed it: never mailed twice.
    emailed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["recipient", "key"], name="notifications_once")]
        indexes = [
            models.Index(fields=["recipient", "-id"], name="notifications_list_idx"),
            models.Index(
                fields=["recipient"], condition=Q(read_at__isnull=True, emailed_at__isnull=True),
                name="notifications_unmailed_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} notification {self.pk} for {self.recipient_id}"
