"""Order admin: read-only records; every state change is an action that calls a service (STYLE.md)."""
from django.contrib import admin, messages

from apps.core.domain.exceptions import DomainError
from apps.orders import services
from apps.orders.models import Order


@admin.register(Order)
class OrderAdmin(admin.ModelAdmin):
    list_display = (
        "id", "buyer", "thing", "application", "amount", "currency", "status", "is_shipped", "add_date"
    )
    list_select_related = ("buyer", "thing", "application")
    list_filter = ("status", "is_shipped", "payment_backend", "add_date")
    search_fields = (
        "=id", "buyer__username", "buyer__email", "thing__name", "application__name", "payment_reference"
    )
    date_hierarchy = "add_date"
    # Money and status move only through services (and their webhooks): nothing here is a form field.
    readonly_fields = [f.name for f in Order._meta.fields]
    actions = ("mark_shipped", "grant_refund", "refuse_refund", "cancel_orders")

    def has_add_permission(self, request):
        return False  # orders are placed by buyers at checkout

    def has_delete_permission(self, request, obj=None):
        return False  # the record of a payment is kept

    def _each(self, request, queryset, service, done: str):
        changed = 0
        for order in queryset:
            try:
                service(order)
            except DomainError as exc:
                self.message_user(request, f"Order {order.pk}: {exc.message}", messages.ERROR)
            else:
                changed += 1
        if changed:
            self.message_user(request, f"{changed} order(s) {done}.", messages.SUCCESS)

    @admin.action(description="Mark shipped")
    def mark_shipped(self, request, queryset):
        self._each(request, queryset, lambda o: services.order_ship(order=o, actor="staff"), "marked shipped")

    @admin.action(description="Grant refund (refunds the payment, sends order_refunded)")
    def grant_refund(self, request, queryset):
        self._each(
            request, queryset, lambda o: services.order_refund_grant(order=o, actor="staff"), "refunded"
        )

    @admin.action(description="Refuse refund (back to paid or shipped)")
    def refuse_refund(self, request, queryset):
        self._each(request, queryset, lambda o: services.order_refund_refuse(order=o), "kept")

    @admin.action(description="Cancel (refunds a paid order)")
    def cancel_orders(self, request, queryset):
        self._each(request, queryset, lambda o: services.order_cancel(order=o, actor="staff"), "cancelled")
