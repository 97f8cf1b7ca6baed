import secrets
import base64

from django.conf import settings
from django.db import models
from oauth2_provider.models import AbstractApplication


def new_webhook_secret() -> str:
    # Standard Webhooks: `whsec_` + base64 of the raw key.
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


class Application(AbstractApplication):
    """A registered third-party app (spec §5 registration fields), swapped in for DOT's model."""

    class AppType(models.TextChoices):
        WEB = "web", "Web"
        THING = "thing", "Thing"
        MOBILE = "mobile", "Mobile"
        DESKTOP = "desktop", "Desktop"

    class Approval(models.TextChoices):
        PENDING = "pending", "Pending review"
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected"

    description = models.TextField(max_length=1000, blank=True)
    app_type = models.CharField(max_length=16, choices=AppType.choices, default=AppType.WEB)
    info_url = models.URLField(max_length=500, blank=True)
    application_url = models.URLField(max_length=500, blank=True)
    approval_state = models.CharField(max_length=16, choices=Approval.choices, default=Approval.PENDING)
    approval_reason = models.TextField(blank=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    webhook_url = models.URLField(max_length=500, blank=True)
    webhook_secret = models.CharField(max_length=80, default=new_webhook_secret)

    class Meta(AbstractApplication.Meta):
        swappable = "OAUTH2_PROVIDER_APPLICATION_MODEL"

    @property
    def is_approved(self) -> bool:
        return self.approval_state == self.Approval.APPROVED


class AppAuthorization(models.Model):
    """A user's consent to an app: counts toward the 10-user limit and lists the user's authorized apps."""

    application = models.ForeignKey(
        settings.OAUTH2_PROVIDER_APPLICATION_MODEL, on_delete=models.CASCADE, related_name="authorizations"
    )
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="app_authorizations")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["application", "user"], name="oauth_appauth_unique")]
