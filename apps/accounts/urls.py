"""One path() per spec path (spec §4.1); the core middleware makes both slash forms answer."""

from django.urls import path, register_converter

from apps.accounts import pages, views

app_name = "accounts"


class UsernameConverter:
    """A path segment naming a user, never the sibling path `unread-message-count` (spec §4.1).

    Without this, `/users/unread-message-count/` (slash added by a client) would resolve as the user
    detail of a user called "unread-message-count" and the optional-slash middleware would never try
    the other form; rejecting it here lets that request reach UnreadMessageCountView.
    """

    regex = "[^/]+"

    def to_python(self, value):
        if value == "unread-message-count":
            raise ValueError(value)
        return value

    def to_url(self, value):
        return value


register_converter(UsernameConverter, "username")

urlpatterns = [
    # Before users/<username>/: "unread-message-count" is a reserved name, never a user.
    path("users/unread-message-count", views.UnreadMessageCountView.as_view(), name="unread-message-count"),
    path("users/<username:username>/", views.UserDetailView.as_view(), name="user-detail"),
    path("users/<username:username>/followers", views.UserFollowersView.as_view(), name="user-followers"),
    path("users/<username:username>/following", views.UserFollowingView.as_view(), name="user-following"),
    path(
        "users/<username:username>/verify-account",
        views.UserVerifyAccountView.as_view(),
        name="user-verify-account",
    ),
    path(
        "users/<username:username>/event-count", views.UserEventCountView.as_view(), name="user-event-count"
    ),
    path(
        "users/<username:username>/unread-message-count",
        views.UserUnreadMessageCountView.as_view(),
        name="user-unread-message-count",
    ),
    # Site pages.
    path("@<str:username>", pages.profile_page, name="profile"),
    path("@<str:username>/follow", pages.profile_follow, name="profile-follow"),
    path("@<str:username>/<slug:tab>", pages.profile_page, name="profile-tab"),
    path("signup/", pages.signup, name="signup"),
    path("account/", pages.account_home, name="account"),
    path("account/verify-email", pages.account_send_verification, name="account-send-verification"),
    path("account/verify/<str:token>", pages.verify_email, name="verify-email"),
    # Credentials (docs/decisions.md "Accounts people can keep").
    path("password_reset/", pages.password_reset, name="password-reset"),
    path("password_reset/done/", pages.password_reset_done, name="password-reset-done"),
    path("reset/<uidb64>/<token>/", pages.PasswordResetConfirm.as_view(), name="password-reset-confirm"),
    path("reset/done/", pages.password_reset_complete, name="password-reset-complete"),
    path("account/password", pages.PasswordChange.as_view(), name="account-password"),
    path("account/email", pages.account_email, name="account-email"),
    path("account/notifications", pages.account_notify_email, name="account-notify-email"),
    path("account/email/confirm/<str:token>", pages.email_change_confirm, name="email-change-confirm"),
    path("account/close", pages.account_close, name="account-close"),
    path("account/messages", pages.messages_page, name="messages"),
    path("account/messages/new", pages.message_new, name="message-new"),
    path("account/messages/read-all", pages.messages_mark_all_read, name="messages-read-all"),
    path("account/messages/<int:message_id>", pages.message_page, name="message"),
]
