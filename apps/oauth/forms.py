"""The log-in form (the site's /login/, which the OAuth consent sends people to)."""
from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError

from apps.core.security.throttle import client_address
from apps.oauth import rules, selectors


class ThrottledAuthenticationForm(AuthenticationForm):
    """Django's form; when the failed-login throttle (apps.oauth.auth_backends) refused or has just
    locked, the error says so and when to try again, instead of "wrong password"."""

    throttled_seconds = 0

    def clean(self):
        try:
            return super().clean()
        except ValidationError:
            address = client_address(self.request.META) if self.request is not None else None
            wait = selectors.login_locked_for(username=self.cleaned_data.get("username"), address=address)
            if wait:
                self.throttled_seconds = wait
                raise ValidationError(rules.login_throttled_message(wait), code="throttled") from None
            raise
