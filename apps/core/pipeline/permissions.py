from rest_framework.permissions import BasePermission


class IsTokenUser(BasePermission):
    """Every API request needs a user's OAuth token (spec §5). An app's read-only token is not enough."""

    def has_permission(self, request, view):
        return request.auth is not None and request.user is not None and request.user.is_authenticated


class IsAppToken(BasePermission):
    """A user's token or an application's read-only token (spec §5: orders)."""

    def has_permission(self, request, view):
        return request.auth is not None


# docs/decisions.md (Scopes, round 3): `read` and `write`; a token whose scope is empty was authorized
# without one and carries both. An unsafe method needs `write`.
WRITE_SCOPE = "write"


def scope_allows_write(scope: str | None) -> bool:
    names = (scope or "").split()
    return not names or WRITE_SCOPE in names
