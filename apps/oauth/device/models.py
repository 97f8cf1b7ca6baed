from django.conf import settings
from django.db import models
from oauth2_provider.models import AbstractDeviceGrant


class DeviceGrant(AbstractDeviceGrant):
    """A device sign-in under way (RFC 8628), swapped in for DOT's (OAUTH2_PROVIDER_DEVICE_GRANT_MODEL).

    `device_code` holds the SHA-256 of the code the device polls with, never the code (like tokens, it is
    a credential); `user_code` holds the code the person types, normalized (apps.oauth.device.rules), and
    is unique so the /device page finds it by index. The row is deleted when its token is issued.
    """

    application = models.ForeignKey(
        settings.OAUTH2_PROVIDER_APPLICATION_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    # When the device last polled (None: not yet); `slow_down` compares it with `interval`. DOT's field
    # is auto_now, which would make the device's first poll look too early.
    last_checked = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta(AbstractDeviceGrant.Meta):
        constraints = [
            models.UniqueConstraint(fields=["device_code"], name="oauth_devicegrant_unique_device_code"),
            models.UniqueConstraint(fields=["user_code"], name="oauth_devicegrant_unique_user_code"),
        ]
        indexes = [models.Index(fields=["expires"], name="oauth_devicegrant_expires")]

    def __str__(self) -> str:
        return f"Device sign-in for {self.client_id} ({self.status})"
