from rest_framework.throttling import BaseThrottle


class RateLimitThrottle(BaseThrottle):
    """Placeholder: completed by the API-conventions work (300 per 5 minutes per app and user, Redis)."""

    def allow_request(self, request, view):
        return True
