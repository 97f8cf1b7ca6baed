import secrets
import base64

from django.conf import settings
from django.db import models
from django.urls import reverse
from oauth2_provider.models import AbstractApplication

from apps.core.db.loading import LeanFromDb
from apps.core.pipeline import versions
from apps.oauth.device.models import DeviceGrant  # noqa: F401  (device sign-in's model, in its own module)


def new_webhook_secret() -> str:
    # Standard Webhooks: `whsec_` + base64 of the raw key.
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


class Application(LeanFromDb, AbstractApplication):
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
    # docs/decisions.md: a 410 from the endpoint disables it until the developer saves a URL again.
    webhook_disabled_at = models.DateTimeField(null=True, blank=True)
    webhook_disabled_reason = models.CharField(max_length=200, blank=True)
    # The app's logo: a key in the object store (default storage), "" for none (docs/decisions.md:
    # The developer portal).
    logo = models.CharField(max_length=200, blank=True)
    # When the app last authenticated with its secret or one of its tokens was used, to the minute
    # (apps.oauth.usage writes it at most once a minute per process).
    last_used_at = models.DateTimeField(null=True, blank=True)
    # docs/decisions.md: Wire versions. The shapes its tokens get unless a request names another.
    wire_version = models.CharField(
        "wire version", max_length=16, choices=versions.CHOICES, default=versions.DEFAULT,
        help_text="The API shapes this app's requests get unless they send a Thingyard-Version header.",
    )

    class Meta(AbstractApplication.Meta):
        swappable = "OAUTH2_PROVIDER_APPLICATION_MODEL"

    def get_absolute_url(self) -> str:
        # DOT's reverses its own "oauth2_provider:detail", a namespace Thingyard does not mount (a 500 in the
        # admin). The app's page is its owner's developer page; the admin does not offer it (staff are not
        # its owner).
        return reverse("developers:app-detail", args=[self.pk])

    @property
    def is_approved(self) -> bool:
        return self.approval_state == self.Approval.APPROVED

    def allows_grant_type(self, *grant_types) -> bool:
        # DOT keeps one grant type per app; every Thingyard app may use code (+ refresh), and Web and
        # Thing apps the implicit grant too (spec §5), whatever `authorization_grant_type` says.
        from apps.oauth.rules import application_grant_types

        return bool(application_grant_types(app_type=self.app_type) & set(grant_types))


class AppAuthorization(LeanFromDb, models.Model):
    """A user's consent to an app: counts toward the 10-user limit and lists the user's authorized apps."""

    application = models.ForeignKey(
        settings.OAUTH2_PROVIDER_APPLICATION_MODEL, on_delete=models.CASCADE, related_name="authorizations"
    )
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="app_authorizations")
    created = models.DateTimeField(auto_now_add=True)
    # The scopes the user granted (space-separated, the union of every consent), shown on /account/apps.
    scope = models.TextField(blank=True)
    # When the app last used one of this user's tokens, to the minute (apps.oauth.usage).
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["application", "user"], name="oauth_appauth_unique")]
        verbose_name = "app authorization (consent)"
        verbose_name_plural = "app authorizations (consents)"

    def __str__(self) -> str:
        return f"{self.user} authorized {self.application}"


class AuthorizationCodeUse(models.Model):
    """An authorization code already exchanged, so a replay can revoke what it minted (RFC 6749 §4.1.2)."""

    code_checksum = models.CharField(max_length=64, unique=True)  # sha256 of the code, never the code
    application = models.ForeignKey(
        settings.OAUTH2_PROVIDER_APPLICATION_MODEL, on_delete=models.CASCADE, related_name="+"
    )
    access_token = models.ForeignKey(
        settings.OAUTH2_PROVIDER_ACCESS_TOKEN_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    # The refresh-token family minted with it: rotation replaces the access token, the family stays.
    token_family = models.UUIDField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True, db_index=True)

    def __str__(self) -> str:
        return f"Authorization code used for {self.application}"
