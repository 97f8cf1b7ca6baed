from oauth2_provider.oauth2_validators import OAuth2Validator


class ThingyardOAuth2Validator(OAuth2Validator):
    """Placeholder: completed by the OAuth provider work (grant types per app type, PKCE, 10-user limit)."""
