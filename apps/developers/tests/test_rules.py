import pytest

from apps.core.security import netcheck
from apps.developers import rules


def test_application_url_is_required_for_web_and_thing_apps_only():
    assert rules.application_url_required("web")
    assert rules.application_url_required("thing")
    assert not rules.application_url_required("mobile")
    assert not rules.application_url_required("desktop")


def _blockers(**overrides):
    fields = {
        "app_type": "web",
        "info_url": "https://a.example/about",
        "application_url": "https://a.example",
        "callback_url": "https://a.example/cb",
        "client_type": "confidential",
    }
    fields.update(overrides)
    return rules.application_registration_blockers(**fields)


def test_registration_blockers_are_empty_for_a_complete_web_app():
    assert _blockers() == {}


@pytest.mark.parametrize("app_type", ["web", "thing"])
def test_registration_blockers_name_the_missing_application_url_of_web_and_thing_apps(app_type):
    assert list(_blockers(app_type=app_type, application_url="")) == ["application_url"]


@pytest.mark.parametrize("app_type", ["mobile", "desktop"])
def test_registration_blockers_accept_installed_apps_without_application_url(app_type):
    assert _blockers(app_type=app_type, application_url="") == {}


def test_registration_blockers_refuse_a_callback_that_is_not_http():
    assert "callback_url" in _blockers(callback_url="ftp://a.example/cb")
    assert "callback_url" in _blockers(callback_url="myapp://cb")
    assert "callback_url" in _blockers(callback_url="")


def test_registration_blockers_refuse_a_public_client_for_a_web_app():
    assert list(_blockers(client_type="public")) == ["client_type"]
    assert _blockers(app_type="mobile", client_type="public") == {}


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/hook",
        "http://10.0.0.5/hook",
        "http://192.168.1.20:8080/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://localhost/hook",
        "http://[::1]/hook",
        "http://[::ffff:127.0.0.1]/hook",
        "http://0.0.0.0/hook",
        "http://100.64.0.1/hook",
    ],
)
def test_webhook_url_blockers_refuse_non_public_addresses(settings, url):
    settings.ALLOW_PRIVATE_WEBHOOK_URLS = False
    assert rules.webhook_url_blockers(url)


def test_webhook_url_blockers_accept_a_public_address(settings):
    settings.ALLOW_PRIVATE_WEBHOOK_URLS = False
    assert rules.webhook_url_blockers("https://93.184.215.14/hook") == []


def test_webhook_url_blockers_accept_private_addresses_when_the_setting_allows(settings):
    settings.ALLOW_PRIVATE_WEBHOOK_URLS = True
    assert rules.webhook_url_blockers("http://127.0.0.1:9000/hook") == []
    assert rules.webhook_url_blockers("http://localhost/hook") == []


def test_webhook_url_blockers_refuse_other_schemes_and_credentials_even_when_private_is_allowed(settings):
    settings.ALLOW_PRIVATE_WEBHOOK_URLS = True
    assert rules.webhook_url_blockers("ftp://93.184.215.14/hook")
    assert rules.webhook_url_blockers("https://user:pw@93.184.215.14/hook")


def test_webhook_url_blockers_refuse_a_name_that_does_not_resolve(settings):
    settings.ALLOW_PRIVATE_WEBHOOK_URLS = False
    assert rules.webhook_url_blockers("https://no-such-host.invalid/hook")


def test_an_empty_webhook_url_has_no_blockers():
    assert rules.webhook_url_blockers("") == []


def test_address_is_public_unwraps_ipv4_mapped_addresses():
    assert not netcheck.address_is_public("::ffff:10.0.0.1")
    assert netcheck.address_is_public("::ffff:93.184.215.14")
