"""Pure account rules: permission predicates and "why not" reasons. No database access here."""

import re

from apps.accounts.models import RESERVED_USERNAMES
from apps.core.domain.licenses import USER_LICENSES
from apps.core.security.throttle import FailureLimit, wait_message

USERNAME_RE = re.compile(r"^[A-Za-z0-9_-]+$")
USERNAME_MAX_LENGTH = 40
USERNAME_MIN_LENGTH = 2

# spec §2 (User): the fields PATCH may change, with their limits (the model's column sizes; bio is a
# TextField whose 4000 cap the database does not enforce, so it is enforced here).
PROFILE_FIELD_MAX_LENGTHS = {"first_name": 150, "last_name": 150, "bio": 4000, "location": 100}
PROFILE_FIELDS = (*PROFILE_FIELD_MAX_LENGTHS, "default_license")


def user_can_edit(viewer, user) -> bool:
    """Only the owner edits a profile, deletes the account, asks for verification or reads its events."""
    return viewer is not None and viewer.is_authenticated and viewer.pk == user.pk


def username_blockers(username: str) -> list[str]:
    """Why `username` cannot be registered (format and reserved names; uniqueness needs the database)."""
    reasons = []
    if not isinstance(username, str) or not username:
        return ["Choose a user name."]
    if len(username) < USERNAME_MIN_LENGTH:
        reasons.append(f"Use at least {USERNAME_MIN_LENGTH} characters.")
    if len(username) > USERNAME_MAX_LENGTH:
        reasons.append(f"Use at most {USERNAME_MAX_LENGTH} characters.")
    if not USERNAME_RE.match(username):
        reasons.append("Use letters, digits, underscores and dashes only.")
    # Case-insensitive: `Me` would still shadow /users/me for some clients.
    if username.lower() in RESERVED_USERNAMES:
        reasons.append("That name is reserved.")
    return reasons


def user_profile_errors(data: dict) -> dict[str, list[str]]:
    """Field errors for a profile change (spec §4.1 PATCH): strings within limits, a USER license code."""
    errors: dict[str, list[str]] = {}
    for field, value in data.items():
        if field not in PROFILE_FIELDS:
            errors[field] = ["This field cannot be changed."]
        elif not isinstance(value, str):
            errors[field] = ["Not a valid string."]
        elif field == "default_license":
            if value not in USER_LICENSES:
                errors[field] = [f'"{value}" is not a valid choice.']
        elif len(value) > PROFILE_FIELD_MAX_LENGTHS[field]:
            errors[field] = [
                f"Ensure this field has no more than {PROFILE_FIELD_MAX_LENGTHS[field]} characters."
            ]
    return errors


def user_follow_blockers(follower, followed) -> list[str]:
    """spec §7: following oneself is a 400."""
    if follower.pk == followed.pk:
        return ["You cannot follow yourself."]
    return []


def user_delete_blockers(*, application) -> list[str]:
    """spec §4.1 calls DELETE /users/{username}/ "Restricted".

    Decision: an account can be deleted through the API only by an application that moderators approved
    (spec §5: approval). An unapproved app serves at most 10 users and is not trusted with an
    irreversible operation; an app's own read-only token has no user and never gets here.
    """
    if application is None or not application.is_approved:
        return ["Only an approved application may delete an account."]
    return []


def user_suspend_blockers(*, actor, user) -> list[str]:
    """A moderator cannot lock themselves out by suspending their own account."""
    if actor is not None and actor.pk == user.pk:
        return ["You cannot suspend your own account."]
    return []


def user_verification_blockers(user) -> list[str]:
    """spec §4.1 verify-account needs an address to send the mail to."""
    if not user.email:
        return ["The account has no e-mail address."]
    return []


# --- private messages --------------------------------------------------------------------------------

MESSAGE_BODY_MAX_LENGTH = 10000  # Message.body's cap (a TextField: the database does not enforce it)
# A sender may send this many messages per rolling hour: enough for any conversation, too few for spam.
MESSAGES_PER_HOUR = 30


def message_send_errors(*, sender, recipient, body) -> dict[str, list[str]]:
    """Field errors of a message (the site's /account/messages/new): a recipient other than oneself,
    a body that is not blank and within the cap. `recipient` is None when no active user has the name."""
    errors: dict[str, list[str]] = {}
    if recipient is None:
        errors["to"] = ["No user has that name."]
    elif recipient.pk == sender.pk:
        errors["to"] = ["You cannot send a message to yourself."]
    if not isinstance(body, str) or not body.strip():
        errors["body"] = ["Write a message."]
    elif len(body) > MESSAGE_BODY_MAX_LENGTH:
        errors["body"] = [f"Ensure this field has no more than {MESSAGE_BODY_MAX_LENGTH} characters."]
    return errors


# --- Sign-up throttle (docs/security.md, issue 22 finding 10) -------------------------------------------
# Accounts created from one address: a family or a classroom behind one NAT signs up a few at a time; a
# script making accounts in bulk is stopped after 10 in an hour, for the rest of that hour.
SIGNUP_ADDRESS_LIMIT = FailureLimit(scope="signup:address", limit=10, window_seconds=3600, lock_seconds=3600)


def signup_throttled_message(seconds: int) -> str:
    return (
        "Too many accounts were created from your network recently. "
        f"Please try again in {wait_message(seconds)}."
    )
