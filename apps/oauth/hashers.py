"""The hash of OAuth client secrets (docs/security.md, issue 14 finding 1; docs/decisions.md: OAuth).

DOT hashes client secrets with the password hasher (PBKDF2, 0.4–1.2 s per check here), so every wrong
`client_secret` at the unauthenticated token endpoint cost a worker that long. Passwords need a slow
hash because people choose guessable ones; a client secret is 128 random characters from
`generate_client_secret`, beyond any brute force, so a fast keyed hash is as safe: HMAC-SHA256 under a
server-side key (settings.CLIENT_SECRET_HMAC_KEY), so a copy of the database alone cannot even test a
guess. Verification is constant-time.

Registered in PASSWORD_HASHERS (after the password hashers, so no user password is ever hashed with it)
because DOT's ClientSecretField and `_check_secret` identify hashes through Django's registry; it is
OAUTH2_PROVIDER's CLIENT_SECRET_HASHER. Secrets stored under the old hasher still verify and are
re-hashed with this one on their first successful use (apps.oauth.services.application_secret_upgrade).
"""
import hashlib
import hmac

from django.conf import settings
from django.contrib.auth.hashers import BasePasswordHasher, mask_hash
from django.utils.crypto import constant_time_compare
from django.utils.translation import gettext_noop as _

from apps.oauth.rules import CLIENT_SECRET_ALGORITHM


def _key() -> bytes:
    configured = getattr(settings, "CLIENT_SECRET_HMAC_KEY", "") or ""
    if configured:
        return configured.encode()
    # Derived from SECRET_KEY, under a purpose of its own, when no key of its own is configured.
    return hashlib.sha256(b"thingyard.oauth.client-secret\x00" + settings.SECRET_KEY.encode()).digest()


class ClientSecretHasher(BasePasswordHasher):
    algorithm = CLIENT_SECRET_ALGORITHM

    def encode(self, password, salt):
        # Django's own argument check; django-stubs does not declare the private method.
        self._check_encode_args(password, salt)  # type: ignore[attr-defined]
        digest = hmac.new(_key(), f"{salt}${password}".encode(), hashlib.sha256).hexdigest()
        return f"{self.algorithm}${salt}${digest}"

    def decode(self, encoded):
        algorithm, salt, digest = encoded.split("$", 2)
        assert algorithm == self.algorithm
        return {"algorithm": algorithm, "hash": digest, "salt": salt}

    def verify(self, password, encoded):
        decoded = self.decode(encoded)
        return constant_time_compare(encoded, self.encode(password, decoded["salt"]))

    def safe_summary(self, encoded):
        decoded = self.decode(encoded)
        return {_("algorithm"): decoded["algorithm"], _("salt"): mask_hash(decoded["salt"], show=2),
                _("hash"): mask_hash(decoded["hash"])}

    def must_update(self, encoded):
        return False

    def harden_runtime(self, password, encoded):
        pass  # no work factor to equalise
