from django.contrib import admin


class ReadOnlyAdmin(admin.ModelAdmin):
    """Records written only by services (tokens, follows, audit rows): moderators inspect, never hand-craft."""

    def get_readonly_fields(self, request, obj=None):
        return self.fields or ()

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
