"""Webhook reads: an app's recent deliveries with their attempts, a delivery of an owner's app, the apps
subscribed to a user's events, an app's chosen events."""
from collections.abc import Iterable

from django.db.models import Prefetch
from oauth2_provider.models import get_application_model

from apps.core.domain.exceptions import NotFound
from apps.oauth.models import AppAuthorization
from apps.webhooks import rules
from apps.webhooks.models import Attempt, Delivery, EventSelection

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


def application_events(*, application) -> frozenset[str]:
    """The events `application` receives (its selection, or the defaults). Reads the selection loaded by
    select_related("webhook_event_selection") when it was, else one query."""
    try:
        selection = application.webhook_event_selection
    except EventSelection.DoesNotExist:
        return rules.events_chosen(None)
    return rules.events_chosen(selection.events)


def application_is_authorized_by_any(*, application, user_ids) -> bool:
    """Whether one of `user_ids` still authorizes `application` (its consent has not been revoked)."""
    return AppAuthorization.objects.filter(application=application, user_id__in=list(user_ids)).exists()


def application_list_subscribed(*, user_ids: Iterable[int], event: str) -> list:
    """The apps that one of `user_ids` authorized (a live consent: revoking deletes it), that have a
    webhook URL and chose `event`; each once, by id. One query whatever the number of apps."""
    ids = [uid for uid in dict.fromkeys(user_ids) if uid is not None]
    if not ids:
        return []
    candidates = (
        get_application_model()
        .objects.filter(authorizations__user_id__in=ids, webhook_event_selection__isnull=False)
        .exclude(webhook_url="")
        .select_related("webhook_event_selection")
        .order_by("pk")
    )
    subscribed: dict[int, object] = {}
    for application in candidates:
        if application.pk not in subscribed and event in application_events(application=application):
            subscribed[application.pk] = application
    return list(subscribed.values())
