from django.contrib import admin, messages

from apps.core.exceptions import RuleViolation
from apps.webhooks import services
from apps.webhooks.models import Attempt, Delivery


class AttemptInline(admin.TabularInline):
    model = Attempt
    extra = 0
    can_delete = False
    ordering = ["-number"]
    fields = (
        "number", "started_at", "url", "remote_address", "status_code", "duration_ms", "error", "error_detail",
        "response_excerpt",
    )
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin):
    list_display = ["id", "application", "event", "status", "attempt_count", "next_attempt_at", "created", "delivered_at"]
    list_filter = ["status", "event", "application"]
    list_select_related = ["application"]
    search_fields = ["message_id", "application__name"]
    readonly_fields = [f.name for f in Delivery._meta.fields]
    inlines = [AttemptInline]
    actions = ["redeliver"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_redeliver_permission(self, request):
        # The rows are read-only in the admin; sending again is the one write, for staff who may change them.
        return request.user.has_perm("webhooks.change_delivery")

    @admin.action(description="Redeliver (same webhook-id, due now)", permissions=["redeliver"])
    def redeliver(self, request, queryset):
        sent = 0
        for delivery in queryset:
            try:
                services.delivery_redeliver(delivery=delivery)
                sent += 1
            except RuleViolation as exc:
                self.message_user(request, f"Delivery {delivery.pk}: {' '.join(exc.errors or [exc.message])}",
                                  messages.WARNING)
        if sent:
            self.message_user(request, f"{sent} deliveries queued again.", messages.SUCCESS)


@admin.register(Attempt)
class AttemptAdmin(admin.ModelAdmin):
    list_display = ["id", "delivery", "number", "status_code", "duration_ms", "started_at", "remote_address"]
    list_filter = ["status_code"]
    list_select_related = ["delivery"]
    readonly_fields = [f.name for f in Attempt._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
