from datetime import timedelta

from django.contrib import admin, messages
from django.db.models import Count, Max, Q
from django.urls import reverse
from django.utils import timezone
from oauth2_provider.models import get_application_model

from apps.core.adminkit import dashboard
from apps.core.domain.exceptions import RuleViolation
from apps.webhooks import services
from apps.webhooks.models import Attempt, Delivery

Application = get_application_model()


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


# --- the moderation dashboard's panel (apps/core/adminkit/dashboard.py) ---------------------------------------------

FAILING_WINDOW = timedelta(days=7)


def _failing_endpoints() -> list[dashboard.Row]:
    """Apps whose endpoint is disabled (it answered 410), or whose deliveries of the last 7 days gave up
    or are being retried after a failure; the worst first. Two queries."""
    since = timezone.now() - FAILING_WINDOW
    failing = (
        Delivery.objects.filter(created__gte=since)
        .filter(Q(status=Delivery.Status.FAILED) | Q(status=Delivery.Status.PENDING, attempt_count__gte=1))
        .values("application_id", "application__name", "application__webhook_url")
        .annotate(count=Count("id"), last=Max("created"))
        .order_by("-count", "-last")[:20]
    )
    rows = {
        entry["application_id"]: dashboard.Row(
            label=entry["application__name"],
            url=reverse("admin:webhooks_delivery_changelist") + f"?application__id__exact={entry['application_id']}",
            detail=f"{entry['count']} failing deliveries to {entry['application__webhook_url'] or '(no URL)'}",
            when=entry["last"],
        )
        for entry in failing
    }
    disabled = Application.objects.filter(webhook_disabled_at__isnull=False).order_by("-webhook_disabled_at")[:20]
    for application in disabled:
        rows[application.pk] = dashboard.Row(
            label=application.name,
            url=reverse("admin:webhooks_delivery_changelist") + f"?application__id__exact={application.pk}",
            detail=f"Endpoint disabled: {application.webhook_disabled_reason or 'it answered 410 Gone'}",
            when=application.webhook_disabled_at,
        )
    return list(rows.values())


dashboard.dashboard_panel_register(dashboard.Panel(
    key="webhooks-failing",
    title="Failing webhook endpoints",
    rows=_failing_endpoints,
    permission="webhooks.view_delivery",
    empty="Every webhook endpoint is answering.",
    more=lambda: ("Every failed delivery", reverse("admin:webhooks_delivery_changelist") + "?status__exact=failed"),
))
