"""Every example of the developer docs runs here, against the live test server, so the docs cannot rot.

The convention (docs/decisions.md: "Runnable examples in the developer docs"):

- In a published docs page (apps.developers.docs.PAGES), a fenced code block meant to be run is preceded
  by a marker line, an HTML comment that GitHub does not show and the site drops:

      <!-- example: NAME [needs=a,b] [expect="text"] [http-errors] [then=CHECK] -->

  NAME is unique across the docs. `needs` names the setups the example needs (NEEDS below); each makes
  what it says (an app, a token, an authorization code, a file …) and provides placeholder values.
  Every `sh`, `bash`, `python`, `js` or `javascript` block must carry such a marker, or say why it
  cannot run here with `<!-- not-run: REASON -->` (code that only runs inside a browser page, say);
  an unmarked one fails `test_every_runnable_block_is_marked`.
- Placeholders: the quick start's address `http://127.0.0.1:8000` is replaced by the live server's, and
  `<name>` by the value a need provides (`<token>`, `<client_id>`, `<client_secret>`, `<code>`,
  `<code_verifier>`, `<refresh_token>`, `<webhook_secret>` …). A placeholder left over fails the test.
- Running: `sh`/`bash` blocks run in bash with `set -euo pipefail` in a fresh temporary directory, and
  `curl` is quiet and fails on any HTTP error status (`-sS --fail-with-body`) unless the marker says `http-errors`;
  `python` blocks run with this Python, `js` blocks with Node.js; a `text` block holding an authorize URL
  is opened by a browser session of the signed-in user (the consent page must answer; Allow must send
  the user back to the callback), its "output" being where Allow sends them. A run must succeed and its
  output contain each `expect` text. `then=CHECK` appends CHECKS[CHECK] to the block: code that calls
  what the block defines (the webhook verifiers get a delivery Thingyard really sent).
"""

import base64
import hashlib
import http.server
import json
import re
import secrets
import shlex
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import requests
from django.conf import settings
from django.test import Client

from apps.accounts.tests.factories import UserFactory
from apps.developers.docs import PAGES
from apps.oauth.tests.factories import APP_SECRET, AccessTokenFactory, ApplicationFactory
from apps.oauth.tests.flow import exchange_form, get_code, parse_form, token_params
from apps.uploads.tests.upload_helpers import ASCII_STL

QUICK_START = "http://127.0.0.1:8000"
CALLBACK = "https://app.example/callback"
THING_APP_URL = "https://app.example/thing"
RUNNABLE = {"sh", "bash", "python", "js", "javascript"}
_MARKER = re.compile(r"^\s*<!-- (example|not-run):?\s*(.*?)\s*-->\s*$")
_FENCE = re.compile(r"^(\s*)```(\w*)\s*$")
_PLACEHOLDER = re.compile(r"<([a-z][a-z0-9_]*)>")
# The placeholders the needs provide (another `<word>` in a block is left alone).
PLACEHOLDERS = {"token", "client_id", "client_secret", "code", "code_verifier", "refresh_token", "webhook_secret"}


@dataclass
class Example:
    name: str
    page: str
    language: str
    code: str
    needs: list[str] = field(default_factory=list)
    expect: list[str] = field(default_factory=list)
    http_errors: bool = False
    then: str | None = None

    def __str__(self):
        return f"{self.page}:{self.name}"


def _options(text: str) -> dict:
    options: dict = {"name": None, "needs": [], "expect": [], "http-errors": False, "then": None}
    for token in shlex.split(text):
        key, sep, value = token.partition("=")
        if not sep:
            if key == "http-errors":
                options["http-errors"] = True
            elif options["name"] is None:
                options["name"] = key
            else:
                raise ValueError(f"unknown marker option {token!r}")
        elif key == "needs":
            options["needs"] = [need for need in value.split(",") if need]
        elif key == "expect":
            options["expect"].append(value)
        elif key == "then":
            options["then"] = value
        else:
            raise ValueError(f"unknown marker option {token!r}")
    return options


def blocks(page: str) -> list[tuple[str | None, str, str, str]]:
    """(marker kind, marker text, language, code) of every fenced block of a docs page's file."""
    lines = (settings.BASE_DIR / "docs" / PAGES[page].filename).read_text(encoding="utf-8").splitlines()
    found, marker, index = [], None, 0
    while index < len(lines):
        line = lines[index]
        if match := _MARKER.match(line):
            marker = (match.group(1), match.group(2))
        elif match := _FENCE.match(line):
            indent, language = match.group(1), match.group(2)
            body = []
            index += 1
            while not re.match(rf"^{indent}```\s*$", lines[index]):
                body.append(lines[index][len(indent) :])
                index += 1
            kind, text = marker or (None, "")
            found.append((kind, text, language, "\n".join(body) + "\n"))
            marker = None
        elif line.strip():
            marker = None  # a marker stands right before its block
        index += 1
    return found


def examples() -> list[Example]:
    out = []
    for page in PAGES:
        for kind, text, language, code in blocks(page):
            if kind != "example":
                continue
            options = _options(text)
            out.append(
                Example(
                    name=options["name"],
                    page=page,
                    language=language,
                    code=code,
                    needs=options["needs"],
                    expect=options["expect"],
                    http_errors=options["http-errors"],
                    then=options["then"],
                )
            )
    return out


# --- the needs: each sets up what an example needs and provides its placeholders -----------------------


class Setup:
    """What the examples of one test share: the docs' user and their app, on the live server."""

    def __init__(self, live_url: str, workdir: Path):
        self.live_url = live_url
        self.workdir = workdir
        self.user = UserFactory(username="ada")
        self.app = ApplicationFactory(user=self.user, redirect_uris=CALLBACK)
        self.browser = Client()
        self.browser.force_login(self.user)
        self.values: dict[str, str] = {}

    def provide(self, need: str) -> None:
        getattr(self, "need_" + need.replace("-", "_"))()

    def need_client(self):
        self.values.update(client_id=self.app.client_id, client_secret=APP_SECRET)

    def need_token(self):
        self.need_client()
        self.values["token"] = AccessTokenFactory(user=self.user, application=self.app).token

    def need_code(self):
        self.need_client()
        self.values["code"] = get_code(self.browser, self.app, redirect_uri=CALLBACK, response_type="code")

    def need_refresh_token(self):
        self.need_client()
        code = get_code(self.browser, self.app, redirect_uri=CALLBACK, response_type="code")
        tokens = parse_form(exchange_form(Client(), token_params(self.app, code, redirect_uri=CALLBACK)))
        self.values.update(token=tokens["access_token"], refresh_token=tokens["refresh_token"])

    def need_public_client(self):
        self.app = ApplicationFactory(
            user=self.user, redirect_uris=CALLBACK, app_type="desktop", client_type="public", client_secret=""
        )
        self.values["client_id"] = self.app.client_id

    def need_pkce_code(self):
        self.need_public_client()
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        self.values["code_verifier"] = verifier
        self.values["code"] = get_code(
            self.browser,
            self.app,
            redirect_uri=CALLBACK,
            response_type="code",
            code_challenge=challenge,
            code_challenge_method="S256",
        )

    def need_device_client(self):
        self.app = ApplicationFactory(
            user=self.user, app_type="desktop", client_type="public", client_secret="", redirect_uris=""
        )
        self.values["client_id"] = self.app.client_id

    def need_device_approver(self):
        """The person: once the example has asked for a device code, they approve it on the live server's
        /device page (a thread, for the example runs meanwhile)."""
        from django.db import connection
        from oauth2_provider.models import get_device_grant_model

        from apps.oauth.tests.device import approve_over_http

        cookie = self.browser.cookies[settings.SESSION_COOKIE_NAME].value
        app = self.app

        def approve():
            try:
                for _ in range(300):
                    grant = get_device_grant_model().objects.filter(application=app).first()
                    if grant is not None:
                        approve_over_http(self.live_url, cookie, grant.user_code)
                        return
                    time.sleep(0.1)
            finally:
                connection.close()

        threading.Thread(target=approve, daemon=True).start()

    def need_thing_app(self):
        self.app = ApplicationFactory(
            user=self.user, redirect_uris=THING_APP_URL, app_type="thing", application_url=THING_APP_URL
        )
        self.values["client_id"] = self.app.client_id

    def need_stl_file(self):
        (self.workdir / "bracket.stl").write_bytes(ASCII_STL)

    def need_webhook_delivery(self):
        """A receiver on loopback gets a real `ping` from Thingyard; its headers and raw body are saved as
        headers.json and body.bin for the verifier to check."""
        from apps.webhooks.services import webhook_ping

        received: dict[str, Any] = {}

        class Receiver(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                received["body"] = self.rfile.read(int(self.headers["Content-Length"]))
                received["headers"] = {k.lower(): v for k, v in self.headers.items()}
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        server = http.server.HTTPServer(("127.0.0.1", 0), Receiver)
        thread = threading.Thread(target=server.handle_request, daemon=True)
        thread.start()
        try:
            self.app.webhook_url = f"http://127.0.0.1:{server.server_port}/hooks/thingyard"
            self.app.save(update_fields=["webhook_url"])
            webhook_ping(application=self.app)  # Celery runs eagerly in the tests: delivered now
            thread.join(timeout=15)
        finally:
            server.server_close()
        assert received, "the ping never reached the receiver"
        (self.workdir / "headers.json").write_text(json.dumps(received["headers"]))
        (self.workdir / "body.bin").write_bytes(received["body"])
        self.values["webhook_secret"] = self.app.webhook_secret


# Code appended to an example (`then=`): it calls what the example defines.
CHECKS = {
    "verify-python": """
import json as _json
_headers = _json.load(open("headers.json"))
_body = open("body.bin", "rb").read()
print("verified", verify_webhook("<webhook_secret>", _headers, _body))
try:
    verify_webhook("<webhook_secret>", _headers, _body.replace(b"ping", b"pong"))
except ValueError as error:
    print("tampered body refused:", error)
else:
    raise SystemExit("a tampered body was accepted")
""",
    "verify-js": """
const _fs = require("node:fs");
const _headers = JSON.parse(_fs.readFileSync("headers.json", "utf8"));
const _body = _fs.readFileSync("body.bin");
console.log("verified", JSON.stringify(verifyWebhook("<webhook_secret>", _headers, _body)));
let _refused = false;
try { verifyWebhook("<webhook_secret>", _headers, Buffer.from(_body.toString().replace("ping", "pong"))); }
catch (error) { _refused = true; console.log("tampered body refused:", error.message); }
if (!_refused) { throw new Error("a tampered body was accepted"); }
""",
}

CURL_WRAPPER = 'curl() { command curl --silent --show-error --fail-with-body "$@"; }\n'


def substitute(code: str, setup: Setup) -> str:
    code = code.replace(QUICK_START, setup.live_url)
    return _PLACEHOLDER.sub(lambda m: setup.values.get(m.group(1), m.group(0)), code)


def run(example: Example, setup: Setup) -> str:
    """Runs the example; returns its output (for an authorize URL, where Allow sends the user)."""
    code = example.code + (CHECKS[example.then] if example.then else "")
    code = substitute(code, setup)
    leftovers = set(_PLACEHOLDER.findall(code)) & PLACEHOLDERS
    assert not leftovers, f"{example}: no need provides {sorted(leftovers)}"
    if example.language == "text":
        return _authorize(code.strip(), setup)
    if example.language in ("sh", "bash"):
        prelude = "set -euo pipefail\n" + ("" if example.http_errors else CURL_WRAPPER)
        command = ["bash", "-c", prelude + code]
    elif example.language == "python":
        command = [sys.executable, "-c", code]
    elif example.language in ("js", "javascript"):
        command = [shutil.which("node") or "node", "-e", code]
    else:
        raise AssertionError(f"{example}: cannot run a {example.language!r} block")
    result = subprocess.run(command, cwd=setup.workdir, capture_output=True, text=True, timeout=60)
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"{example} failed ({result.returncode}):\n{code}\n---\n{output}"
    return output


def _authorize(url: str, setup: Setup) -> str:
    """Opens an authorize URL as the signed-in user on the live server and presses Allow."""
    assert url.startswith(setup.live_url + "/login/oauth/authorize?"), url
    session = requests.Session()
    session.cookies.set(settings.SESSION_COOKIE_NAME, setup.browser.cookies[settings.SESSION_COOKIE_NAME].value)
    page = session.get(url, allow_redirects=False, timeout=10)
    assert page.status_code == 200 and "Allow" in page.text, (url, page.status_code)
    form = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page.text))
    form["allow"] = "Authorize"
    answer = session.post(url, data=form, headers={"Referer": url}, allow_redirects=False, timeout=10)
    assert answer.status_code == 302, (answer.status_code, answer.text[:500])
    return answer.headers["Location"]


# --- the tests -------------------------------------------------------------------------------------------


def test_every_runnable_block_is_marked():
    unmarked = [
        f"{page}: {language} block starting {code.splitlines()[0]!r}"
        for page in PAGES
        for kind, _, language, code in blocks(page)
        if language in RUNNABLE and kind is None
    ]
    assert unmarked == []


def test_example_names_are_unique_and_their_needs_and_checks_exist():
    found = examples()
    names = [example.name for example in found]
    assert len(names) == len(set(names)), names
    for example in found:
        for need in example.needs:
            assert hasattr(Setup, "need_" + need.replace("-", "_")), f"{example}: unknown need {need!r}"
        assert example.then is None or example.then in CHECKS, example
    # The guides have examples of each kind of thing they teach.
    assert {"getting-started", "uploads", "errors", "webhooks"} <= {example.page for example in found}


def test_markers_never_show_on_the_site():
    for page in PAGES:
        html = Client().get(f"/developers/docs/{page}").content.decode()
        assert "<!-- example" not in html and "<!-- not-run" not in html and "repo-only" not in html


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("example", examples(), ids=str)
def test_the_docs_example_runs_against_the_live_server(example, site_urls, tmp_path, s3, settings):
    settings.ALLOW_PRIVATE_WEBHOOK_URLS = True  # the receiver of the webhook examples is on loopback
    setup = Setup(site_urls, tmp_path)
    for need in example.needs:
        setup.provide(need)
    output = run(example, setup)
    for text in example.expect:
        assert substitute(text, setup) in output, f"{example}: {text!r} not in:\n{output}"
