"""Pure rules of device sign-in (RFC 8628): codes, lifetimes, the polling interval, the code-entry limits."""
import secrets
from datetime import datetime, timedelta

from apps.core.security.throttle import FailureLimit, wait_message

# DOT's name of the grant (AbstractApplication.GRANT_DEVICE_CODE), spelled out so no model is imported.
GRANT_DEVICE_CODE = "urn:ietf:params:oauth:grant-type:device_code"
# docs/decisions.md: Desktop and Mobile apps only (a Web or Thing app has a browser of its own).
DEVICE_APP_TYPES = frozenset({"desktop", "mobile"})

# RFC 8628 §3.2: the codes live 15 minutes (long enough to find a browser and sign in; short enough
# that guessing a user code has little time), and a device polls every 5 seconds at most.
DEVICE_CODE_SECONDS = 900
POLL_INTERVAL_SECONDS = 5
# RFC 8628 §3.5: each `slow_down` adds 5 seconds to the interval; a bound keeps a broken client usable.
SLOW_DOWN_STEP_SECONDS = 5
MAX_POLL_INTERVAL_SECONDS = 60

# RFC 8628 §6.1: 20 consonants (no vowels, so no words; no digits, so no 0/O or 1/I), 8 characters:
# 20^8 ≈ 2^34.6 codes, typed as XXXX-XXXX; case, spaces and dashes do not matter when typed back.
USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ"
USER_CODE_LENGTH = 8

# RFC 8628 §5.1 (brute force of user codes): every wrong, expired or used code entered counts against
# the person (and the address): 10 per person (30 per address) in 15 minutes, then 15 minutes' pause.
# With at most a few thousand codes pending, a guesser's chance stays below one in a million a day.
USER_CODE_ACCOUNT_LIMIT = FailureLimit(scope="device:account", limit=10, window_seconds=900, lock_seconds=900)
USER_CODE_ADDRESS_LIMIT = FailureLimit(scope="device:address", limit=30, window_seconds=900, lock_seconds=900)

# Every device code issued counts against the caller's address: 60 in 10 minutes (a makerspace's printers
# behind one router starting together fit), then 10 minutes' pause, so nobody fills the table.
DEVICE_CODE_ADDRESS_LIMIT = FailureLimit(scope="device:issue", limit=60, window_seconds=600, lock_seconds=600)

# The states of a device grant (DOT's AbstractDeviceGrant values).
AUTHORIZED = "authorized"
PENDING = "authorization-pending"
EXPIRED = "expired"
DENIED = "denied"

# What a poll of the token endpoint answers: oauthlib's DeviceCodeGrant statuses (RFC 8628 §3.5).
POLL_AUTHORIZED = "authorized"
POLL_PENDING = "authorization_pending"
POLL_SLOW_DOWN = "slow_down"
POLL_EXPIRED = "expired_token"
POLL_DENIED = "access_denied"


def application_may_use_device_grant(*, app_type: str) -> bool:
    return app_type in DEVICE_APP_TYPES


def user_code_generate() -> str:
    return "".join(secrets.choice(USER_CODE_ALPHABET) for _ in range(USER_CODE_LENGTH))


def user_code_normalize(typed: str) -> str:
    """The stored form of a typed code: upper case, without spaces or dashes ("wdjb-mjht" → "WDJBMJHT")."""
    return "".join(ch for ch in (typed or "").upper() if ch.isalnum())[:32]


def user_code_display(code: str) -> str:
    """As the device and the page show it: XXXX-XXXX."""
    half = len(code) // 2
    return f"{code[:half]}-{code[half:]}" if len(code) == USER_CODE_LENGTH else code


def user_code_is_well_formed(code: str) -> bool:
    return len(code) == USER_CODE_LENGTH and all(ch in USER_CODE_ALPHABET for ch in code)


def device_grant_is_expired(*, expires: datetime, now: datetime) -> bool:
    return now >= expires


def poll_too_soon(*, last_checked: datetime | None, interval: int, now: datetime) -> bool:
    """RFC 8628 §3.5 slow_down: the device polled again before `interval` seconds had passed."""
    return last_checked is not None and now - last_checked < timedelta(seconds=interval)


def slowed_interval(interval: int) -> int:
    return min(interval + SLOW_DOWN_STEP_SECONDS, MAX_POLL_INTERVAL_SECONDS)


def poll_outcome(*, status: str, expired: bool, too_soon: bool) -> str:
    """What a poll answers, in the RFC's order: an ended session first, then the pace, then the decision."""
    if status == EXPIRED or expired:
        return POLL_EXPIRED
    if status == DENIED:
        return POLL_DENIED
    if too_soon:
        return POLL_SLOW_DOWN
    if status == AUTHORIZED:
        return POLL_AUTHORIZED
    return POLL_PENDING


def user_code_throttled_message(seconds: int) -> str:
    return (
        "Too many wrong codes were entered from your account or your network. "
        f"For your security, entering codes is paused; try again in {wait_message(seconds)}."
    )


USER_CODE_UNKNOWN = "That code is not valid. Check the code your device shows and type it again."
USER_CODE_EXPIRED = "That code has expired. Start signing in again on your device to get a new code."
USER_CODE_USED = "That code has already been used. Start signing in again on your device if you need a new one."


def user_code_problem(*, status: str | None, expires: datetime | None, now: datetime) -> str | None:
    """Why a typed code cannot be approved (None: it can): unknown (status None), expired or decided."""
    if status is None or expires is None:
        return USER_CODE_UNKNOWN
    if status == EXPIRED or device_grant_is_expired(expires=expires, now=now):
        return USER_CODE_EXPIRED
    if status != PENDING:
        return USER_CODE_USED
    return None


def device_codes_throttled_message(seconds: int) -> str:
    return f"Too many device codes were requested from your network; try again in {wait_message(seconds)}."
