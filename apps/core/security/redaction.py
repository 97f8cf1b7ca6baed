"""Secrets never reach a log line (RFC 9700 §4.3: credentials in URLs leak through logs).

Clients may send the access token as a query parameter (spec §5 step 4), OAuth callbacks carry codes, and
the token endpoint takes `client_secret` in the query string too (docs/decisions.md: OAuth). Access logs print
request lines and referrers as they are, so every log line goes through `redact()`:

- `RedactingFilter`, on the handlers of Django's LOGGING (config/settings/base.py), for every logger;
- `RedactingGunicornLogger`, gunicorn's logger class (gunicorn.conf.py at the repository root, which
  gunicorn reads from its working directory), for the access log and the error log.

The access log redacts lazily (`RedactedAtoms`): only the atoms the log format prints are looked at,
so a line costs about what gunicorn's plain logger costs (`python -m bench.logbench`), instead of
running the patterns over every header and environ value of every request.
"""
import logging
import re
import traceback
from collections.abc import Mapping
from urllib.parse import unquote_plus

from gunicorn.glogging import Logger as GunicornLogger

# Query/form parameters whose values are credentials.
SECRET_PARAMETERS = (
    "access_token", "refresh_token", "id_token", "token", "code", "code_verifier", "client_secret", "device_code",
    "password", "signature", "x-amz-signature", "x-amz-credential", "awsaccesskeyid", "policy",
)
REDACTED = "[redacted]"
_SECRET_NAMES = frozenset(SECRET_PARAMETERS)
# Any `name=value` whose name starts a word; the callback keeps it unless the name is a credential's.
# One generic pattern and a set lookup cost a third of an alternation of the names tried at every
# position (python -m bench.logbench). A name may be percent-encoded (`access%5Ftoken`, `%61ccess_token`)
# or carry bytes Django keeps (`access_token%00`, `access_token[]`): issue 22, finding 2.
_NAME_CHARS = r"\w%.+\[\]-"
_PARAMETER = re.compile(rf"(?<![{_NAME_CHARS}])([{_NAME_CHARS}]+)=([^&\s\"'#;,]*)")
_NOT_A_NAME_CHARACTER = re.compile(r"[^a-z0-9_-]+")
# The same names as keys of a printed dict or JSON object: oauthlib logs `Saving grant {'code': '…'}`.
_MAPPING_ITEM = re.compile(
    r"(?i)(['\"])(" + "|".join(re.escape(name) for name in SECRET_PARAMETERS) + r")\1(\s*:\s*)(['\"])(.*?)\4"
)
_BEARER = re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]+")

# Atoms whose whole value is a credential, whatever it looks like.
SECRET_ATOMS = frozenset({"{authorization}i", "{cookie}i", "{set-cookie}o", "{proxy-authorization}i"})


def parameter_name_is_secret(name: str) -> bool:
    """Whether a query or form parameter named `name` (as it appears on the wire) may carry a credential.

    Django decodes names (`%XX`, `+`) before a view reads them, so the name is decoded the same way,
    repeatedly (a double encoding costs nothing to cover), then stripped of what no credential's name
    holds (a NUL, brackets, spaces, dots) before the lookup: redacting a look-alike is harmless, printing
    a credential is not.
    """
    lowered = name.lower()
    if lowered in _SECRET_NAMES:
        return True
    if lowered.replace("_", "a").replace("-", "a").isalnum():
        return False  # a plain name (most of them): the set lookup said it all
    for _ in range(3):
        if "%" not in lowered and "+" not in lowered:
            break
        decoded = unquote_plus(lowered, errors="replace").lower()
        if decoded == lowered:
            break
        lowered = decoded
    pieces = _NOT_A_NAME_CHARACTER.split(lowered)
    return "".join(pieces) in _SECRET_NAMES or not _SECRET_NAMES.isdisjoint(pieces)


def _parameter_redacted(match: re.Match) -> str:
    name = match.group(1)
    return f"{name}={REDACTED}" if parameter_name_is_secret(name) else match.group(0)


def redact(text: str) -> str:
    """`text` with the values of credential parameters and Bearer tokens replaced by `[redacted]`."""
    if not text:
        return text
    # Each pattern needs its own marker (a quote, a `=`, the word bearer): most log text has none, and
    # a substring test is far cheaper than a regular expression that finds nothing.
    if '"' in text or "'" in text:
        text = _MAPPING_ITEM.sub(r"\1\2\1\3\4" + REDACTED + r"\4", text)
    if "=" in text:
        text = _PARAMETER.sub(_parameter_redacted, text)
    if "bearer" in text.lower():
        text = _BEARER.sub(r"\1" + REDACTED, text)
    return text


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


def _atom_redacted(key: str, value):
    if key.lower() in SECRET_ATOMS:
        return REDACTED
    if isinstance(value, str):  # the request line, query string, referrer, `{…}e` environ
        return redact(value)
    return value


class RedactedAtoms(Mapping):
    """gunicorn's atoms as the access-log format reads them, each redacted when it is read.

    Behaves as gunicorn's SafeAtoms (`{header}i` names ignore case, an unknown atom is "-", double
    quotes are escaped), but through every way in (`[]`, `get`, `items`, iteration) a value comes out
    redacted: a log handler that reads the record's args itself sees no secret either.
    """

    __slots__ = ("_atoms",)

    def __init__(self, atoms: dict):
        self._atoms = atoms

    def __getitem__(self, key):
        if key.startswith("{"):
            key = key.lower()
        if key not in self._atoms:
            return "-"
        value = _atom_redacted(key, self._atoms[key])
        return value.replace('"', '\\"') if isinstance(value, str) else value

    def __contains__(self, key):
        return key in self._atoms

    def __iter__(self):
        return iter(self._atoms)

    def __len__(self):
        return len(self._atoms)


class RedactingGunicornLogger(GunicornLogger):
    """gunicorn's logger with the request line, query string, referrer and credential headers redacted."""

    def atoms(self, resp, req, environ, request_time):
        """Every atom, redacted (what the access log would print for any format)."""
        atoms = super().atoms(resp, req, environ, request_time)
        return {key: _atom_redacted(key, value) for key, value in atoms.items()}

    def access(self, resp, req, environ, request_time):
        # gunicorn's own access(), with the atoms redacted lazily: only those the format prints.
        cfg = self.cfg
        if not (cfg.accesslog or cfg.logconfig or cfg.logconfig_dict or cfg.logconfig_json
                or (cfg.syslog and not cfg.disable_redirect_access_to_syslog)):
            return
        atoms = RedactedAtoms(super().atoms(resp, req, environ, request_time))
        try:
            self.access_log.info(cfg.access_log_format, atoms)
        except Exception:
            self.error(traceback.format_exc())

    def error(self, msg, *args, **kwargs):
        super().error(redact(msg % args if args else msg), **kwargs)

    def warning(self, msg, *args, **kwargs):
        super().warning(redact(msg % args if args else msg), **kwargs)

    def info(self, msg, *args, **kwargs):
        super().info(redact(msg % args if args else msg), **kwargs)

    def debug(self, msg, *args, **kwargs):
        super().debug(redact(msg % args if args else msg), **kwargs)
