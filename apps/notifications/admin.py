from django.contrib import admin

from apps.core.adminkit.readonly import ReadOnlyAdmin
from apps.notifications.models import Notification


@admin.register(Notification)
class NotificationAdmin(ReadOnlyAdmin):
    """Written only by services: moderators look at what a member was told (and whether it was mailed)."""

    list_display = ("recipient", "kind", "actor", "subject", "created", "read_at", "emailed_at")
    list_filter = ("kind", ("read_at", admin.EmptyFieldListFilter), ("emailed_at", admin.EmptyFieldListFilter))
    list_select_related = ("recipient", "actor")
    search_fields = ("recipient__username", "actor__username", "subject")
    raw_id_fields = ("recipient", "actor")
