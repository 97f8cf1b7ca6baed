"""The token endpoint refuses bad exchanges with RFC 6749 errors and mints nothing."""
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_grant_model

from apps.oauth.tests.factories import ApplicationFactory
from apps.oauth.tests.flow import (
    TOKEN,
    authorize_url,
    exchange_form,
    get_code,
    parse_form,
    redirect_params,
    token_params,
)
from apps.oauth.selectors import token_checksum

AccessToken = get_access_token_model()


@pytest.mark.django_db
def test_a_wrong_redirect_uri_is_invalid_request_and_mints_no_token(application, browser):
    code = get_code(browser, application)
    params = token_params(application, code, redirect_uri="https://app.example.com/other")
    response = exchange_form(Client(), params)
    assert response.status_code == 400
    assert parse_form(response)["error"] == "invalid_request"
    assert not AccessToken.objects.exists()


@pytest.mark.django_db
def test_a_reused_code_is_invalid_grant_and_revokes_the_tokens_it_minted(application, browser):
    code = get_code(browser, application)
    first = exchange_form(Client(), token_params(application, code), HTTP_ACCEPT="application/json")
    assert first.status_code == 200
    assert AccessToken.objects.count() == 1

    again = exchange_form(Client(), token_params(application, code), HTTP_ACCEPT="application/json")
    assert again.status_code == 400
    assert again["Content-Type"] == "application/json"
    assert again.json()["error"] == "invalid_grant"
    assert not AccessToken.objects.exists()  # RFC 6749 §4.1.2: revoke what the code minted
    refresh = first.json()["refresh_token"]
    response = exchange_form(
        Client(),
        {"grant_type": "refresh_token", "refresh_token": refresh, "client_id": application.client_id,
         "client_secret": token_params(application, "")["client_secret"]},
    )
    assert parse_form(response)["error"] == "invalid_grant"


@pytest.mark.django_db
def test_a_code_reused_after_refresh_rotation_still_revokes_the_whole_family(application, browser):
    code = get_code(browser, application)
    secret = token_params(application, "")["client_secret"]
    first = exchange_form(Client(), token_params(application, code), HTTP_ACCEPT="application/json").json()
    rotated = exchange_form(
        Client(),
        {"grant_type": "refresh_token", "refresh_token": first["refresh_token"],
         "client_id": application.client_id, "client_secret": secret},
        HTTP_ACCEPT="application/json",
    ).json()
    assert AccessToken.objects.filter(token_checksum=token_checksum(rotated["access_token"])).exists()

    exchange_form(Client(), token_params(application, code))
    assert not AccessToken.objects.exists()


@pytest.mark.django_db
def test_an_expired_code_is_invalid_grant(application, browser):
    code = get_code(browser, application)
    get_grant_model().objects.filter(code=code).update(expires=timezone.now() - timedelta(seconds=1))
    response = exchange_form(Client(), token_params(application, code))
    assert response.status_code == 400
    assert parse_form(response)["error"] == "invalid_grant"
    assert not AccessToken.objects.exists()


@pytest.mark.django_db
def test_a_wrong_secret_is_invalid_client_401(application, browser):
    code = get_code(browser, application)
    response = exchange_form(Client(), token_params(application, code, client_secret="wrong"))
    assert response.status_code == 401
    assert parse_form(response)["error"] == "invalid_client"
    assert not AccessToken.objects.exists()
    # The code survives a failed client authentication; the real client can still use it.
    assert exchange_form(Client(), token_params(application, code)).status_code == 200


@pytest.mark.django_db
def test_a_missing_secret_is_invalid_client_for_a_confidential_app(application, browser):
    code = get_code(browser, application)
    params = token_params(application, code)
    del params["client_secret"]
    response = exchange_form(Client(), params, HTTP_ACCEPT="application/json")
    assert response.status_code == 401
    assert response.json()["error"] == "invalid_client"
    assert not AccessToken.objects.exists()


@pytest.mark.django_db
def test_an_unknown_client_is_invalid_client(application, browser):
    code = get_code(browser, application)
    response = exchange_form(Client(), token_params(application, code, client_id="unknown"))
    assert response.status_code == 401
    assert parse_form(response)["error"] == "invalid_client"
    assert not AccessToken.objects.exists()


@pytest.mark.django_db
def test_another_apps_code_is_invalid_grant(application, browser):
    code = get_code(browser, application)
    other = ApplicationFactory()
    response = exchange_form(Client(), token_params(other, code))
    assert response.status_code == 400
    assert parse_form(response)["error"] == "invalid_grant"
    assert not AccessToken.objects.exists()


@pytest.mark.django_db
def test_a_missing_code_is_invalid_request(application):
    response = exchange_form(Client(), {"client_id": application.client_id, "client_secret": "x"})
    assert response.status_code == 400
    assert parse_form(response)["error"] == "invalid_request"


@pytest.mark.django_db
@pytest.mark.parametrize("password", ["pass-word-123", "wrong"], ids=["right-password", "wrong-password"])
def test_the_password_grant_is_refused_alike_for_right_and_wrong_passwords(application, user, password):
    # Not an oracle for users' passwords: the answer does not depend on them.
    params = {**token_params(application, "x"), "grant_type": "password", "username": user.username}
    response = exchange_form(Client(), {**params, "password": password})
    assert response.status_code == 400
    # docs/decisions.md (Device sign-in): a grant type it does not name is unsupported (apps.oauth.server).
    assert parse_form(response)["error"] == "unsupported_grant_type"
    assert not AccessToken.objects.exists()


@pytest.mark.django_db
def test_the_client_credentials_grant_is_refused(application):
    response = exchange_form(Client(), {**token_params(application, "x"), "grant_type": "client_credentials"})
    assert response.status_code == 400
    assert parse_form(response)["error"] == "unsupported_grant_type"
    assert not AccessToken.objects.exists()


@pytest.mark.django_db
def test_the_token_endpoint_answers_without_a_trailing_slash_and_with_one(application, browser):
    get_code(browser, application)
    for path in (TOKEN, TOKEN + "/"):
        code = redirect_params(browser.get(authorize_url(application)))["code"]  # consent remembered
        response = Client().post(path, token_params(application, code))
        assert response.status_code == 200, (path, response.content)


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_exchanges_of_one_code_mint_one_token():
    import threading

    from django.db import connection

    from apps.accounts.tests.factories import UserFactory

    app = ApplicationFactory()
    browser = Client()
    browser.force_login(UserFactory())
    code = get_code(browser, app)
    barrier = threading.Barrier(4)
    statuses: list[int] = []

    def exchange():
        try:
            barrier.wait()
            # raise_request_exception=False: a crash must show up as a 500 status, not vanish in the thread.
            client = Client(raise_request_exception=False)
            statuses.append(exchange_form(client, token_params(app, code)).status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=exchange) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [200, 400, 400, 400]
