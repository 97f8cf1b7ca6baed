from django.contrib import admin

from apps.activity.models import Event
from apps.core.adminkit.readonly import ReadOnlyAdmin


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin):
    list_display = ("recipient", "kind", "actor", "target_type", "target_id", "created")
    list_filter = ("kind",)
    list_select_related = ("recipient", "actor")
    search_fields = ("recipient__username", "actor__username")
    raw_id_fields = ("recipient", "actor")
