"""A new client secret or read-only token is shown once and never sits usable in the session table
(issue 22, finding 8), and the pages that show a credential are never cached (finding 9)."""
import hashlib
import re
import time

import pytest
from django.contrib.sessions.models import Session
from django.test import Client
from oauth2_provider.models import get_application_model

from apps.developers import views as portal
from apps.oauth.tests.factories import ApplicationFactory

NEW_APP = {
    "name": "Portal app", "description": "An app", "app_type": "web",
    "info_url": "https://portal.example.com/about", "application_url": "https://portal.example.com",
    "callback_url": "https://portal.example.com/callback", "client_type": "confidential",
}


@pytest.fixture
def owner(user_a):
    client = Client()
    client.force_login(user_a)
    return client


def _session_rows() -> str:
    """Every session row as stored and as decoded: what a copy of the table would give away."""
    rows = []
    for session in Session.objects.all():
        rows.append(session.session_data)
        rows.append(repr(session.get_decoded()))
    return "\n".join(rows)


def _shown(page: str, element_id: str) -> str | None:
    found = re.search(rf'id="{element_id}">([^<]+)<', page)
    return found.group(1) if found else None


def _assert_never_cached(response):
    assert "no-store" in response["Cache-Control"], response["Cache-Control"]
    assert "private" in response["Cache-Control"]
    assert response["Pragma"] == "no-cache"


def test_a_new_app_s_secret_is_never_in_the_session_table_and_shown_once(owner):
    response = owner.post("/developers/apps/new", NEW_APP)
    assert response.status_code == 302
    stored = _session_rows()  # between the POST and the page that shows the secret
    page = owner.get(response["Location"])
    _assert_never_cached(page)
    secret = _shown(page.content.decode(), "client-secret")
    assert secret and len(secret) >= 32
    assert secret not in stored
    assert secret not in _session_rows()
    again = owner.get(response["Location"])
    assert _shown(again.content.decode(), "client-secret") is None  # once only
    _assert_never_cached(again)


def test_a_rotated_secret_and_a_read_only_token_are_never_in_the_session_table(owner, user_a):
    application = ApplicationFactory(user=user_a)
    detail = f"/developers/apps/{application.pk}/"
    owner.post(detail + "secret")
    owner.post(detail + "readonly-token")
    stored = _session_rows()
    # The last POST's credential: the read-only token; the rotated secret was stashed before it.
    page = owner.get(detail)
    _assert_never_cached(page)
    html = page.content.decode()
    token = _shown(html, "readonly-token-value")
    secret = _shown(html, "client-secret")
    assert token and re.fullmatch(r"[0-9a-f]{32}", token)
    assert secret
    assert token not in stored and secret not in stored
    [row] = type(application).objects.filter(pk=application.pk)
    assert row.client_secret != secret
    assert hashlib.sha256(token.encode()).hexdigest() in {
        t.token_checksum for t in row.accesstoken_set.all()
    }


def test_a_sealed_credential_expires_unseen(owner, user_a, monkeypatch):
    application = ApplicationFactory(user=user_a)
    owner.post(f"/developers/apps/{application.pk}/readonly-token")
    later = time.time() + portal.ONE_TIME_SECONDS + 5
    monkeypatch.setattr(time, "time", lambda: later)
    page = owner.get(f"/developers/apps/{application.pk}/")
    assert _shown(page.content.decode(), "readonly-token-value") is None


def test_the_app_page_showing_the_webhook_secret_is_never_cached(owner, user_a):
    application = ApplicationFactory(user=user_a)
    _assert_never_cached(owner.get(f"/developers/apps/{application.pk}/"))
    assert get_application_model().objects.filter(pk=application.pk).exists()
