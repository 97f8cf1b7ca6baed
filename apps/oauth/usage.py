"""When an app last used its credentials: `Application.last_used_at` (its secret or any of its tokens)
and `AppAuthorization.last_used_at` (one user's tokens), to the minute.

Every API request passes here, so it must cost nothing most of the time: the stamps come loaded with
the token (apps.oauth.selectors.access_token_get_active joins them) or the client, and a write happens
only when the loaded stamp is more than a minute old. The UPDATE is conditional (only a row not
stamped in the last minute), so concurrent requests at that moment change the row once. No cache
round trip, no transaction of its own, and a failure never fails the request.
"""
import logging
from datetime import timedelta

from django.db import DatabaseError
from django.db.models import Q
from django.utils import timezone
from oauth2_provider.models import get_application_model

from apps.oauth.models import AppAuthorization

log = logging.getLogger(__name__)

RESOLUTION = timedelta(minutes=1)


def _fresh(stamp, now) -> bool:
    return stamp is not None and now - stamp < RESOLUTION


def _stale(now) -> Q:
    return Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - RESOLUTION)


def _stamp(model, instance, now) -> None:
    model.objects.filter(_stale(now), pk=instance.pk).update(last_used_at=now)
    instance.last_used_at = now


def application_use_note(*, application) -> bool:
    """The app authenticated with its secret, or used a token of its own. True when a stamp was due."""
    now = timezone.now()
    if application is None or _fresh(application.last_used_at, now):
        return False
    try:
        _stamp(get_application_model(), application, now)
    except DatabaseError as exc:  # bookkeeping; the request goes on without it
        log.warning("Cannot record the use of app %s: %s", application.pk, exc)
    return True


def access_token_use_note(*, access_token) -> bool:
    """A token was used on the API: stamp its app, and the user's consent when it is a user's token.
    True when a stamp was due (the token's cached row, apps.oauth.selectors, then holds an old one)."""
    due = application_use_note(application=access_token.application)
    authorization = getattr(access_token, "thingyard_authorization", None)
    now = timezone.now()
    if authorization is None or _fresh(authorization.last_used_at, now):
        return due
    try:
        _stamp(AppAuthorization, authorization, now)
    except DatabaseError as exc:
        log.warning("Cannot record the use of authorization %s: %s", authorization.pk, exc)
    return True
