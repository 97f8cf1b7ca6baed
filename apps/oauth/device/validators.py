"""The device grant's steps in Thingyard's oauthlib request validator (ThingyardOAuth2Validator mixes
this in): oauthlib's DeviceCodeGrant asks `validate_device_code` at each poll, and the token it then
mints is saved by the validator's `_save_bearer_token`, the same path as the code flow's tokens."""
from oauthlib.oauth2.rfc6749 import errors

from apps.oauth.device import rules, selectors, services


class DeviceCodeValidatorMixin:
    def validate_device_code(self, client_id, code, request, *args, **kwargs):
        # request.client is the app the client authentication established: a device code of another app
        # is unknown to it.
        grant = selectors.device_grant_get_for_poll(application=request.client, device_code=code)
        if grant is None:
            return None  # oauthlib: invalid_grant
        outcome = services.device_grant_poll(grant=grant)
        if outcome == rules.POLL_AUTHORIZED:
            request.user = grant.user
            request.scopes = grant.scope.split()
            request.thingyard_device_grant = grant
        return outcome

    def _save_bearer_token(self, token, request, *args, **kwargs):
        if request.grant_type == rules.GRANT_DEVICE_CODE:
            # One token per approval: claimed inside the token's transaction, so of two polls that both
            # saw the approval only one keeps its token.
            grant = getattr(request, "thingyard_device_grant", None)
            if grant is None or not services.device_grant_claim(grant=grant):
                raise errors.InvalidGrantError(request=request)
        return super()._save_bearer_token(token, request, *args, **kwargs)  # type: ignore[misc]
