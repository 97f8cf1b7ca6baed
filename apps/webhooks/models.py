"""Webhook deliveries (spec §6, docs/decisions.md: Webhooks): an outbox row per event, sent by Celery.

A delivery row is written in the same transaction as the change that caused the event, so an event is
never lost; a task sends it, retries with backoff for about three days, and a sweep re-queues rows whose
worker died. Every attempt is logged.
"""
from django.conf import settings
from django.db import models


class Delivery(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        SENDING = "sending", "Sending (claimed by a worker)"
        SUCCEEDED = "succeeded", "Delivered"
        FAILED = "failed", "Failed (gave up)"
        CANCELLED = "cancelled", "Cancelled (endpoint disabled or removed)"

    application = models.ForeignKey(
        settings.OAUTH2_PROVIDER_APPLICATION_MODEL, on_delete=models.CASCADE, related_name="webhook_deliveries"
    )
    event = models.CharField(max_length=40)
    # Standard Webhooks `webhook-id`: the same across every retry and redelivery of this event.
    message_id = models.CharField(max_length=64, unique=True)
    payload = models.JSONField()
    # An event about users' content (catalog.USER_EVENTS): the users whose consent let it through. It is
    # sent only while one of them still authorizes the app (revoking stops what is still pending).
    subject_user_ids = models.JSONField(default=list, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    attempt_count = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True, help_text="When a worker took it (sweep)")
    last_error = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-id"]
        indexes = [
            models.Index(fields=["status", "next_attempt_at"], name="webhooks_delivery_due_idx"),
            models.Index(fields=["application", "-created"], name="webhooks_delivery_app_idx"),
        ]
        verbose_name = "webhook delivery"
        verbose_name_plural = "webhook deliveries"

    def __str__(self) -> str:
        return f"{self.event} delivery #{self.pk} ({self.get_status_display()})"


class Attempt(models.Model):
    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="attempts")
    number = models.PositiveIntegerField()
    url = models.URLField(max_length=500)
    started_at = models.DateTimeField()
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    # The IP actually connected to (or refused): the name was resolved once, right before sending.
    remote_address = models.GenericIPAddressField(null=True, blank=True)
    status_code = models.PositiveIntegerField(null=True, blank=True)
    response_excerpt = models.TextField(blank=True, max_length=2000)
    # The request as sent (its body is the delivery's payload, the same bytes on every attempt) and the
    # answer's headers, for the developer's delivery log.
    request_headers = models.JSONField(default=dict, blank=True)
    response_headers = models.JSONField(default=dict, blank=True)
    # `error` is in plain words ("Connection refused: …"); `error_detail` is the raw exception text,
    # shown to staff only (docs/decisions.md: Webhooks, the delivery log).
    error = models.TextField(blank=True)
    error_detail = models.TextField(blank=True)

    class Meta:
        ordering = ["-started_at", "-id"]
        constraints = [models.UniqueConstraint(fields=["delivery", "number"], name="webhooks_attempt_unique")]
        verbose_name = "webhook delivery attempt"
        verbose_name_plural = "webhook delivery attempts"

    def __str__(self) -> str:
        answer = self.status_code if self.status_code is not None else "no answer"
        return f"Attempt {self.number} of delivery {self.delivery_id} ({answer})"


class EventSelection(models.Model):
    """The webhook events an app chose (apps/webhooks/catalog.py). No row: the catalog's defaults (the
    order events); Thing and make events are opt-in (docs/decisions.md: Thing and make webhooks)."""

    application = models.OneToOneField(
        settings.OAUTH2_PROVIDER_APPLICATION_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="webhook_event_selection",
    )
    events = models.JSONField(default=list, help_text="Event names of apps/webhooks/catalog.py")
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "webhook event selection"
        verbose_name_plural = "webhook event selections"

    def __str__(self) -> str:
        return f"Webhook events of {self.application}"
