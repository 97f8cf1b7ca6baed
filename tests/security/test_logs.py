"""Tokens, codes and client secrets never reach a log (RFC 9700 §4.3), at any level, from any logger.

The flows below run with every relevant logger at DEBUG, and what the configured handlers write is
searched for each secret. gunicorn's access log (the request line carries `?access_token=`) is checked
through a real gunicorn process.
"""
import io
import logging
import time
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.test import Client
from rest_framework.test import APIClient

from apps.core.security.redaction import RedactingFilter, RedactingGunicornLogger, redact
from apps.oauth.tests.factories import APP_SECRET
from apps.oauth.tests.flow import (
    REVOKE,
    TOKENINFO,
    consent,
    exchange_form,
    get_code,
    parse_form,
    redirect_params,
    token_params,
)
from tests.live_server import fetch, gunicorn_running

ROOT = Path(__file__).resolve().parents[2]
LOGGERS = ("", "django", "django.request", "django.security", "django.server", "oauthlib", "oauth2_provider",
           "apps", "corsheaders", "celery", "urllib3", "botocore")


@pytest.fixture
def log_output():
    """What the configured console handler (config/settings/base.py LOGGING) writes, DEBUG everywhere."""
    root = logging.getLogger()
    console = next(h for h in root.handlers if any(isinstance(f, RedactingFilter) for f in h.filters))
    assert isinstance(console, logging.StreamHandler)
    stream = io.StringIO()
    previous_stream = console.setStream(stream)
    saved = {name: logging.getLogger(name).level for name in LOGGERS}
    for name in LOGGERS:
        logging.getLogger(name).setLevel(logging.DEBUG)
    try:
        yield stream
    finally:
        console.setStream(previous_stream)
        for name, level in saved.items():
            logging.getLogger(name).setLevel(level)


def test_an_oauth_flow_and_api_calls_leave_no_secret_in_the_logs(log_output, application, user):
    browser = Client()
    browser.force_login(user)
    code = get_code(browser, application, state="st")
    tokens = parse_form(exchange_form(Client(), token_params(application, code)))
    replay = exchange_form(Client(), token_params(application, code))  # logged as a failure somewhere
    implicit = redirect_params(consent(browser, application, response_type="token", prompt="consent"))
    access, refresh = tokens["access_token"], tokens["refresh_token"]
    fresh_code = get_code(browser, application, prompt="consent")
    fresh = parse_form(exchange_form(Client(), token_params(application, fresh_code)))
    api = APIClient()
    api.get(f"/users/me?access_token={fresh['access_token']}")
    api.get(f"/things/999999999/?access_token={fresh['access_token']}")  # 404: django.request warns
    api.get(f"/no/such/path?access_token={fresh['access_token']}")
    api.get("/users/me?access_token=0123456789abcdef0123456789abcdef")  # unknown token: 401
    api.get("/users/me", HTTP_AUTHORIZATION=f"Bearer {implicit['access_token']}")
    Client().post(TOKENINFO, {"access_token": fresh["access_token"]})
    Client().post(f"/login/oauth/access_token?client_id={application.client_id}&client_secret=wrong-{APP_SECRET}"
                  f"&code={code}")
    Client().post(REVOKE, {"token": fresh["access_token"], "client_id": application.client_id,
                           "client_secret": APP_SECRET})
    assert replay.status_code == 400

    written = log_output.getvalue()
    assert "Not Found: /things/999999999/" in written  # the loggers did run at DEBUG
    for secret in (access, refresh, code, APP_SECRET, implicit["access_token"], fresh["access_token"],
                   "0123456789abcdef0123456789abcdef"):
        assert secret not in written


@pytest.mark.parametrize(
    ("line", "secret"),
    [
        ('"GET /users/me?access_token=abc123def HTTP/1.1" 200', "abc123def"),
        ("GET /cb?state=1&code=XYZcode#x", "XYZcode"),
        ("POST /login/oauth/access_token?client_id=a&client_secret=s3cr3t", "s3cr3t"),
        ("Authorization: Bearer tok.en-value", "tok.en-value"),
        ("refresh_token=r1&grant_type=refresh_token", "r1"),
        ("https://s3/obj?X-Amz-Signature=sig&AWSAccessKeyId=key&Signature=sig2", "sig"),
        ("Saving grant {'code': 'c0de', 'state': 'st'} for <Request>", "c0de"),
        ('{"access_token": "t0ken", "token_type": "Bearer"}', "t0ken"),
    ],
)
def test_redact_removes_credential_values_and_keeps_the_rest(line, secret):
    clean = redact(line)
    assert secret not in clean
    assert "[redacted]" in clean


def test_redact_leaves_look_alike_names_alone():
    line = "/things/?zip_code=123&csrfmiddlewaretoken_x=1&sort=newest"
    assert redact(line) == line


def test_gunicorn_s_access_log_atoms_are_redacted():
    logger = RedactingGunicornLogger(SimpleNamespace(
        errorlog="-", loglevel="info", accesslog=None, syslog=False, logconfig=None, logconfig_dict={},
        logconfig_json=None, capture_output=False, access_log_format="", user=None, group=None,
        disable_redirect_access_to_syslog=False,
    ))
    environ = {
        "REQUEST_METHOD": "GET", "RAW_URI": "/users/me?access_token=SEKRET1&x=1",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "QUERY_STRING": "access_token=SEKRET1&x=1", "PATH_INFO": "/users/me", "REMOTE_ADDR": "10.0.0.1",
        "HTTP_REFERER": "https://app.example.com/callback?code=SEKRET2",
    }
    request = SimpleNamespace(headers=[("AUTHORIZATION", "Bearer SEKRET3")])
    response = SimpleNamespace(status="200 OK", headers=[], sent=2)
    atoms = logger.atoms(response, request, environ, timedelta(seconds=1))
    assert "SEKRET" not in repr(atoms)
    assert atoms["r"] == "GET /users/me?access_token=[redacted]&x=1 HTTP/1.1"


def test_the_repository_s_gunicorn_config_installs_the_redacting_logger():
    namespace: dict = {}
    exec(compile((ROOT / "gunicorn.conf.py").read_text(), "gunicorn.conf.py", "exec"), namespace)
    assert namespace["logger_class"] == "apps.core.security.redaction.RedactingGunicornLogger"


def test_a_real_gunicorn_access_log_never_shows_the_query_token(tmp_path):
    """As deployed (Dockerfile: `--access-logfile -`): gunicorn started in the repository root."""
    access_log = tmp_path / "access.log"
    with gunicorn_running("--access-logfile", str(access_log)) as base:
        fetch(f"{base}/no-such-page?access_token=LEAKME0123&page=2")
        for _ in range(50):
            if "access_token" in access_log.read_text():
                break
            time.sleep(0.1)
    written = access_log.read_text()
    assert "/no-such-page?access_token=[redacted]&page=2" in written
    assert "LEAKME0123" not in written


def _access_logger(tmp_path, access_log_format=None):
    from gunicorn.config import Config

    cfg = Config()
    cfg.set("accesslog", str(tmp_path / "access.log"))
    if access_log_format:
        cfg.set("access_log_format", access_log_format)
    return RedactingGunicornLogger(cfg)


def _access_line(logger, tmp_path) -> str:
    environ = {
        "REQUEST_METHOD": "GET", "RAW_URI": "/users/me?ACCESS_TOKEN=SEKRET1&x=1",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "QUERY_STRING": "ACCESS_TOKEN=SEKRET1&x=1", "PATH_INFO": "/users/me", "REMOTE_ADDR": "10.0.0.1",
        "HTTP_REFERER": "https://app.example.com/callback?state=s&code=SEKRET2",
        "HTTP_USER_AGENT": 'agent "quoted"', "HTTP_AUTHORIZATION": "BEARER SEKRET3",
    }
    request = SimpleNamespace(headers=[("Authorization", "BEARER SEKRET3"), ("X-Note", "bEaReR SEKRET4")])
    response = SimpleNamespace(status="200 OK", headers=[("Set-Cookie", "sessionid=SEKRET5")], sent=2)
    logger.access(response, request, environ, timedelta(seconds=1))
    logger.access_log.handlers[0].flush()
    return (tmp_path / "access.log").read_text()


def test_the_access_log_line_is_redacted_and_keeps_gunicorn_s_format(tmp_path):
    line = _access_line(_access_logger(tmp_path), tmp_path)
    assert "SEKRET" not in line
    assert '"GET /users/me?ACCESS_TOKEN=[redacted]&x=1 HTTP/1.1" 200 2' in line
    assert '"https://app.example.com/callback?state=s&code=[redacted]"' in line
    assert '"agent \\"quoted\\""' in line  # quotes escaped, as gunicorn's SafeAtoms does


def test_headers_and_environ_in_a_custom_access_log_format_are_redacted(tmp_path):
    fmt = '%({authorization}i)s|%({x-note}i)s|%({set-cookie}o)s|%({query_string}e)s|%({missing}i)s|%(q)s'
    line = _access_line(_access_logger(tmp_path, fmt), tmp_path)
    assert "SEKRET" not in line
    assert line.strip() == "[redacted]|bEaReR [redacted]|[redacted]|ACCESS_TOKEN=[redacted]&x=1|-|" \
                           "ACCESS_TOKEN=[redacted]&x=1"


def test_every_way_into_the_lazy_atoms_is_redacted():
    from apps.core.security.redaction import RedactedAtoms

    atoms = RedactedAtoms(
        {"r": "GET /?token=SEKRET HTTP/1.1", "{authorization}i": "Bearer SEKRET", "s": "200"}
    )
    assert "SEKRET" not in repr(dict(atoms)) + repr(list(atoms.items())) + repr(list(atoms.values()))
    assert atoms.get("{Authorization}i") == "[redacted]"
    assert atoms["unknown"] == "-" and atoms["s"] == "200"


# --- issue 22, finding 2: encoded parameter names -----------------------------------------------------

NEIGHBOURS = ("access_token", "client_secret", "code", "refresh_token", "password", "code_verifier")


def _first_letter_encoded(name: str) -> str:
    return f"%{ord(name[0]):02X}{name[1:]}"


def _underscore_encoded(name: str) -> str:
    return name.replace("_", "%5F") if "_" in name else name[:-1] + f"%{ord(name[-1]):02x}"


ENCODINGS = {
    "first letter %XX": _first_letter_encoded,
    "underscore or last letter %xx": _underscore_encoded,
    "every letter %XX": lambda name: "".join(f"%{ord(ch):02X}" for ch in name),
    "NUL after": lambda name: f"{name}%00",
    "brackets after": lambda name: f"{name}[]",
    "double encoded": lambda name: _first_letter_encoded(name).replace("%", "%25"),
    "upper case, encoded": lambda name: _first_letter_encoded(name.upper()),
}


@pytest.mark.parametrize("name", NEIGHBOURS)
@pytest.mark.parametrize("encoding", ENCODINGS, ids=str)
def test_redact_decodes_parameter_names_as_django_does(name, encoding):
    encoded = ENCODINGS[encoding](name)
    line = f'"GET /users/me?page=2&{encoded}=SEKRETvalue42&x=1 HTTP/1.1" 200'
    clean = redact(line)
    assert "SEKRETvalue42" not in clean, clean
    assert f"{encoded}=[redacted]&x=1" in clean and "page=2" in clean


@pytest.mark.parametrize("name", NEIGHBOURS)
def test_the_names_django_reads_are_among_those_redacted(name):
    """The ones that matter most: Django's QueryDict hands the view exactly the credential's name."""
    from django.http import QueryDict

    for encoding in ("first letter %XX", "underscore or last letter %xx", "every letter %XX"):
        encoded = ENCODINGS[encoding](name)
        assert list(QueryDict(f"{encoded}=SEKRET").keys()) == [name]
        assert redact(f"?{encoded}=SEKRET") == f"?{encoded}=[redacted]"


def test_a_real_gunicorn_access_log_redacts_encoded_names(tmp_path):
    access_log = tmp_path / "access.log"
    with gunicorn_running("--access-logfile", str(access_log)) as base:
        fetch(f"{base}/users/me?access%5Ftoken=LEAKA0123")
        fetch(f"{base}/users/me?%61ccess_token=LEAKB0123")
        fetch(f"{base}/users/me?access_token%00=LEAKC0123")
        for _ in range(50):
            if access_log.read_text().count("[redacted]") >= 3:
                break
            time.sleep(0.1)
    written = access_log.read_text()
    assert "/users/me?access%5Ftoken=[redacted]" in written
    assert "LEAK" not in written
