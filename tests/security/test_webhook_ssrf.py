"""Webhooks cannot be aimed at the service's own network (SSRF): not when the URL is saved, not when a
name re-resolves at delivery time (DNS rebinding), not through a redirect.

DNS is the boundary patched here (socket.getaddrinfo); every connection is real, to local listeners
that record whether anything reached them.
"""
import http.server
import socket
import threading

import pytest
from django.test import Client

from apps.core.security import netcheck
from apps.developers.forms import ApplicationEditForm
from apps.webhooks import delivery

INTERNAL_URLS = [
    "http://127.0.0.1/",
    "http://127.1/",
    "http://2130706433/",
    "http://0x7f000001/",
    "http://0177.0.0.1/",
    "http://localhost:8000/admin/",
    "http://0.0.0.0/",
    "http://10.0.0.1/",
    "http://172.16.5.4/",
    "http://192.168.1.1/",
    "http://100.64.0.1/",
    "http://169.254.169.254/latest/meta-data/",
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://[2002:7f00:1::]/",
    "http://[fd00::1]/",
    "http://[fe80::1]/",
    "http://224.0.0.1/",
    "http://255.255.255.255/",
    # issue 14, finding 9: IPv6 spellings that embed a private or loopback IPv4 address.
    "http://[64:ff9b::7f00:1]/",  # NAT64 (RFC 6052) of 127.0.0.1
    "http://[64:ff9b::127.0.0.1]/",
    "http://[64:ff9b::a9fe:a9fe]/",  # NAT64 of 169.254.169.254 (cloud metadata)
    "http://[64:ff9b:1::a00:1]/",  # local-use NAT64 (RFC 8215)
    "http://[::127.0.0.1]/",  # IPv4-compatible
    "http://[::7f00:1]/",
    "http://[::10.0.0.1]/",
    "http://[::ffff:0:127.0.0.1]/",  # SIIT IPv4-translated
    "http://[::ffff:0:0a00:1]/",
    "http://[::ffff:169.254.169.254]/",  # IPv4-mapped
    "http://[2002:a9fe:a9fe::1]/",  # 6to4 of 169.254.169.254
    "http://[2002:0a00:0001::]/",  # 6to4 of 10.0.0.1
    "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",  # Teredo, client 127.0.0.1 (obfuscated)
    "http://[2001:0:7f00:1:0:0:0:0]/",  # Teredo, server 127.0.0.1
]
NOT_HTTP = ["file:///etc/passwd", "gopher://example.com/", "ftp://example.com/", "http://user:pw@example.com/",
            "dict://127.0.0.1:6379/", "//example.com/"]


@pytest.mark.parametrize("url", INTERNAL_URLS + NOT_HTTP)
def test_a_webhook_url_on_an_internal_address_or_another_scheme_is_refused(url):
    assert netcheck.url_blockers(url) != []


@pytest.fixture
def resolve_to(monkeypatch):
    """Make every host name resolve to the given address (the DNS answer an attacker controls)."""
    calls = []

    def install(address: str):
        family = socket.AF_INET6 if ":" in address else socket.AF_INET

        def fake(host, port, *args, **kwargs):
            calls.append(host)
            return [(family, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, port or 80))]

        monkeypatch.setattr(socket, "getaddrinfo", fake)
        return calls

    return install


@pytest.mark.parametrize("address", ["127.0.0.1", "10.1.2.3", "169.254.169.254", "::1"])
def test_a_public_looking_name_that_resolves_inside_is_refused(resolve_to, address):
    resolve_to(address)
    assert netcheck.url_blockers("https://hooks.example.com/thingyard") != []


def test_the_portal_will_not_save_an_internal_webhook_url(app_x, resolve_to):
    resolve_to("169.254.169.254")
    app_x.user.save()
    browser = Client()
    browser.force_login(app_x.user)
    data = {**ApplicationEditForm.initial_for(app_x), "webhook_url": "https://metadata.example.com/"}
    response = browser.post(f"/developers/apps/{app_x.pk}/", data)
    assert response.status_code == 400
    app_x.refresh_from_db()
    assert app_x.webhook_url != "https://metadata.example.com/"


class _Recorder(http.server.BaseHTTPRequestHandler):
    hits: list = []
    location = None

    def do_POST(self):  # noqa: N802
        type(self).hits.append(self.path)
        self.send_response(302 if self.location else 200)
        if self.location:
            self.send_header("Location", self.location)
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def listener():
    """A real HTTP receiver on loopback: what an internal service would be."""
    handler = type("Recorder", (_Recorder,), {"hits": [], "location": None})
    server = http.server.HTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server, handler
    server.shutdown()
    server.server_close()


def test_dns_rebinding_at_delivery_time_is_refused_before_connecting(listener, resolve_to):
    server, handler = listener
    calls = resolve_to("127.0.0.1")  # public when saved, loopback now
    result = delivery.post(url=f"http://hooks.example.com:{server.server_port}/hook", body=b"{}", headers={},
                           timeout=2, allow_private=False)
    assert result.status_code is None and result.error.startswith("Refused")
    assert handler.hits == []
    assert calls == ["hooks.example.com"]  # resolved once; the checked answer is the one used


def test_the_connection_goes_to_the_address_that_was_checked(listener, resolve_to):
    server, handler = listener
    resolve_to("127.0.0.1")
    result = delivery.post(url=f"http://hooks.example.com:{server.server_port}/hook", body=b"{}", headers={},
                           timeout=2, allow_private=True)  # development setting: loopback allowed
    assert result.status_code == 200 and result.address == "127.0.0.1"
    assert handler.hits == ["/hook"]


def test_a_redirect_from_the_receiver_is_never_followed(listener):
    server, handler = listener
    class Inner(_Recorder):  # its own hits, not the outer receiver's
        hits: list = []
        location = None

    inner_handler = Inner
    inner = http.server.HTTPServer(("127.0.0.1", 0), inner_handler)
    thread = threading.Thread(target=inner.serve_forever, daemon=True)
    thread.start()
    try:
        handler.location = f"http://127.0.0.1:{inner.server_port}/internal"
        result = delivery.post(url=f"http://127.0.0.1:{server.server_port}/hook", body=b"{}", headers={},
                               timeout=2, allow_private=True)
    finally:
        inner.shutdown()
        inner.server_close()
    assert result.status_code == 302 and "Redirect refused" in result.error
    assert inner_handler.hits == []


@pytest.mark.parametrize("address", ["64:ff9b::7f00:1", "::127.0.0.1", "::ffff:0:127.0.0.1", "2002:7f00:1::1",
                                     "2001:0:4136:e378:8000:63bf:80ff:fffe", "64:ff9b:1::a00:1"])
def test_a_name_resolving_to_an_ipv6_spelling_of_an_internal_address_is_refused(resolve_to, address):
    resolve_to(address)
    assert netcheck.url_blockers("https://hooks.example.com/thingyard") != []


@pytest.mark.parametrize("address", ["64:ff9b::7f00:1", "::127.0.0.1", "::ffff:0:7f00:1"])
def test_an_embedded_loopback_is_refused_at_delivery_time_too(resolve_to, address):
    resolve_to(address)  # public when saved, an IPv6 spelling of loopback now
    result = delivery.post(url="https://hooks.example.com/thingyard", body=b"{}", headers={}, timeout=2,
                           allow_private=False)
    assert result.status_code is None and result.error.startswith("Refused:"), result.error


@pytest.mark.parametrize("address", ["64:ff9b::808:808", "::ffff:8.8.8.8", "2002:808:808::1", "2606:4700::1111"])
def test_ipv6_spellings_of_public_addresses_stay_allowed(address):
    assert netcheck.address_is_public(address)
