from typing import ClassVar, Self

from django.contrib.auth.models import AbstractUser, UserManager
from django.core.validators import RegexValidator
from django.db import models
from django.db.models.functions import Lower

from apps.core.db.loading import LeanFromDb
from apps.core.domain.licenses import USER_LICENSE_CHOICES

username_validator = RegexValidator(
    r"^[A-Za-z0-9_-]+$", "Use letters, digits, underscores and dashes only."
)
# `me` names the caller in every /users/{username} path and `unread-message-count` is a sibling path
# (spec §4.1), so nobody may be called that. The rest are site paths and names that would mislead.
RESERVED_USERNAMES = {
    "me",
    "unread-message-count",
    "account",
    "accounts",
    "admin",
    "administrator",
    "api",
    "developers",
    "docs",
    "login",
    "logout",
    "moderator",
    "root",
    "signup",
    "static",
    "staff",
    "support",
    "system",
    "thingyard",
    "users",
}


# django-stubs cannot name the reverse manager of DOT's swapped Application ("%(app_label)s_%(class)s").
class User(LeanFromDb, AbstractUser):  # type: ignore[django-manager-missing]
    """A Thingyard user. `username` is the spec's `name`."""

    class NotifyEmail(models.TextChoices):
        NONE = "none", "No e-mail"
        EACH = "each", "An e-mail for each notification"
        DAILY = "daily", "A daily digest"

    username = models.CharField(
        max_length=40,
        unique=True,
        validators=[username_validator],
        error_messages={"unique": "A user with that name already exists."},
    )
    email = models.EmailField(blank=True)
    email_verified = models.BooleanField(default=False)
    bio = models.TextField(blank=True, max_length=4000)
    location = models.CharField(max_length=100, blank=True)
    default_license = models.CharField(max_length=16, choices=USER_LICENSE_CHOICES, default="cc-sa")
    last_active = models.DateTimeField(null=True, blank=True)
    avatar = models.CharField(max_length=512, blank=True, help_text="Object-store key of the avatar image")
    cover = models.CharField(max_length=512, blank=True, help_text="Object-store key of the cover image")
    suspended_reason = models.TextField(blank=True)
    # How the member hears of notifications by e-mail (apps.notifications); the digest by default.
    notify_email = models.CharField(max_length=8, choices=NotifyEmail.choices, default=NotifyEmail.DAILY)
    # The bell's count, kept by apps.notifications (recounted under this row's lock at each change), so
    # the header of every page reads it from the signed-in user's row without a query of its own.
    notifications_unread = models.PositiveIntegerField(default=0)

    objects: ClassVar[UserManager[Self]] = UserManager()  # type: ignore[assignment]

    class Meta:
        constraints = [models.UniqueConstraint(Lower("username"), name="accounts_user_username_ci_unique")]

    @property
    def registered(self):
        return self.date_joined

    @property
    def full_name(self) -> str:
        return f"{self.first_name} {self.last_name}".strip()

    def refresh_from_db(self, using=None, fields=None, from_queryset=None):
        """A user loaded with a few fields (the cached token row: apps.oauth.selectors) loads the rest of
        its profile in one query the first time a deferred field is read, not one query per field; the
        password hash only when it is itself asked for (docs/security.md, issue 22 finding 6)."""
        if fields is not None and len(fields) == 1 and fields[0] != "password":
            deferred = self.get_deferred_fields()
            if fields[0] in deferred:
                fields = [name for name in deferred if name != "password"]
        super().refresh_from_db(using=using, fields=fields, from_queryset=from_queryset)


class Follow(models.Model):
    follower = models.ForeignKey(User, on_delete=models.CASCADE, related_name="following_links")
    followed = models.ForeignKey(User, on_delete=models.CASCADE, related_name="follower_links")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["follower", "followed"], name="accounts_follow_unique"),
            models.CheckConstraint(condition=~models.Q(follower=models.F("followed")), name="accounts_follow_not_self"),
        ]

    def __str__(self) -> str:
        return f"{self.follower} follows {self.followed}"


class Message(models.Model):
    """A private message between users; the API only counts the unread ones (spec §4.1)."""

    sender = models.ForeignKey(User, on_delete=models.CASCADE, related_name="sent_messages")
    recipient = models.ForeignKey(User, on_delete=models.CASCADE, related_name="received_messages")
    body = models.TextField(max_length=10000)
    created = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["recipient", "read_at"])]
        verbose_name = "private message"
        verbose_name_plural = "private messages"

    def __str__(self) -> str:
        return f"Message {self.pk} from {self.sender} to {self.recipient}"
