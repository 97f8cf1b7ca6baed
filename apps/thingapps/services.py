"""Writes of Thing apps: the access token the Thing page hands to an app's iframe (spec §4.11)."""

from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from oauth2_provider.models import get_access_token_model

from apps.core.domain.exceptions import PermissionDenied
from apps.core.security.sealing import seal, unseal
from apps.oauth.models import AppAuthorization
from apps.oauth.tokens import generate_token
from apps.thingapps import rules, selectors
from apps.thingapps.models import HostToken


class AuthorizationRequired(PermissionDenied):
    """The user has not authorized the app (or revoked it): the consent step comes first."""

    error_type = "AUTHORIZATION_REQUIRED"
    default_message = "Authorize the app first."


HOST_TOKEN_SEAL = "thingapps:host-token"


@dataclass(frozen=True)
class Launch:
    access_token: str
    expires_in: int
    src: str


def host_token_issue(*, application, user, now=None):
    """A live access token of `application` for `user` for the iframe: the host's last one while it has
    enough time left, else a new one. Needs the user's consent (AuthorizationRequired otherwise)."""
    now = now or timezone.now()
    with transaction.atomic():
        # The consent row, locked: two tabs opening the app at once share one token, and a token is
        # never minted for a user who has no consent (oauth.services.authorization_revoke deletes it).
        consent = (
            AppAuthorization.objects.select_for_update().filter(application=application, user=user).first()
        )
        if consent is None:
            raise AuthorizationRequired()
        token = selectors.host_token_get_live(application=application, user=user, now=now)
        if token is not None:
            plain = unseal(token.thing_app_host.sealed_token, purpose=HOST_TOKEN_SEAL)
            if plain is not None:
                token.token = plain  # in memory only: the row keeps the checksum
                return token
        plain = generate_token()
        token = get_access_token_model().objects.create(
            user=user,
            application=application,
            token=plain,  # stored as its checksum only (apps.oauth.signals)
            expires=now + rules.HOST_TOKEN_LIFETIME,
            scope=" ".join(settings.OAUTH2_PROVIDER["DEFAULT_SCOPES"]),
        )
        HostToken.objects.create(access_token=token, sealed_token=seal(plain, purpose=HOST_TOKEN_SEAL))
    return token


def thing_app_launch(*, application, user, thing, now=None) -> Launch:
    """Everything the host needs to mount `application` on `thing`'s page for `user`."""
    now = now or timezone.now()
    token = host_token_issue(application=application, user=user, now=now)
    expires_in = int((token.expires - now).total_seconds())
    src = rules.iframe_src(
        application_url=application.application_url,
        thing_id=thing.pk,
        access_token=token.token,
        expires_in=expires_in,
    )
    return Launch(access_token=token.token, expires_in=expires_in, src=src)
