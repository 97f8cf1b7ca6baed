"""spec §5/§8: an unapproved application serves at most UNAPPROVED_APP_USER_LIMIT distinct users."""
import threading

import pytest
from django.db import connection
from django.test import Client
from oauth2_provider.models import get_access_token_model, get_grant_model

from apps.accounts.tests.factories import UserFactory
from apps.oauth import selectors, services
from apps.oauth.models import AppAuthorization
from apps.oauth.services import ApplicationUserLimitReached
from apps.oauth.tests.factories import ApplicationFactory
from apps.oauth.tests.flow import authorize_url, exchange_form, get_code, redirect_params, token_params

LIMIT = 10


def _browser(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def full_app(pending_app):
    """An unapproved app whose 10 user slots are taken."""
    for _ in range(LIMIT):
        services.authorization_grant(application=pending_app, user=UserFactory())
    return pending_app


@pytest.mark.django_db
def test_ten_users_can_authorize_an_unapproved_app_and_the_eleventh_gets_a_403_page(pending_app):
    users = [UserFactory() for _ in range(LIMIT + 1)]
    for user in users[:LIMIT]:
        assert get_code(_browser(user), pending_app)
    assert selectors.application_user_count(application=pending_app) == LIMIT

    eleventh = _browser(users[LIMIT])
    response = eleventh.get(authorize_url(pending_app))
    assert response.status_code == 403
    assert "text/html" in response["Content-Type"]
    body = response.content.decode()
    assert "awaiting review" in body and "10" in body
    assert not response.has_header("Location")
    assert not get_grant_model().objects.filter(user=users[LIMIT]).exists()
    assert selectors.application_user_count(application=pending_app) == LIMIT


@pytest.mark.django_db
def test_the_eleventh_user_posting_the_consent_form_gets_no_code(full_app, user):
    client = _browser(user)
    url = authorize_url(full_app)
    form = {"client_id": full_app.client_id, "redirect_uri": "https://app.example.com/callback",
            "response_type": "code", "scope": "read write", "allow": "Authorize"}
    response = client.post(url, form)
    assert response.status_code == 403
    assert not get_grant_model().objects.filter(user=user).exists()
    assert not AppAuthorization.objects.filter(user=user).exists()


@pytest.mark.django_db
def test_the_eleventh_user_gets_no_implicit_token(full_app, user):
    response = _browser(user).get(authorize_url(full_app, response_type="token"))
    assert response.status_code == 403
    assert not get_access_token_model().objects.filter(user=user).exists()


@pytest.mark.django_db
def test_users_already_counted_keep_working_when_the_app_is_full(full_app):
    authorization = AppAuthorization.objects.filter(application=full_app).first()
    assert authorization is not None
    counted = authorization.user
    client = _browser(counted)
    code = redirect_params(client.get(authorize_url(full_app)))["code"]  # consent remembered
    response = exchange_form(Client(), token_params(full_app, code))
    assert response.status_code == 200, response.content


@pytest.mark.django_db
def test_after_approval_the_eleventh_user_succeeds(full_app, user):
    assert _browser(user).get(authorize_url(full_app)).status_code == 403
    full_app.approval_state = "approved"
    full_app.save(update_fields=["approval_state"])
    code = get_code(_browser(user), full_app)
    assert exchange_form(Client(), token_params(full_app, code)).status_code == 200
    assert selectors.application_user_count(application=full_app) == LIMIT + 1


@pytest.mark.django_db
def test_a_code_never_mints_a_token_for_a_user_the_app_was_not_allowed_to_serve(full_app, user):
    # A grant row that bypassed the consent service (e.g. written by hand) is still refused.
    from datetime import timedelta

    from django.utils import timezone

    get_grant_model().objects.create(
        application=full_app, user=user, code="forged-code", expires=timezone.now() + timedelta(minutes=5),
        redirect_uri="https://app.example.com/callback", scope="read write",
    )
    response = exchange_form(Client(), token_params(full_app, "forged-code"))
    assert response.status_code == 400
    assert "error=invalid_grant" in response.content.decode()
    assert not get_access_token_model().objects.filter(user=user).exists()


@pytest.mark.django_db
def test_authorization_grant_is_idempotent_for_a_counted_user(pending_app, user):
    first = services.authorization_grant(application=pending_app, user=user)
    again = services.authorization_grant(application=pending_app, user=user)
    assert first.pk == again.pk
    assert selectors.application_user_count(application=pending_app) == 1


@pytest.mark.django_db
def test_authorization_grant_refuses_the_eleventh_user(full_app, user):
    with pytest.raises(ApplicationUserLimitReached):
        services.authorization_grant(application=full_app, user=user)


@pytest.mark.django_db
def test_the_limit_comes_from_settings(pending_app, settings):
    settings.UNAPPROVED_APP_USER_LIMIT = 2
    services.authorization_grant(application=pending_app, user=UserFactory())
    services.authorization_grant(application=pending_app, user=UserFactory())
    with pytest.raises(ApplicationUserLimitReached):
        services.authorization_grant(application=pending_app, user=UserFactory())


@pytest.mark.django_db
def test_application_user_count_costs_one_query(pending_app, django_assert_num_queries):
    services.authorization_grant(application=pending_app, user=UserFactory())
    with django_assert_num_queries(1):  # SELECT COUNT(*) FROM oauth_appauthorization WHERE application
        assert selectors.application_user_count(application=pending_app) == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_consents_never_let_the_eleventh_user_in():
    app = ApplicationFactory(approval_state="pending")
    users = [UserFactory() for _ in range(LIMIT + 6)]
    barrier = threading.Barrier(len(users))
    outcomes: list[str] = []
    lock = threading.Lock()

    def consent_as(user):
        try:
            barrier.wait()
            try:
                services.authorization_grant(application=app, user=user)
                result = "ok"
            except ApplicationUserLimitReached:
                result = "limited"
            with lock:
                outcomes.append(result)
        finally:
            connection.close()  # each thread has its own connection

    threads = [threading.Thread(target=consent_as, args=(u,)) for u in users]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert outcomes.count("ok") == LIMIT
    assert outcomes.count("limited") == 6
    assert AppAuthorization.objects.filter(application=app).count() == LIMIT


@pytest.mark.django_db(transaction=True)
def test_concurrent_browser_consents_never_issue_an_eleventh_code():
    app = ApplicationFactory(approval_state="pending")
    users = [UserFactory() for _ in range(LIMIT + 4)]
    clients = [_browser(u) for u in users]
    barrier = threading.Barrier(len(users))
    statuses: list[int] = []
    lock = threading.Lock()
    form = {"client_id": app.client_id, "redirect_uri": "https://app.example.com/callback",
            "response_type": "code", "scope": "read write", "allow": "Authorize"}

    def post(client):
        try:
            barrier.wait()
            response = client.post(authorize_url(app), form)
            with lock:
                statuses.append(response.status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=post, args=(c,)) for c in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join()

    assert statuses.count(302) == LIMIT
    assert statuses.count(403) == 4
    assert get_grant_model().objects.filter(application=app).values("user").distinct().count() == LIMIT
