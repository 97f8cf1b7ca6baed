from oauth2_provider.oauth2_backends import OAuthLibCore


class AnyBodyOAuthLibCore(OAuthLibCore):
    """Placeholder: completed by the OAuth provider work (query, form, multipart and JSON bodies)."""
