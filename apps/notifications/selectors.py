"""Reads of notifications: a member's own only."""
from datetime import timedelta

from django.db.models import QuerySet
from django.utils import timezone

from apps.core.domain.exceptions import NotFound
from apps.core.pipeline.lookups import id_or_404
from apps.notifications import rules
from apps.notifications.models import Notification


def notification_list_for(*, user) -> QuerySet:
    """The member's notifications, newest first, actor joined (one query per page)."""
    return Notification.objects.filter(recipient=user).select_related("actor").order_by("-id")


def notification_get_own(notification_id, *, user) -> Notification:
    """404 for someone else's notification as for a missing one: nobody learns what others are told."""
    notification = Notification.objects.filter(recipient=user, pk=id_or_404(notification_id)).first()
    if notification is None:
        raise NotFound()
    return notification


def notification_digest_due_user_ids(*, now=None) -> list[int]:
    """Members on the daily digest with unread notifications not mailed yet (within the window)."""
    now = now or timezone.now()
    since = now - timedelta(days=rules.DIGEST_WINDOW_DAYS)
    return list(
        Notification.objects.filter(
            read_at__isnull=True, emailed_at__isnull=True, created__gte=since,
            recipient__notify_email="daily", recipient__is_active=True,
        ).exclude(recipient__email="").order_by("recipient_id").values_list("recipient_id", flat=True).distinct()
    )
