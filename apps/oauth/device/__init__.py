"""Device sign-in: the OAuth 2.0 device authorization grant (RFC 8628; docs/decisions.md: Device sign-in).

A slicer, a printer's screen or a script asks `{auth_url}/login/oauth/device_authorization` for a device
code and a user code, shows the user code, and polls the token endpoint with the device code while the
person approves at `{site_url}/device` (signed in, consent as for any app). Only Desktop and Mobile apps
may use it. The token is minted by oauthlib's device grant through ThingyardOAuth2Validator, the same
path as the code flow's tokens (apps.oauth.device.validators adds the device's steps to it).
"""
