"""Site pages of notifications (issue 26); no API endpoint (the spec has none)."""
from django.urls import path

from apps.notifications import pages

urlpatterns: list = [
    path("notifications", pages.notification_list_page, name="notifications"),
    path("notifications/read-all", pages.notifications_read_all, name="notifications-read-all"),
    path("notifications/<int:notification_id>/read", pages.notification_read, name="notification-read"),
]
