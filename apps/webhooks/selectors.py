"""Webhook reads: an app's recent deliveries with their attempts, a delivery of an owner's app."""
from django.db.models import Prefetch

from apps.core.exceptions import NotFound
from apps.webhooks.models import Attempt, Delivery

RECENT_DELIVERIES = 20


# The delivery log's status filter: a delivery being sent right now is still pending to its owner.
_STATUS_FILTERS = {
    "pending": (Delivery.Status.PENDING, Delivery.Status.SENDING),
    "succeeded": (Delivery.Status.SUCCEEDED,),
    "failed": (Delivery.Status.FAILED,),
    "cancelled": (Delivery.Status.CANCELLED,),
}


def delivery_list_recent(
    *, application, limit: int = RECENT_DELIVERIES, status: str | None = None, event: str | None = None
) -> list[Delivery]:
    """The app's latest deliveries, newest first, attempts prefetched newest first (two queries),
    optionally only those in a status group ("pending" includes "sending") or of one event."""
    deliveries = Delivery.objects.filter(application=application)
    if status:
        deliveries = deliveries.filter(status__in=_STATUS_FILTERS.get(status, ()))
    if event:
        deliveries = deliveries.filter(event=event)
    return list(
        deliveries.prefetch_related(Prefetch("attempts", queryset=Attempt.objects.order_by("-number")))
        .order_by("-created", "-id")[:limit]
    )


def delivery_event_names(*, application) -> list[str]:
    """The events the app has deliveries of, for the log's event filter (one query)."""
    return sorted(
        Delivery.objects.filter(application=application).order_by().values_list("event", flat=True).distinct()
    )


def delivery_get_for_application(*, application, pk) -> Delivery:
    """A delivery of `application` (already checked to be the caller's); NotFound otherwise."""
    try:
        return Delivery.objects.select_related("application").get(pk=pk, application=application)
    except (Delivery.DoesNotExist, ValueError, TypeError):
        raise NotFound() from None
