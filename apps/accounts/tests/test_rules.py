from types import SimpleNamespace

import pytest

from apps.accounts import rules


def _user(pk, authenticated=True):
    return SimpleNamespace(pk=pk, is_authenticated=authenticated)


def test_only_the_owner_can_edit_a_profile():
    assert rules.user_can_edit(_user(1), _user(1))
    assert not rules.user_can_edit(_user(2), _user(1))
    assert not rules.user_can_edit(None, _user(1))


@pytest.mark.parametrize("name", ["ada", "Ada_Lovelace-2", "x" * 40])
def test_it_accepts_plain_usernames(name):
    assert rules.username_blockers(name) == []


@pytest.mark.parametrize("name", ["me", "Me", "unread-message-count", "ADMIN", "signup"])
def test_it_rejects_reserved_usernames(name):
    assert "That name is reserved." in rules.username_blockers(name)


@pytest.mark.parametrize("name", ["a b", "ada!", "ümlaut", "x" * 41, "a", "", "../etc"])
def test_it_rejects_malformed_usernames(name):
    assert rules.username_blockers(name)


def test_profile_errors_accept_the_spec_fields():
    data = {
        "first_name": "Ada",
        "last_name": "",
        "bio": "b" * 4000,
        "location": "l" * 100,
        "default_license": "cc-nc",
    }
    assert rules.user_profile_errors(data) == {}


def test_profile_errors_name_each_bad_field():
    errors = rules.user_profile_errors(
        {"bio": "b" * 4001, "location": 5, "default_license": "cc-by", "email": "x@example.com"}
    )
    assert set(errors) == {"bio", "location", "default_license", "email"}


def test_things_only_license_cc_nc_is_allowed_as_user_default():
    # spec §2: the user default_license codes are the Thing codes plus cc-nc.
    assert rules.user_profile_errors({"default_license": "cc-nc"}) == {}


def test_it_blocks_following_oneself():
    assert rules.user_follow_blockers(_user(1), _user(1)) == ["You cannot follow yourself."]
    assert rules.user_follow_blockers(_user(1), _user(2)) == []


def test_only_an_approved_application_may_delete_an_account():
    assert rules.user_delete_blockers(application=SimpleNamespace(is_approved=True)) == []
    assert rules.user_delete_blockers(application=SimpleNamespace(is_approved=False))
    assert rules.user_delete_blockers(application=None)


def test_a_moderator_cannot_suspend_themselves():
    assert rules.user_suspend_blockers(actor=_user(1), user=_user(1))
    assert rules.user_suspend_blockers(actor=_user(1), user=_user(2)) == []


def test_verification_needs_an_email_address():
    assert rules.user_verification_blockers(SimpleNamespace(email=""))
    assert rules.user_verification_blockers(SimpleNamespace(email="a@example.com")) == []
