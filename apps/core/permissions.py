from rest_framework.permissions import BasePermission


class IsTokenUser(BasePermission):
    """Every API request needs a user's OAuth token (spec §5). An app's read-only token is not enough."""

    def has_permission(self, request, view):
        return request.auth is not None and request.user is not None and request.user.is_authenticated


class IsAppToken(BasePermission):
    """A user's token or an application's read-only token (spec §5: orders)."""

    def has_permission(self, request, view):
        return request.auth is not None
