"""Reports of content or members, and the owners' appeals against a moderator's decision (issue 26).

A report names its target by kind and id (kinds.py), not by a foreign key per kind: a report outlives
the item (a deleted Thing's report stays in the queue's history, its target shown as gone).
"""
from django.conf import settings
from django.db import models


class Report(models.Model):
    class Kind(models.TextChoices):
        THING = "thing", "Thing"
        COMMENT = "comment", "Comment"
        MAKE = "make", "Make"
        TOPIC = "topic", "Group topic"
        USER = "user", "Member"

    class Reason(models.TextChoices):
        SPAM = "spam", "Spam or advertising"
        ABUSE = "abuse", "Harassment, hate or abuse"
        RIGHTS = "rights", "Copyright or someone else's design"
        DANGER = "danger", "Dangerous or illegal item (e.g. weapons)"
        ADULT = "adult", "Sexual or shocking content"
        OTHER = "other", "Something else"

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        ACTIONED = "actioned", "Acted on"
        DISMISSED = "dismissed", "Dismissed"

    reporter = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="reports_made"
    )
    kind = models.CharField(max_length=16, choices=Kind.choices)
    target_id = models.BigIntegerField()
    # The member responsible for the item (its creator; the member reported), kept for the queue's
    # warn and suspend actions even if the item goes.
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="reports_against"
    )
    reason = models.CharField(max_length=16, choices=Reason.choices)
    details = models.TextField(blank=True, max_length=2000)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    created = models.DateTimeField(auto_now_add=True)
    handled_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    handled_at = models.DateTimeField(null=True, blank=True)
    resolution = models.TextField(blank=True, max_length=2000)

    class Meta:
        ordering = ["-created", "-id"]
        indexes = [models.Index(fields=["status", "-created"]), models.Index(fields=["kind", "target_id"])]
        constraints = [
            # One open report per member and item: a second click does not add to the queue.
            models.UniqueConstraint(
                fields=["reporter", "kind", "target_id"],
                condition=models.Q(status="open"),
                name="reports_report_one_open_per_reporter",
            )
        ]

    def __str__(self):
        return f"{self.get_kind_display()} {self.target_id}: {self.get_reason_display()}"


class Appeal(models.Model):
    """The owner's one appeal against hiding an item: a moderator grants it (the item is shown again)
    or rejects it, with a note the owner receives."""

    class Status(models.TextChoices):
        OPEN = "open", "Open"
        GRANTED = "granted", "Granted"
        REJECTED = "rejected", "Rejected"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="appeals")
    kind = models.CharField(max_length=16, choices=Report.Kind.choices)
    target_id = models.BigIntegerField()
    # The hiding appealed against: a later hiding of the same item may be appealed again.
    hidden_at = models.DateTimeField()
    hidden_reason = models.TextField(blank=True)
    text = models.TextField(max_length=4000)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)
    created = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_note = models.TextField(blank=True, max_length=2000)

    class Meta:
        ordering = ["-created", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "target_id", "hidden_at"], name="reports_appeal_one_per_hiding"
            )
        ]

    def __str__(self):
        return f"Appeal of {self.get_kind_display()} {self.target_id}"
