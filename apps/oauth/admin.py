"""Safe, read-only admins for DOT's credential models (the applications' admin is the app lifecycle's:
apps/developers/admin.py).

Only what moderators use is registered: access and refresh tokens (to revoke them) and users' consents.
Authorization codes (Grant), ID tokens and the exchanged-code log are the OAuth flows' own bookkeeping,
short-lived or internal: moderators never act on them, so they are left out of the admin
(docs/decisions.md: Moderation dashboard and admin).

Credentials never reach an admin page: the client secret is not shown at all (DOT keeps only its hash
anyway), tokens and codes appear masked to their last 4 characters and are not searchable (a search
term would land in access logs and browser history).
"""
from django.contrib import admin
from oauth2_provider import admin as dot_admin  # registers DOT's admins now, so they can be replaced below
from oauth2_provider.models import (
    get_access_token_model,
    get_application_model,
    get_grant_model,
    get_id_token_model,
    get_refresh_token_model,
)

from apps.core.adminkit.readonly import ReadOnlyAdmin
from apps.oauth.models import AppAuthorization

Application = get_application_model()
AccessToken = get_access_token_model()
RefreshToken = get_refresh_token_model()
Grant = get_grant_model()
IDToken = get_id_token_model()

mask_credential = dot_admin.mask_credential


def _token_label(obj) -> str:
    """Tokens are stored as their checksum only (docs/security.md, issue 22 finding 6): a row is named by
    the checksum's first characters (a token from before the migration, masked)."""
    if obj.token:
        return mask_credential(obj.token)
    return f"sha256:{obj.token_checksum[:12]}…" if obj.token_checksum else "—"
USER_SEARCH_FIELDS = ("user__username", "user__email")

for _model in (Application, AccessToken, RefreshToken, Grant, IDToken):
    # Only DOT's own admins: apps.developers.admin registers the applications' (whichever loads first).
    if admin.site.is_registered(_model) and type(admin.site.get_model_admin(_model)).__module__ == dot_admin.__name__:
        admin.site.unregister(_model)


class _ReadOnlyCredentialAdmin(ReadOnlyAdmin):
    """Tokens are issued by the OAuth flows and the portal; the admin only lists and revokes them."""

    list_select_related = ("application", "user")
    search_fields = ("application__client_id", "application__name") + USER_SEARCH_FIELDS
    list_filter = ("application",)
    raw_id_fields = ("user",)


@admin.register(AccessToken)
class AccessTokenAdmin(_ReadOnlyCredentialAdmin):
    list_display = ("pk", "masked_token", "user", "application", "scope", "expires", "created")
    fields = ("masked_token", "user", "application", "scope", "expires", "created", "updated")
    actions = ("revoke_tokens",)
    revoke_tokens = dot_admin.AccessTokenAdmin.revoke_tokens

    def has_delete_permission(self, request, obj=None):
        return False  # revoke instead: a raw delete would orphan a bound refresh token (see DOT's admin)

    @admin.display(description="token")
    def masked_token(self, obj):
        return _token_label(obj)


@admin.register(RefreshToken)
class RefreshTokenAdmin(_ReadOnlyCredentialAdmin):
    list_display = ("pk", "masked_token", "user", "application", "created", "revoked")
    fields = ("masked_token", "user", "application", "created", "updated", "revoked")
    actions = ("revoke_tokens",)
    revoke_tokens = dot_admin.RefreshTokenAdmin.revoke_tokens

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="token")
    def masked_token(self, obj):
        return _token_label(obj)


@admin.register(AppAuthorization)
class AppAuthorizationAdmin(ReadOnlyAdmin):
    list_display = ("application", "user", "created")
    list_select_related = ("application", "user")
    search_fields = ("application__name", "application__client_id") + USER_SEARCH_FIELDS
    list_filter = ("created",)
    fields = ("application", "user", "created")

    def has_delete_permission(self, request, obj=None):
        return False
