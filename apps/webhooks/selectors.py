"""Webhook reads: an app's recent deliveries with their attempts, a delivery of an owner's app."""
from django.db.models import Prefetch

from apps.core.exceptions import NotFound
from apps.webhooks.models import Attempt, Delivery

RECENT_DELIVERIES = 20


def delivery_list_recent(*, application, limit: int = RECENT_DELIVERIES) -> list[Delivery]:
    """The app's latest deliveries, newest first, attempts prefetched newest first (two queries)."""
    return list(
        Delivery.objects.filter(application=application)
        .prefetch_related(Prefetch("attempts", queryset=Attempt.objects.order_by("-number")))
        .order_by("-created", "-id")[:limit]
    )


def delivery_get_for_application(*, application, pk) -> Delivery:
    """A delivery of `application` (already checked to be the caller's); NotFound otherwise."""
    try:
        return Delivery.objects.select_related("application").get(pk=pk, application=application)
    except (Delivery.DoesNotExist, ValueError, TypeError):
        raise NotFound() from None
