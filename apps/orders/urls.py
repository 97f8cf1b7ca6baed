"""One path() per spec path (spec §4.9) plus the checkout and orders site pages; the core middleware makes
both slash forms answer."""
from django.urls import path

from apps.orders import pages, views

urlpatterns = [
    path("orders/", views.OrderListView.as_view(), name="order-list"),
    path("orders/<int:order_id>/", views.OrderDetailView.as_view(), name="order-detail"),
    # Site pages: the iframe SDK's `address` + `payment` dialogs load these (spec §4.11).
    path("orders/checkout", pages.checkout, name="order-checkout"),
    path("orders/checkout/cancel", pages.checkout_cancel, name="order-checkout-cancel"),
    path("account/orders", pages.account_orders, name="account-orders"),
    path("account/orders/<int:order_id>/refund", pages.order_refund_request, name="account-order-refund"),
]
