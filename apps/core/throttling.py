"""DRF's hook for the rate limit (spec §8); the counting itself is apps.core.ratelimit."""
from rest_framework.throttling import BaseThrottle


class RateLimitThrottle(BaseThrottle):
    """Refuse a request that BearerTokenAuthentication counted over the limit; DRF then answers 429.

    The request was already counted at authentication (see apps.core.authentication), so this only
    reads the verdict: a request is counted once however many times DRF asks. Anonymous requests carry
    no count; they get a 401 from the permission check, or are public documentation.
    """

    def allow_request(self, request, view):
        self.state = getattr(request._request, "rate_limit", None)
        return self.state is None or self.state.allowed

    def wait(self):
        return self.state.retry_after()
