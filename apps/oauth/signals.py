"""Dropping cached token rows (selectors.access_token_get_active) when what they hold changes.

A cached row holds some of the token's, its user's and its application's fields. Any save or delete
of one of these drops the rows of the tokens concerned, at once and again after the transaction commits
(a request that read the old row just before the commit cannot keep it past the second drop).
Revoking a token (DOT's revoke endpoint, a refresh, an app's authorization withdrawn, an account
deleted) deletes the token row; suspending a user saves the user: both land here. A QuerySet.delete()
sends post_delete for each row while receivers are connected, so bulk revocations do too. A save of a
user or an app costs one statement (their tokens' checksums) while the cache is on; creating one costs
none.
"""
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models.signals import post_delete, post_save, pre_save
from oauth2_provider.models import get_access_token_model, get_application_model, get_refresh_token_model

from apps.oauth.selectors import token_cache, token_cache_key


def _drop(checksums) -> None:
    keys = [token_cache_key(c) for c in checksums if c]
    if not keys:
        return
    token_cache().delete_many(keys)
    transaction.on_commit(lambda: token_cache().delete_many(keys))


def _token_changed(sender, instance, **kwargs) -> None:
    _drop([instance.token_checksum])


def _owner_changed(field: str):
    def receiver(sender, instance, **kwargs) -> None:
        if kwargs.get("raw") or kwargs.get("created") or not settings.OAUTH_TOKEN_CACHE_SECONDS:
            return  # nothing cached (or a new user or app, which has no token yet): no statement
        checksums = get_access_token_model().objects.filter(**{field: instance.pk}).values_list(
            "token_checksum", flat=True
        )
        _drop(list(checksums))

    return receiver


_user_changed = _owner_changed("user_id")
_application_changed = _owner_changed("application_id")


# --- Tokens at rest (docs/security.md, issue 22 finding 6) ------------------------------------------------
# DOT stores the tokens it issues as their checksum only (COMPLIANT_BCP_RFC9700_TOKEN_STORAGE). Every
# other save of a token (the portal, the Thing page's host, the demo, tests) is held to the same rule
# here: a plain `token` is moved to DOT's `_raw_token` (TokenChecksumField hashes it) and the row keeps an
# empty column; the instance gets the plain value back after the save, for its creator to hand out.
_PLAIN_ATTRIBUTE = "_thingyard_plain_token"


def _token_plain_withheld(sender, instance, **kwargs) -> None:
    if kwargs.get("raw") or not instance.token:
        return
    if getattr(instance, "_raw_token", None) is None:
        instance._raw_token = instance.token
    setattr(instance, _PLAIN_ATTRIBUTE, instance.token)
    instance.token = ""


def _token_plain_restored(sender, instance, **kwargs) -> None:
    plain = getattr(instance, _PLAIN_ATTRIBUTE, None)
    if plain:
        instance.token = plain  # in memory only
        setattr(instance, _PLAIN_ATTRIBUTE, None)


def token_storage_signals_connect() -> None:
    for model in (get_access_token_model(), get_refresh_token_model()):
        pre_save.connect(_token_plain_withheld, sender=model, dispatch_uid=f"token-at-rest-{model._meta.label}")
        post_save.connect(_token_plain_restored, sender=model, dispatch_uid=f"token-at-rest-{model._meta.label}")


def token_cache_signals_connect() -> None:
    token_model, app_model, user_model = get_access_token_model(), get_application_model(), get_user_model()
    post_save.connect(_token_changed, sender=token_model, dispatch_uid="oauth-token-cache-token-save")
    post_delete.connect(_token_changed, sender=token_model, dispatch_uid="oauth-token-cache-token-delete")
    post_save.connect(_user_changed, sender=user_model, dispatch_uid="oauth-token-cache-user-save")
    post_save.connect(_application_changed, sender=app_model, dispatch_uid="oauth-token-cache-app-save")
    post_delete.connect(_application_changed, sender=app_model, dispatch_uid="oauth-token-cache-app-delete")
