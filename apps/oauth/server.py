"""The oauthlib server behind DOT's views (settings OAUTH2_PROVIDER["OAUTH2_SERVER_CLASS"]).

docs/decisions.md (OAuth, Device sign-in): the token endpoint knows `authorization_code` (the default),
`refresh_token` and the device grant (`urn:ietf:params:oauth:grant-type:device_code`). oauthlib's Server
also routes `password` and `client_credentials`, which Thingyard never offers: they are dropped here, so
they answer 400 `unsupported_grant_type` like any unknown grant type (docs/security.md, issue 22 finding 7).
"""
from oauthlib.oauth2 import Server

# The grant types of the token endpoint (docs/decisions.md).
GRANT_TYPES = ("authorization_code", "refresh_token", "urn:ietf:params:oauth:grant-type:device_code")


class ThingyardServer(Server):
    def __init__(self, request_validator, *args, **kwargs):
        super().__init__(request_validator, *args, **kwargs)
        known: dict = self._grant_types  # type: ignore[has-type]  # set by oauthlib's Server.__init__
        self._grant_types = {name: known[name] for name in GRANT_TYPES}
