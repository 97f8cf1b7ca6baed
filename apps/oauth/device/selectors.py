"""Reads of device sign-in."""
import hashlib

from oauth2_provider.models import get_device_grant_model

from apps.core.security import throttle
from apps.oauth.device import rules


def device_code_checksum(device_code: str) -> str:
    """What a device grant stores of its device code (apps.oauth.device.models)."""
    return hashlib.sha256(device_code.encode("utf-8", "surrogatepass")).hexdigest()


def device_grant_get_for_poll(*, application, device_code: str):
    """The device grant `application` polls for with `device_code`, or None (unknown, or another app's)."""
    if not device_code or "\x00" in device_code:
        return None
    return (
        get_device_grant_model()
        .objects.filter(device_code=device_code_checksum(device_code), application=application)
        .first()
    )


def device_grant_get_by_user_code(*, user_code: str):
    """The device grant with this (typed) user code, its app and the app's owner loaded, or None."""
    code = rules.user_code_normalize(user_code)
    if not rules.user_code_is_well_formed(code):
        return None
    return (
        get_device_grant_model()
        .objects.select_related("application", "application__user")
        .filter(user_code=code)
        .first()
    )


def user_code_locked_for(*, user, address: str | None) -> int:
    """Seconds until `user` (from `address`) may enter a user code again (0: now)."""
    return max(
        throttle.locked_for(rules.USER_CODE_ACCOUNT_LIMIT, str(user.pk)),
        throttle.locked_for(rules.USER_CODE_ADDRESS_LIMIT, address),
    )


def device_codes_locked_for(*, address: str | None) -> int:
    """Seconds until `address` may be issued device codes again (0: now)."""
    return throttle.locked_for(rules.DEVICE_CODE_ADDRESS_LIMIT, address)
