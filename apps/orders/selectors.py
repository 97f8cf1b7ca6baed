"""Reads of orders, always restricted to what the caller may see (spec §4.9, §5, §7)."""
from django.db.models import QuerySet
from oauth2_provider.models import get_application_model

from apps.core.domain.exceptions import NotAuthenticated, NotFound, PermissionDenied
from apps.core.pipeline.lookups import id_or_404
from apps.oauth.selectors import authorization_get_for_user
from apps.orders import rules
from apps.orders.models import Order
from apps.things.selectors import thing_get_for_viewer

Application = get_application_model()


def order_list_for_token(*, token) -> QuerySet:
    """The orders an API token sees, newest first: the app's own orders only, and of a user's token only
    that user's orders (rules.order_token_sees_all_of_app for the read-only and the owner's tokens)."""
    qs = Order.objects.filter(application_id=token.application_id)
    if not rules.order_token_sees_all_of_app(token):
        qs = qs.filter(buyer_id=token.user_id)
    return qs.order_by("-add_date", "-id")


def order_get_for_token(order_id, *, token) -> Order:
    """spec §7: 404 when the order does not exist for that user and application (any other token)."""
    order = order_list_for_token(token=token).filter(pk=id_or_404(order_id)).first()
    if order is None:
        raise NotFound()
    return order


def order_get_for_token_update(order_id, *, token) -> Order:
    """The order a PATCH may change: 404 as for GET first, then 403 for a token that may only read."""
    order = order_get_for_token(order_id, token=token)
    if not rules.order_token_can_update(token):
        raise PermissionDenied()
    return order


def order_list_for_buyer(*, buyer) -> QuerySet:
    """The buyer's orders for their orders page, newest first, with the Thing and app names."""
    return (
        Order.objects.filter(buyer=buyer)
        .select_related("thing", "application")
        .order_by("-add_date", "-id")
    )


def order_get_for_buyer(order_id, *, buyer) -> Order:
    order = Order.objects.filter(buyer=buyer, pk=id_or_404(order_id)).first()
    if order is None:
        raise NotFound()
    return order


def checkout_thing_get(thing_id, *, buyer):
    """The Thing a checkout is for: one the buyer may see (NotFound for anything else, as on its page)."""
    try:
        return thing_get_for_viewer(thing_id, viewer=buyer, detail=False)
    except (NotAuthenticated, PermissionDenied):
        raise NotFound() from None


def checkout_application_get(client_id: str):
    application = Application.objects.filter(client_id=client_id).select_related("user").first()
    if application is None:
        raise NotFound()
    return application


def application_is_authorized_by(*, application, user) -> bool:
    return authorization_get_for_user(user=user, application_id=application.pk) is not None
