"""The OAuth provider's paths (spec §5) under {auth_url}, plus login/logout and the user's app list.

Each path answers with and without a trailing slash (docs/decisions.md: Requests), without a redirect.
"""
from django.urls import re_path

from apps.oauth import views
from apps.oauth.device import urls as device_urls

app_name = "oauth"

urlpatterns = [
    re_path(r"^login/oauth/authorize/?$", views.AuthorizeView.as_view(), name="authorize"),
    re_path(r"^login/oauth/access_token/?$", views.AccessTokenView.as_view(), name="token"),
    re_path(r"^login/oauth/tokeninfo/?$", views.TokenInfoView.as_view(), name="tokeninfo"),
    re_path(r"^login/oauth/revoke/?$", views.RevokeView.as_view(), name="revoke"),
    re_path(
        r"^\.well-known/oauth-authorization-server/?$", views.ServerMetadataView.as_view(), name="metadata"
    ),
    re_path(r"^login/?$", views.LoginView.as_view(), name="login"),
    re_path(r"^logout/?$", views.LogoutView.as_view(), name="logout"),
    re_path(r"^account/apps/?$", views.AuthorizedAppListView.as_view(), name="authorized-apps"),
    re_path(
        r"^account/apps/(?P<application_id>[0-9]+)/revoke/?$",
        views.AuthorizedAppRevokeView.as_view(),
        name="authorized-app-revoke",
    ),
    *device_urls.urlpatterns,
]
