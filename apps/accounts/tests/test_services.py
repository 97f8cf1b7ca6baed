import re
import time
from datetime import timedelta
from unittest import mock

import pytest
from django.core import mail
from oauth2_provider.models import get_access_token_model, get_refresh_token_model

from apps.accounts import services
from apps.accounts.models import Follow, User
from apps.activity.models import Event
from apps.accounts.tests.factories import UserFactory
from apps.core.domain.exceptions import PermissionDenied, RuleViolation, ValidationFailed
from apps.oauth.tests.factories import AccessTokenFactory, ApplicationFactory

pytestmark = pytest.mark.django_db

AccessToken = get_access_token_model()


# --- user_update -----------------------------------------------------------------------------------


def test_update_saves_the_given_fields_only(user):
    services.user_update(user=user, data={"bio": "New bio", "default_license": "gpl"})
    user.refresh_from_db()
    assert (user.bio, user.default_license, user.location) == ("New bio", "gpl", "Earth")


def test_update_rejects_an_unknown_license(user):
    with pytest.raises(ValidationFailed) as exc:
        services.user_update(user=user, data={"default_license": "cc-by"})
    assert set(exc.value.errors) == {"default_license"}


def test_update_rejects_an_over_long_location(user):
    with pytest.raises(ValidationFailed) as exc:
        services.user_update(user=user, data={"location": "x" * 101})
    assert set(exc.value.errors) == {"location"}
    user.refresh_from_db()
    assert user.location == "Earth"


# --- user_register ---------------------------------------------------------------------------------


def test_register_creates_a_user_with_a_usable_password():
    user = services.user_register(username="Ada", email="ada@example.com", password="correct horse 42")
    assert user.check_password("correct horse 42")
    assert not user.email_verified


def test_register_rejects_a_name_taken_in_another_case(user):
    with pytest.raises(ValidationFailed) as exc:
        services.user_register(
            username=user.username.upper(), email="x@example.com", password="correct horse 42"
        )
    assert exc.value.errors["username"] == ["A user with that name already exists."]


def test_register_rejects_a_reserved_name_and_a_weak_password():
    with pytest.raises(ValidationFailed) as exc:
        services.user_register(username="ME", email="bad", password="123")
    assert set(exc.value.errors) == {"username", "email", "password"}


def test_register_turns_a_lost_uniqueness_race_into_a_validation_error(user):
    # The pre-check passed for both racers; the Lower(username) constraint catches the second insert.
    with mock.patch("apps.accounts.selectors.user_name_taken", return_value=False):
        with pytest.raises(ValidationFailed) as exc:
            services.user_register(
                username=user.username.title(), email="x@example.com", password="correct horse 42"
            )
    assert "username" in exc.value.errors


# --- user_delete / suspend -------------------------------------------------------------------------


def test_delete_removes_the_user_and_its_tokens(user, application):
    token = AccessTokenFactory(user=user, application=application)
    services.user_delete(user=user, application=application)
    assert not User.objects.filter(pk=user.pk).exists()
    assert not AccessToken.objects.filter(pk=token.pk).exists()


def test_delete_through_an_unapproved_application_is_forbidden(user):
    app = ApplicationFactory(approval_state="pending")
    with pytest.raises(PermissionDenied):
        services.user_delete(user=user, application=app)
    assert User.objects.filter(pk=user.pk).exists()


def test_suspend_deactivates_and_revokes_every_token(user, other_user, application):
    AccessTokenFactory(user=user, application=application)
    get_refresh_token_model().objects.create(
        user=user, application=application, token="r" * 32, access_token=AccessTokenFactory(user=user)
    )
    kept = AccessTokenFactory(user=other_user)
    services.user_suspend(user=user, reason="Spam", actor=other_user)
    user.refresh_from_db()
    assert (user.is_active, user.suspended_reason) == (False, "Spam")
    assert not AccessToken.objects.filter(user=user).exists()
    assert not get_refresh_token_model().objects.filter(user=user).exists()
    assert AccessToken.objects.filter(pk=kept.pk).exists()


def test_a_moderator_cannot_suspend_themselves(user):
    with pytest.raises(RuleViolation):
        services.user_suspend(user=user, reason="oops", actor=user)


def test_unsuspend_reopens_the_account(user):
    services.user_suspend(user=user, reason="Spam")
    services.user_unsuspend(user=user)
    user.refresh_from_db()
    assert (user.is_active, user.suspended_reason) == (True, "")


# --- follow / events -------------------------------------------------------------------------------


def test_follow_records_one_event_for_the_followed_user(user, other_user):
    services.user_follow(follower=user, followed=other_user)
    services.user_follow(follower=user, followed=other_user)
    assert Follow.objects.filter(follower=user, followed=other_user).count() == 1
    event = Event.objects.get(recipient=other_user)
    assert (event.kind, event.actor, event.target_type, event.target_id) == ("follow", user, "user", user.pk)


def test_it_rejects_following_oneself(user):
    with pytest.raises(RuleViolation):
        services.user_follow(follower=user, followed=user)
    assert not Follow.objects.exists()


def test_unfollow_is_fine_when_not_following(user, other_user):
    services.user_unfollow(follower=user, followed=other_user)
    services.user_follow(follower=user, followed=other_user)
    services.user_unfollow(follower=user, followed=other_user)
    assert not Follow.objects.exists()


# --- e-mail verification ---------------------------------------------------------------------------


def _link_token(message) -> str:
    match = re.search(r"/account/verify/(\S+)", message.body)
    assert match is not None, message.body
    return match.group(1)


def test_send_verification_mails_a_signed_link(user, settings):
    assert services.user_send_verification(user=user) is True
    [message] = mail.outbox
    assert message.to == [user.email]
    assert message.from_email == settings.DEFAULT_FROM_EMAIL
    assert "http://testserver/account/verify/" in message.body


def test_send_verification_sends_at_most_one_mail_a_minute(user):
    services.user_send_verification(user=user)
    assert services.user_send_verification(user=user) is False
    assert len(mail.outbox) == 1


def test_send_verification_needs_an_address():
    with pytest.raises(RuleViolation):
        services.user_send_verification(user=UserFactory(email=""))
    assert mail.outbox == []


def test_the_link_verifies_the_address(user):
    services.user_send_verification(user=user)
    services.user_verify_email(token=_link_token(mail.outbox[0]))
    user.refresh_from_db()
    assert user.email_verified


def test_an_expired_link_is_refused(user):
    services.user_send_verification(user=user)
    token = _link_token(mail.outbox[0])
    with mock.patch(
        "django.core.signing.time.time",
        return_value=time.time() + timedelta(days=3, seconds=5).total_seconds(),
    ):
        with pytest.raises(RuleViolation, match="expired"):
            services.user_verify_email(token=token)


def test_a_link_for_a_previous_address_is_refused(user):
    services.user_send_verification(user=user)
    User.objects.filter(pk=user.pk).update(email="new@example.com")
    with pytest.raises(RuleViolation):
        services.user_verify_email(token=_link_token(mail.outbox[0]))


def test_a_tampered_link_is_refused(user):
    with pytest.raises(RuleViolation):
        services.user_verify_email(token="eyJpZCI6MX0:1abc:forged")


@pytest.mark.django_db(transaction=True)
def test_concurrent_follows_make_one_row_and_one_event():
    import threading

    from django.db import connection

    follower, followed = UserFactory(), UserFactory()
    barrier = threading.Barrier(6)
    errors = []

    def follow():
        try:
            barrier.wait()
            services.user_follow(follower=follower, followed=followed)
        except Exception as exc:  # collected: an assert in a thread would be lost
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=follow) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert Follow.objects.filter(follower=follower, followed=followed).count() == 1
    assert Event.objects.filter(recipient=followed, kind="follow").count() == 1
