"""Thingyard's oauthlib request validator (DOT's supported extension point)."""
import base64
import binascii
from contextlib import contextmanager
from urllib.parse import unquote_plus

from oauth2_provider.models import AbstractApplication, get_grant_model
from oauth2_provider.oauth2_validators import OAuth2Validator
from oauthlib.oauth2.rfc6749 import errors

from apps.core.security.throttle import client_address
from apps.oauth import rules, selectors, services
from apps.oauth.device.validators import DeviceCodeValidatorMixin
from apps.oauth.usage import application_use_note


class ClientAuthenticationThrottled(errors.OAuth2Error):
    """429 at the token and revocation endpoints while a client id or an address is locked after too many
    failed client authentications (docs/security.md, issue 14 finding 1). RFC 6749 has no error code
    for it; `invalid_client` is what the client must fix, the status and Retry-After say "later"."""

    error = "invalid_client"
    status_code = 429

    def __init__(self, seconds: int, request):
        self.retry_after = seconds
        super().__init__(description=rules.client_auth_throttled_message(seconds), request=request)

    @property
    def headers(self):
        return {"Retry-After": str(self.retry_after)}


@contextmanager
def _grant_gone_is_invalid_grant(request):
    try:
        yield
    except get_grant_model().DoesNotExist:
        raise errors.InvalidGrantError(request=request) from None


def pkce_required_for_client(client_id) -> bool:
    """OAUTH2_PROVIDER["PKCE_REQUIRED"] (through config/settings/base.py): docs/decisions.md, PKCE is never
    required of confidential clients; public ones cannot keep a secret."""
    client = selectors.application_get_by_client_id(client_id=client_id if isinstance(client_id, str) else "")
    return client is not None and client.client_type == AbstractApplication.CLIENT_PUBLIC


class ThingyardOAuth2Validator(DeviceCodeValidatorMixin, OAuth2Validator):
    """Grant types per app type, PKCE for public clients, the unapproved-app user limit, code replay,
    and the device grant's polls (apps.oauth.device)."""

    def authenticate_client(self, request, *args, **kwargs):
        # docs/security.md (finding 1): failed client authentications are throttled per client id and
        # per address; while locked nothing is hashed, and the right secret is refused too.
        client_id, secret = self._presented_client_credentials(request)
        address = client_address(request.headers) if request.headers else None
        wait = selectors.client_auth_locked_for(client_id=client_id, address=address)
        if wait:
            raise ClientAuthenticationThrottled(wait, request)
        authenticated = super().authenticate_client(request, *args, **kwargs)
        if not authenticated:
            services.client_auth_failure_record(client_id=client_id, address=address)
            return False
        services.client_auth_success_record(client_id=client_id)
        if request.client is not None:
            application_use_note(application=request.client)  # the app's last use, to the minute
        # A secret hashed by the old (PBKDF2) hasher is re-hashed with the fast one on its first use.
        services.application_secret_upgrade(application=request.client, secret=secret or "")
        return True

    def _presented_client_credentials(self, request) -> tuple[str | None, str | None]:
        """The client id and secret the request presents: HTTP Basic first, as DOT reads them."""
        auth_string = self._extract_basic_auth(request)
        if auth_string:
            try:
                decoded = base64.b64decode(auth_string).decode("utf-8")
                client_id, secret = map(unquote_plus, decoded.split(":", 1))
                return client_id, secret
            except (TypeError, ValueError, binascii.Error, UnicodeDecodeError):
                pass
        return getattr(request, "client_id", None), getattr(request, "client_secret", None)

    def _load_application(self, client_id, request):
        # docs/security.md (finding 3): a NUL in a client id (Basic auth included) never reaches the driver.
        if not isinstance(client_id, str) or "\x00" in client_id:
            return None
        return super()._load_application(client_id, request)

    def validate_response_type(self, client_id, response_type, client, request, *args, **kwargs):
        # spec §5: `code` (default) or `token`; implicit only for Web and Thing apps (model rule).
        if response_type == "code":
            return client.allows_grant_type(AbstractApplication.GRANT_AUTHORIZATION_CODE)
        if response_type == "token":
            return client.allows_grant_type(AbstractApplication.GRANT_IMPLICIT)
        return False

    def validate_user(self, username, password, client, request, *args, **kwargs):
        # No password grant (spec §5: users go through a browser). Refusing before checking the
        # password keeps the token endpoint from telling right passwords from wrong ones.
        return False

    def is_pkce_required(self, client_id, request):
        # DOT's own: settings.OAUTH2_PROVIDER["PKCE_REQUIRED"] is pkce_required_for_client below.
        return super().is_pkce_required(client_id, request)

    def save_authorization_code(self, client_id, code, request, *args, **kwargs):
        # Metadata advertises S256 only; `plain` (also oauthlib's default when the method is omitted)
        # gives no protection against a stolen code.
        if request.code_challenge and request.code_challenge_method != "S256":
            raise errors.InvalidRequestError(
                description='Unsupported code_challenge_method; use "S256".', request=request
            )
        super().save_authorization_code(client_id, code, request, *args, **kwargs)

    def validate_code(self, client_id, code, client, request, *args, **kwargs):
        if not super().validate_code(client_id, code, client, request, *args, **kwargs):
            if not get_grant_model().objects.filter(code=code, application=client).exists():
                services.authorization_code_replay_revoke(code=code, application=client)
            return False
        # spec §8: a code never mints a token for a user the unapproved app was not allowed to serve.
        return selectors.application_can_issue_token(application=client, user=request.user)

    # A concurrent exchange of the same code may delete its Grant between oauthlib's validate_code and
    # these re-reads (DOT uses .get()); the loser gets invalid_grant instead of an uncaught DoesNotExist.
    def confirm_redirect_uri(self, client_id, code, redirect_uri, client, request, *args, **kwargs):
        with _grant_gone_is_invalid_grant(request):
            return super().confirm_redirect_uri(client_id, code, redirect_uri, client, request, *args, **kwargs)

    def get_code_challenge(self, code, request):
        with _grant_gone_is_invalid_grant(request):
            challenge = super().get_code_challenge(code, request)
        if challenge is None and request.code_verifier is not None:
            # RFC 9700 §2.1.1 (PKCE downgrade): a code_verifier is accepted only for a code whose
            # authorization request carried a code_challenge; oauthlib would ignore it.
            raise errors.InvalidGrantError(
                description="code_verifier sent for a code issued without code_challenge.", request=request
            )
        return challenge

    def get_code_challenge_method(self, code, request):
        with _grant_gone_is_invalid_grant(request):
            return super().get_code_challenge_method(code, request)

    def validate_refresh_token(self, refresh_token, client, request, *args, **kwargs):
        if not super().validate_refresh_token(refresh_token, client, request, *args, **kwargs):
            return False
        return selectors.application_can_issue_token(application=client, user=request.user)

    def _create_access_token(self, expires, request, token, source_refresh_token=None):
        access_token = super()._create_access_token(expires, request, token, source_refresh_token)
        request.thingyard_access_token = access_token
        return access_token

    def _save_bearer_token(self, token, request, *args, **kwargs):
        if request.response_type == "token":
            # The implicit grant (RFC 9700 §2.1.2). DOT computes `expires` from this value and oauthlib
            # puts the same dict in the redirect's fragment, so both say one hour.
            token["expires_in"] = rules.IMPLICIT_ACCESS_TOKEN_SECONDS
        # Last line of defence for spec §8 (the authorize view and validate_* already checked).
        if request.user is not None and request.client is not None:
            if not selectors.application_can_issue_token(application=request.client, user=request.user):
                if request.grant_type in ("authorization_code", "refresh_token"):
                    raise errors.InvalidGrantError(request=request)
                raise errors.AccessDeniedError(request=request)
        super()._save_bearer_token(token, request, *args, **kwargs)
        if request.grant_type == "authorization_code":
            # Claim the code inside the token's transaction: of two concurrent exchanges only one
            # deletes the grant row; the other raises and its token is rolled back.
            grants = get_grant_model().objects.filter(code=request.code, application=request.client)
            claimed, _ = grants.delete()
            if not claimed:
                raise errors.InvalidGrantError(request=request)
            request.thingyard_code_claimed = True
            services.authorization_code_record_use(
                code=request.code,
                application=request.client,
                access_token=getattr(request, "thingyard_access_token", None),
            )

    def invalidate_authorization_code(self, client_id, code, request, *args, **kwargs):
        if getattr(request, "thingyard_code_claimed", False):
            return  # already deleted in _save_bearer_token
        super().invalidate_authorization_code(client_id, code, request, *args, **kwargs)
