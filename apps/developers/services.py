"""Writes of the developer portal and the moderators' review (spec §3, §5, §6; docs/decisions.md: OAuth, Webhooks)."""
import io
import logging
import uuid
from datetime import timedelta

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from PIL import Image as PILImage

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from django.utils import timezone
from oauth2_provider.generators import generate_client_secret
from oauth2_provider.models import AbstractApplication, get_access_token_model, get_application_model

from apps.core.pipeline import versions
from apps.core.domain.exceptions import RuleViolation, ValidationFailed
from apps.developers import rules
from apps.developers.models import ReviewRequest
from apps.oauth.models import new_webhook_secret
from apps.oauth.tokens import generate_token

Application = get_application_model()
AccessToken = get_access_token_model()
logger = logging.getLogger(__name__)

READONLY_TOKEN_LIFETIME = timedelta(days=3650)
# The portal calls DOT's redirect_uris "callback URL" (spec §5).
_MODEL_TO_FORM_FIELD = {"redirect_uris": "callback_url", "__all__": "__all__"}
_UNSET = object()
_REVIEW_FIELDS = ["approval_state", "approval_reason", "reviewed_at", "reviewed_by", "updated"]


def _full_clean(application) -> None:
    """Run the model's own validation (DOT's redirect-URI checks, lengths) and report it per portal field."""
    try:
        application.full_clean(exclude=["user", "reviewed_by"])
    except DjangoValidationError as exc:
        errors = {_MODEL_TO_FORM_FIELD.get(k, k): v for k, v in exc.message_dict.items()}
        raise ValidationFailed(errors=errors) from None


def _registration_check(application) -> None:
    errors = rules.application_registration_blockers(
        app_type=application.app_type,
        info_url=application.info_url,
        application_url=application.application_url,
        callback_url=application.redirect_uris,
        client_type=application.client_type,
    )
    if errors:
        raise ValidationFailed(errors=errors)


def _locked(application):
    return Application.objects.select_for_update().get(pk=application.pk)


def application_register(
    *,
    owner,
    name: str,
    description: str,
    app_type: str,
    info_url: str,
    callback_url: str,
    application_url: str = "",
    client_type: str = Application.CLIENT_CONFIDENTIAL,
) -> tuple[AbstractApplication, str]:
    """Register a pending (private, ≤10 users) app; returns it and its plain client secret, shown once."""
    plain_secret = generate_client_secret()
    application = Application(
        user=owner,
        name=name.strip(),
        description=description.strip(),
        app_type=app_type,
        info_url=info_url,
        application_url=application_url,
        redirect_uris=callback_url.strip(),
        client_type=client_type,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        client_secret=plain_secret,
        hash_client_secret=True,
        approval_state=Application.Approval.PENDING,
    )
    _registration_check(application)
    _full_clean(application)
    application.save()  # DOT's ClientSecretField hashes the secret here; the plain one is never stored.
    return application, plain_secret


def application_update(
    *,
    application,
    name=_UNSET,
    description=_UNSET,
    app_type=_UNSET,
    info_url=_UNSET,
    application_url=_UNSET,
    callback_url=_UNSET,
    client_type=_UNSET,
    webhook_url=_UNSET,
) -> AbstractApplication:
    """Change the owner-editable fields that were given; the others stay as they are."""
    changes = {
        "name": name if name is _UNSET else name.strip(),
        "description": description if description is _UNSET else description.strip(),
        "app_type": app_type,
        "info_url": info_url,
        "application_url": application_url,
        "redirect_uris": callback_url if callback_url is _UNSET else callback_url.strip(),
        "client_type": client_type,
        "webhook_url": webhook_url,
    }
    changes = {k: v for k, v in changes.items() if v is not _UNSET}
    with transaction.atomic():
        locked = _locked(application)
        for field, value in changes.items():
            setattr(locked, field, value)
        _registration_check(locked)
        webhook_errors = rules.webhook_url_blockers(locked.webhook_url) if "webhook_url" in changes else []
        if webhook_errors:
            raise ValidationFailed(errors={"webhook_url": webhook_errors})
        _full_clean(locked)
        update_fields = [*changes, "updated"]
        if "webhook_url" in changes and locked.webhook_url and locked.webhook_disabled_at is not None:
            # docs/decisions.md (Webhooks): an endpoint disabled by a 410 is re-enabled by saving its URL again.
            locked.webhook_disabled_at = None
            locked.webhook_disabled_reason = ""
            update_fields += ["webhook_disabled_at", "webhook_disabled_reason"]
        locked.save(update_fields=update_fields)
    return locked


def application_delete(*, application) -> None:
    """Delete the app; its tokens, grants and authorizations go with it (database cascades)."""
    application.delete()


def application_rotate_secret(*, application) -> str:
    """Replace the client secret; returns the new plain secret, shown once. The old one stops working."""
    plain_secret = generate_client_secret()
    with transaction.atomic():
        locked = _locked(application)
        locked.client_secret = plain_secret
        locked.hash_client_secret = True
        locked.save(update_fields=["client_secret", "hash_client_secret", "updated"])
    application.client_secret = locked.client_secret
    return plain_secret


def application_rotate_webhook_secret(*, application) -> str:
    """Replace the `whsec_…` webhook signing secret (docs/decisions.md: Webhooks); returns it."""
    secret = new_webhook_secret()
    with transaction.atomic():
        locked = _locked(application)
        locked.webhook_secret = secret
        locked.save(update_fields=["webhook_secret", "updated"])
    application.webhook_secret = secret
    return secret


def application_issue_readonly_token(*, application):
    """Issue the app's read-only token (scope orders:read, no user), deleting any previous one.

    Like the client secret it is shown once: the row keeps only its checksum (DOT's RFC 9700 storage),
    and the plain value lives only on the returned instance's `token`, for the caller to show.
    """
    plain = generate_token()
    with transaction.atomic():
        locked = _locked(application)  # two clicks at once must not leave two live read-only tokens
        AccessToken.objects.filter(
            application=locked, user__isnull=True, scope=rules.READONLY_TOKEN_SCOPE
        ).delete()
        token = AccessToken(
            application=locked,
            user=None,
            scope=rules.READONLY_TOKEN_SCOPE,
            expires=timezone.now() + READONLY_TOKEN_LIFETIME,
        )
        token._raw_token = plain  # TokenChecksumField hashes this; the `token` column stays empty
        token.token = ""
        token.save()
    token.token = plain  # in memory only
    return token


def application_logo_replace(*, application, upload) -> str:
    """Check the uploaded image and make it the app's logo; returns its storage key.

    The bytes are checked with Pillow (format, pixel size, not truncated), never trusted from the
    upload's name or content type. Side effects: the previous logo is deleted from the store on commit.
    """
    data = upload.read(rules.LOGO_MAX_BYTES + 1)
    image_format, width, height = _image_facts(data)
    reasons = rules.logo_blockers(size=len(data), image_format=image_format, width=width, height=height)
    if reasons or image_format is None:
        raise ValidationFailed(errors={"logo": reasons})
    extension, content_type = rules.LOGO_FORMATS[image_format]
    key = f"app-logos/{application.pk}/{uuid.uuid4().hex}.{extension}"
    default_storage.save(key, ContentFile(data, name=key))
    try:
        with transaction.atomic():
            locked = _locked(application)
            previous = locked.logo
            locked.logo = key
            locked.save(update_fields=["logo", "updated"])
            if previous:
                transaction.on_commit(lambda: _logo_delete(previous))
    except Exception:
        _logo_delete(key)  # nothing points at it
        raise
    application.logo = key
    return key


def application_logo_remove(*, application) -> None:
    """Remove the app's logo. Side effects: the stored image is deleted on commit."""
    with transaction.atomic():
        locked = _locked(application)
        previous = locked.logo
        if not previous:
            return
        locked.logo = ""
        locked.save(update_fields=["logo", "updated"])
        transaction.on_commit(lambda: _logo_delete(previous))
    application.logo = ""


def application_wire_version_set(*, application, version: str) -> None:
    """Pin the app's wire version (docs/decisions.md: Wire versions): the shapes its tokens get unless a
    request sends `Thingyard-Version`. 400 for an unknown version. Saving the app drops its tokens'
    cached rows (apps.oauth.signals), so the next request of each token already answers in it."""
    if version not in versions.VERSIONS:
        message = f"Choose one of {', '.join(versions.VERSIONS)}."
        raise ValidationFailed(f"wire_version: {message}", errors={"wire_version": [message]})
    with transaction.atomic():
        locked = _locked(application)
        if locked.wire_version != version:
            locked.wire_version = version
            locked.save(update_fields=["wire_version", "updated"])
    application.wire_version = version


def _image_facts(data: bytes) -> tuple[str | None, int, int]:
    """(Pillow's format name, width, height) of `data`, or (None, 0, 0) when it is no readable image."""
    try:
        with PILImage.open(io.BytesIO(data)) as image:
            image_format, (width, height) = image.format, image.size
            if width * height > rules.LOGO_MAX_SIDE * rules.LOGO_MAX_SIDE * 4:
                return image_format, width, height  # too large: refused without decoding it
            image.load()  # decodes: a truncated or corrupt file fails here
    except (OSError, ValueError, SyntaxError, PILImage.DecompressionBombError):
        return None, 0, 0
    return image_format, width, height


def _logo_delete(key: str) -> None:
    try:
        default_storage.delete(key)
    except Exception as exc:  # an orphan in the store is harmless; the row no longer points at it
        logger.warning("Cannot delete the old app logo %s: %s", key, exc)


def application_submit_for_review(*, application, submitted_by) -> AbstractApplication:
    """The owner asks moderators to publish the app (spec §3); a rejected app goes back to pending."""
    with transaction.atomic():
        locked = _locked(application)
        if locked.approval_state == Application.Approval.PENDING and hasattr(locked, "review_request"):
            return locked  # already in the queue: repeating the request changes nothing
        blockers = rules.application_submit_blockers(locked)
        if blockers:
            raise RuleViolation("The application cannot be submitted for review.", errors=blockers)
        ReviewRequest.objects.update_or_create(
            application=locked, defaults={"submitted_at": timezone.now(), "submitted_by": submitted_by}
        )
        if locked.approval_state != Application.Approval.PENDING:
            locked.approval_state = Application.Approval.PENDING
            locked.save(update_fields=["approval_state", "updated"])
    return Application.objects.select_related("review_request").get(pk=locked.pk)


def application_approve(*, application, moderator) -> AbstractApplication:
    """A moderator publishes the app: it is no longer limited to 10 users (spec §3, §8)."""
    with transaction.atomic():
        locked = _locked(application)
        if locked.approval_state == Application.Approval.APPROVED:
            return locked
        locked.approval_state = Application.Approval.APPROVED
        locked.approval_reason = ""
        locked.reviewed_at = timezone.now()
        locked.reviewed_by = moderator
        locked.save(update_fields=_REVIEW_FIELDS)
    return locked


def application_reject(*, application, moderator, reason: str) -> AbstractApplication:
    """A moderator refuses (or withdraws) publication with a reason the owner sees on the edit page."""
    reason = (reason or "").strip()
    if not reason:
        raise ValidationFailed(errors={"reason": ["Give the reason for the rejection."]})
    with transaction.atomic():
        locked = _locked(application)
        locked.approval_state = Application.Approval.REJECTED
        locked.approval_reason = reason
        locked.reviewed_at = timezone.now()
        locked.reviewed_by = moderator
        locked.save(update_fields=_REVIEW_FIELDS)
    return locked
