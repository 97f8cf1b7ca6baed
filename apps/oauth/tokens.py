import secrets


def generate_token(request=None) -> str:
    """docs/decisions.md (compat): access tokens are 32 lower-case hex characters."""
    return secrets.token_hex(16)
