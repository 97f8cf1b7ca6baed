"""API endpoints of spec §4.9 (Orders). Only the owning application's tokens see an order (spec §5);
every other token gets 404 (spec §7), and only the app owner's token may PATCH (rules.py)."""
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.response import Response
from apps.core.pipeline.views import ApiView

from apps.core.pipeline.api import paginated_response, parse_patch
from apps.core.pipeline.permissions import IsAppToken
from apps.orders import selectors, services
from apps.orders.serializers import OrderSerializer, OrderUpdateInput

ORDER_PARAM = OpenApiParameter("order_id", int, OpenApiParameter.PATH, description="An order id.")
WHO = (
    "Needs a token of the application that owns the order: a user's token sees that user's orders, "
    "the app's read-only token and its owner's token see all of the app's orders. Any other token: 404."
)


class OrderListView(ApiView):
    permission_classes = [IsAppToken]

    @extend_schema(responses=OrderSerializer(many=True), summary="List the app's orders", description=WHO)
    def get(self, request):
        orders = selectors.order_list_for_token(token=request.auth)
        return paginated_response(request, orders, OrderSerializer, view=self)


class OrderDetailView(ApiView):
    permission_classes = [IsAppToken]

    @extend_schema(
        parameters=[ORDER_PARAM], responses=OrderSerializer, summary="Get an order", description=WHO
    )
    def get(self, request, order_id):
        order = selectors.order_get_for_token(order_id, token=request.auth)
        return Response(OrderSerializer(order).data)

    @extend_schema(
        parameters=[ORDER_PARAM],
        request=OrderUpdateInput,
        responses=OrderSerializer,
        summary="Update an order",
        description="Only a token of the owning app's owner (the seller). The read-only token and a "
        "buyer's token: 403. A status move the order's state does not allow: 400 STATUS_NOT_ALLOWED.",
    )
    def patch(self, request, order_id):
        # 404/403 before 400: a caller learns nothing about input rules on an order it may not change.
        order = selectors.order_get_for_token_update(order_id, token=request.auth)
        data = parse_patch(OrderUpdateInput, request, current=lambda: OrderSerializer(order).data)
        order = services.order_update(order=order, data=data)
        return Response(OrderSerializer(order).data)
