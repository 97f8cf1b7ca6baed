"""Short-lived encrypted values (docs/security.md, issue 22 findings 6 and 8).

A credential that must be shown (or handed on) again a little later, but must not sit usable in the
database (the session table, a token row), is kept sealed: Fernet (AES-128-CBC with HMAC-SHA256, from
the `cryptography` package) under a key derived from SECRET_KEY and the value's purpose, so a copy of the
database alone gives nothing away, and a value sealed for one purpose never opens for another.
"""
import base64

from cryptography.fernet import Fernet, InvalidToken
from django.utils.crypto import salted_hmac


def _fernet(purpose: str) -> Fernet:
    # The salt names the module's place before apps.core was split by concern: changing it would make
    # every value sealed before unreadable.
    key = salted_hmac(f"apps.core.sealing:{purpose}", "fernet", algorithm="sha256").digest()
    return Fernet(base64.urlsafe_b64encode(key))


def seal(value: str, *, purpose: str) -> str:
    return _fernet(purpose).encrypt(value.encode("utf-8")).decode("ascii")


def unseal(sealed: str, *, purpose: str, max_age_seconds: int | None = None) -> str | None:
    """The sealed value; None when it is older than `max_age_seconds`, sealed for another purpose or
    under another SECRET_KEY, or not a sealed value at all."""
    try:
        return _fernet(purpose).decrypt(sealed.encode("ascii"), ttl=max_age_seconds).decode("utf-8")
    except (InvalidToken, UnicodeError, ValueError, TypeError):
        return None
