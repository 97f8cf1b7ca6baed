"""Device sign-in's paths (docs/decisions.md: Device sign-in), mounted by apps.oauth.urls in its namespace.
Each answers with and without a trailing slash (docs/decisions.md: Requests)."""
from django.urls import re_path

from apps.oauth.device import views

urlpatterns = [
    re_path(
        r"^login/oauth/device_authorization/?$",
        views.DeviceAuthorizationView.as_view(),
        name="device-authorization",
    ),
    re_path(r"^device/?$", views.DeviceView.as_view(), name="device"),
]
