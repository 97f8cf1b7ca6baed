"""Reads of the OAuth provider."""
import hashlib

from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model

from apps.oauth import rules
from apps.oauth.models import AppAuthorization


def application_get_by_client_id(*, client_id: str):
    """The Application with this client id, or None."""
    if not client_id or "\x00" in client_id:
        return None
    return get_application_model().objects.select_related("user").filter(client_id=client_id).first()


def application_user_count(*, application) -> int:
    """How many distinct users have authorized `application` (what the 10-user limit counts)."""
    return AppAuthorization.objects.filter(application=application).count()


def application_user_is_counted(*, application, user) -> bool:
    return AppAuthorization.objects.filter(application=application, user=user).exists()


def application_can_serve_user(*, application, user) -> bool:
    """Whether `user` may authorize `application` now (spec §8: unapproved apps serve ≤ N users)."""
    if application.is_approved:
        return True
    return rules.application_can_serve_user(
        is_approved=False,
        user_is_counted=application_user_is_counted(application=application, user=user),
        user_count=application_user_count(application=application),
    )


def application_can_issue_token(*, application, user) -> bool:
    if application.is_approved:
        return True
    return rules.application_can_issue_token(
        is_approved=False, user_is_counted=application_user_is_counted(application=application, user=user)
    )


def authorization_list_for_user(*, user):
    """The apps `user` has authorized, newest first (the /account/apps page)."""
    return (
        AppAuthorization.objects.filter(user=user)
        .select_related("application", "application__user")
        .order_by("-created", "-pk")
    )


def authorization_get_for_user(*, user, application_id: int):
    return AppAuthorization.objects.select_related("application").filter(
        user=user, application_id=application_id
    ).first()


def access_token_get_active(*, token: str):
    """The live AccessToken with this value (looked up by DOT's checksum index), or None."""
    if not token:
        return None
    checksum = hashlib.sha256(token.encode("utf-8")).hexdigest()
    access_token = (
        get_access_token_model()
        .objects.select_related("application", "user")
        .filter(token_checksum=checksum)
        .first()
    )
    if access_token is None or access_token.expires <= timezone.now():
        return None
    if access_token.user_id is not None and not access_token.user.is_active:
        return None
    return access_token
