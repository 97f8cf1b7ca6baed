"""Secrets never reach a log line (RFC 9700 §4.3: credentials in URLs leak through logs).

Clients may send the access token as a query parameter (spec §5 step 4), OAuth callbacks carry codes, and
the token endpoint takes `client_secret` in the query string too (docs/decisions.md: OAuth). Access logs print
request lines and referrers as they are, so every log line goes through `redact()`:

- `RedactingFilter`, on the handlers of Django's LOGGING (config/settings/base.py), for every logger;
- `RedactingGunicornLogger`, gunicorn's logger class (gunicorn.conf.py at the repository root, which
  gunicorn reads from its working directory), for the access log and the error log.
"""
import logging
import re

from gunicorn.glogging import Logger as GunicornLogger

# Query/form parameters whose values are credentials.
SECRET_PARAMETERS = (
    "access_token", "refresh_token", "id_token", "token", "code", "code_verifier", "client_secret",
    "password", "signature", "x-amz-signature", "x-amz-credential", "awsaccesskeyid", "policy",
)
REDACTED = "[redacted]"
_PARAMETER = re.compile(
    r"(?i)(?<![\w-])(" + "|".join(re.escape(name) for name in SECRET_PARAMETERS) + r")=([^&\s\"'#;,]*)"
)
# The same names as keys of a printed dict or JSON object: oauthlib logs `Saving grant {'code': '…'}`.
_MAPPING_ITEM = re.compile(
    r"(?i)(['\"])(" + "|".join(re.escape(name) for name in SECRET_PARAMETERS) + r")\1(\s*:\s*)(['\"])(.*?)\4"
)
_BEARER = re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]+")


def redact(text: str) -> str:
    """`text` with the values of credential parameters and Bearer tokens replaced by `[redacted]`."""
    if not text:
        return text
    text = _MAPPING_ITEM.sub(r"\1\2\1\3\4" + REDACTED + r"\4", text)
    return _BEARER.sub(r"\1" + REDACTED, _PARAMETER.sub(r"\1=" + REDACTED, text))


class RedactingFilter(logging.Filter):
    """A handler filter: formats the record's message once, redacted (never drops a record)."""

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a broken format string is the logging module's problem, not ours
            return True
        clean = redact(message)
        if clean != message:
            record.msg, record.args = clean, None
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True


class RedactingGunicornLogger(GunicornLogger):
    """gunicorn's logger with the request line, query string, referrer and credential headers redacted."""

    def atoms(self, resp, req, environ, request_time):
        atoms = super().atoms(resp, req, environ, request_time)
        for key, value in atoms.items():
            if key.lower() in ("{authorization}i", "{cookie}i", "{set-cookie}o"):
                atoms[key] = REDACTED
            elif isinstance(value, str):  # the request line, query string, referrer, `{…}e` environ
                atoms[key] = redact(value)
        return atoms

    def error(self, msg, *args, **kwargs):
        super().error(redact(msg % args if args else msg), **kwargs)

    def warning(self, msg, *args, **kwargs):
        super().warning(redact(msg % args if args else msg), **kwargs)

    def info(self, msg, *args, **kwargs):
        super().info(redact(msg % args if args else msg), **kwargs)

    def debug(self, msg, *args, **kwargs):
        super().debug(redact(msg % args if args else msg), **kwargs)
