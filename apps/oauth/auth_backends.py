"""Django's authentication backend with the failed-login throttle (docs/security.md, issue 14 finding 7).

Every password check of the site goes through `django.contrib.auth.authenticate()` (the log-in page, the
admin's log-in, the OAuth consent's log-in), so the throttle lives here, once: while the account or the
caller's address is locked the password is not even hashed, and the right one is refused too.
"""
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import PermissionDenied

from apps.core.security.throttle import client_address
from apps.oauth import selectors, services


class LoginThrottled(PermissionDenied):
    """authenticate() stops at a PermissionDenied: no other backend is asked, the answer is None."""

    def __init__(self, seconds: int):
        self.seconds = seconds
        super().__init__(f"Log-in locked for {seconds} seconds")


class ThrottledModelBackend(ModelBackend):
    def authenticate(self, request, username=None, password=None, **kwargs):
        if username is None:
            username = kwargs.get(get_user_model().USERNAME_FIELD)
        if username is None or password is None:
            return None
        address = client_address(request.META) if request is not None else None
        wait = selectors.login_locked_for(username=username, address=address)
        if wait:
            raise LoginThrottled(wait)
        user = super().authenticate(request, username=username, password=password, **kwargs)
        if user is None:
            services.login_failure_record(username=username, address=address)
        else:
            services.login_success_record(username=username)
        return user
