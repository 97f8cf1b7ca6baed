"""Thing apps (spec §4.11): the access tokens the Thing page hands to an app's iframe.

An app itself is an oauth.Application (app_type "thing"), a user's consent an oauth.AppAuthorization;
this app only remembers which access tokens the host issued, so it reuses its own and never one the app
obtained through the web flow (whose refresh would revoke it under the iframe).
"""

from django.conf import settings
from django.db import models


class HostToken(models.Model):
    """An access token issued by the Thing page to a Thing app's iframe (revoked with the consent)."""

    access_token = models.OneToOneField(
        settings.OAUTH2_PROVIDER_ACCESS_TOKEN_MODEL, on_delete=models.CASCADE, related_name="thing_app_host"
    )
    created = models.DateTimeField(auto_now_add=True)
    # The token's value, sealed (apps.core.security.sealing; docs/security.md, issue 22 finding 6): the token row
    # keeps only its checksum, and the host hands the same token to every tab while it lives.
    sealed_token = models.TextField(blank=True, default="")
