"""The token the Thing page hands to an app's iframe: needs consent, is reused, dies with the consent."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from oauth2_provider.models import get_access_token_model

from apps.oauth import services as oauth_services
from apps.oauth.tests.factories import AccessTokenFactory
from apps.thingapps import rules, services
from apps.thingapps.models import HostToken
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db
AccessToken = get_access_token_model()


def test_it_refuses_a_token_to_an_app_the_user_has_not_authorized(thing_app, user):
    with pytest.raises(services.AuthorizationRequired):
        services.host_token_issue(application=thing_app, user=user)
    assert not AccessToken.objects.exists()


def test_it_issues_a_day_long_token_that_works_on_the_api(thing_app, user, consent):
    now = timezone.now()
    token = services.host_token_issue(application=thing_app, user=user, now=now)
    assert (token.user, token.application) == (user, thing_app)
    assert token.expires == now + rules.HOST_TOKEN_LIFETIME
    assert len(token.token) == 32
    assert HostToken.objects.filter(access_token=token).exists()
    response = Client().get("/users/me", HTTP_AUTHORIZATION=f"Bearer {token.token}")
    assert response.status_code == 200
    assert response.json()["id"] == user.pk


def test_it_reuses_its_token_while_enough_time_is_left(thing_app, user, consent):
    now = timezone.now()
    first = services.host_token_issue(application=thing_app, user=user, now=now)
    later = now + rules.HOST_TOKEN_LIFETIME - rules.HOST_TOKEN_MIN_REMAINING - timedelta(minutes=1)
    assert services.host_token_issue(application=thing_app, user=user, now=later) == first
    too_late = now + rules.HOST_TOKEN_LIFETIME - rules.HOST_TOKEN_MIN_REMAINING + timedelta(minutes=1)
    fresh = services.host_token_issue(application=thing_app, user=user, now=too_late)
    assert fresh != first
    assert AccessToken.objects.filter(user=user).count() == 2


def test_it_never_reuses_a_token_the_app_got_through_the_web_flow(thing_app, user, consent):
    own = AccessTokenFactory(user=user, application=thing_app, expires=timezone.now() + timedelta(days=20))
    token = services.host_token_issue(application=thing_app, user=user)
    assert token != own


def test_tokens_are_per_app_and_per_user(thing_app, user, other_user, consent):
    oauth_services.authorization_grant(application=thing_app, user=other_user)
    mine = services.host_token_issue(application=thing_app, user=user)
    theirs = services.host_token_issue(application=thing_app, user=other_user)
    assert mine != theirs and theirs.user == other_user


def test_revoking_the_app_deletes_the_hosts_token(thing_app, user, consent):
    token = services.host_token_issue(application=thing_app, user=user)
    oauth_services.authorization_revoke(user=user, application=thing_app)
    assert not AccessToken.objects.filter(pk=token.pk).exists()
    assert not HostToken.objects.exists()
    with pytest.raises(services.AuthorizationRequired):
        services.host_token_issue(application=thing_app, user=user)


def test_launch_gives_the_iframe_url_with_the_token_in_the_fragment(thing_app, user, consent):
    thing = ThingFactory()
    now = timezone.now()
    launch = services.thing_app_launch(application=thing_app, user=user, thing=thing, now=now)
    assert launch.expires_in == int(rules.HOST_TOKEN_LIFETIME.total_seconds())
    assert launch.src == (
        f"https://app.example.com/thing-app/?thing_id={thing.pk}#access_token={launch.access_token}"
        f"&token_type=bearer&expires_in={launch.expires_in}&thing_id={thing.pk}"
    )
