"""Security primitives: failed-credential throttling, sealed short-lived values, outbound-URL
checks (SSRF), redaction of secrets in logs.
"""
