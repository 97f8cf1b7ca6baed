"""spec §4.2 package-url."""
from django.urls import path

from apps.uploads.packages import views

urlpatterns: list = [
    path("things/<int:thing_id>/package-url", views.ThingPackageUrlView.as_view(), name="thing-package-url"),
]
