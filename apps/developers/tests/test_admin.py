"""The moderators' admin: approve/reject actions and credential admins that never show a secret."""
import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth.hashers import check_password
from oauth2_provider.models import get_application_model, get_grant_model, get_refresh_token_model

from apps.developers import services
from apps.oauth.models import AppAuthorization
from apps.oauth.tests.factories import APP_SECRET, AccessTokenFactory, ApplicationFactory

Application = get_application_model()
pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/oauth/application/"


def test_the_changelist_lists_apps_with_owner_type_state_and_user_count(
    moderator_client, own_app, other_user
):
    AppAuthorization.objects.create(application=own_app, user=other_user)

    response = moderator_client.get(CHANGELIST)

    assert response.status_code == 200
    [row] = response.context["cl"].result_list
    assert row._user_count == 1
    body = response.content.decode()
    assert own_app.name in body and own_app.user.username in body and "Pending review" in body


@pytest.mark.parametrize("count", [1, 30])
def test_the_changelist_takes_the_same_queries_for_1_and_30_apps(
    moderator_client, count, django_assert_num_queries
):
    ApplicationFactory.create_batch(count, approval_state="pending")
    # 1 session, 2 user, 3 filtered count, 4 total count, 5 the page of apps (owner and review request
    # joined, user count annotated)
    with django_assert_num_queries(5):
        response = moderator_client.get(CHANGELIST)
    assert response.status_code == 200


def test_the_changelist_can_be_searched_by_owner_and_filtered_by_state(moderator_client, own_app):
    other = ApplicationFactory(approval_state="approved")

    by_owner = moderator_client.get(CHANGELIST, {"q": own_app.user.username}).context["cl"].result_list
    pending = moderator_client.get(CHANGELIST, {"approval_state__exact": "pending"}).context["cl"].result_list

    assert [a.pk for a in by_owner] == [own_app.pk]
    assert [a.pk for a in pending] == [own_app.pk]
    assert other.pk not in [a.pk for a in pending]


def test_the_review_filter_lists_apps_submitted_for_review(moderator_client, own_app, owner):
    private = ApplicationFactory(approval_state="pending")
    services.application_submit_for_review(application=own_app, submitted_by=owner)

    queue = moderator_client.get(CHANGELIST, {"review": "submitted"}).context["cl"].result_list

    assert [a.pk for a in queue] == [own_app.pk]
    assert private.pk not in [a.pk for a in queue]


def test_the_approve_action_approves_the_selected_apps(moderator_client, moderator, own_app):
    untouched = ApplicationFactory(approval_state="pending")

    response = moderator_client.post(CHANGELIST, {"action": "approve", ACTION_CHECKBOX_NAME: [own_app.pk]})

    assert response.status_code == 302
    own_app.refresh_from_db()
    assert own_app.approval_state == "approved"
    assert own_app.reviewed_by == moderator
    assert own_app.reviewed_at is not None
    untouched.refresh_from_db()
    assert untouched.approval_state == "pending"


def test_the_reject_action_first_asks_for_a_reason(moderator_client, own_app):
    response = moderator_client.post(CHANGELIST, {"action": "reject", ACTION_CHECKBOX_NAME: [own_app.pk]})

    assert response.status_code == 200
    assert b'name="reason"' in response.content
    assert own_app.name.encode() in response.content
    own_app.refresh_from_db()
    assert own_app.approval_state == "pending"


def test_the_reject_action_with_a_reason_rejects_the_apps(moderator_client, moderator, own_app):
    second = ApplicationFactory(approval_state="approved")

    response = moderator_client.post(
        CHANGELIST,
        {
            "action": "reject",
            ACTION_CHECKBOX_NAME: [own_app.pk, second.pk],
            "apply": "1",
            "reason": "The callback does not belong to the app.",
        },
    )

    assert response.status_code == 302
    for app in (own_app, second):
        app.refresh_from_db()
        assert app.approval_state == "rejected"
        assert app.approval_reason == "The callback does not belong to the app."
        assert app.reviewed_by == moderator


def test_the_reject_action_without_a_reason_changes_nothing(moderator_client, own_app):
    response = moderator_client.post(
        CHANGELIST, {"action": "reject", ACTION_CHECKBOX_NAME: [own_app.pk], "apply": "1", "reason": ""}
    )

    assert response.status_code == 200
    assert response.context["form"].errors
    own_app.refresh_from_db()
    assert own_app.approval_state == "pending"


def test_the_app_admin_page_never_shows_the_client_secret(moderator_client, own_app):
    page = moderator_client.get(f"{CHANGELIST}{own_app.pk}/change/").content.decode()

    assert own_app.client_id in page
    assert own_app.client_secret not in page
    assert APP_SECRET not in page
    assert own_app.webhook_secret not in page
    assert 'name="client_secret"' not in page


def test_staff_without_permissions_cannot_use_the_application_admin(client, own_app):
    from apps.accounts.tests.factories import UserFactory

    client.force_login(UserFactory(is_staff=True))
    response = client.post(CHANGELIST, {"action": "approve", ACTION_CHECKBOX_NAME: [own_app.pk]})

    assert response.status_code == 403
    own_app.refresh_from_db()
    assert own_app.approval_state == "pending"


def test_the_token_admin_pages_never_show_a_token_value(moderator_client, own_app):
    user_token = AccessTokenFactory(application=own_app)
    readonly = services.application_issue_readonly_token(application=own_app)

    changelist = moderator_client.get("/admin/oauth2_provider/accesstoken/")
    change = moderator_client.get(f"/admin/oauth2_provider/accesstoken/{user_token.pk}/change/")

    assert changelist.status_code == change.status_code == 200
    for page in (changelist.content.decode(), change.content.decode()):
        assert user_token.token not in page
        assert readonly.token not in page
        assert user_token.token_checksum not in page
    # Stored as a checksum only (issue 22): a row is named by the checksum's first characters.
    assert "sha256:" + user_token.token_checksum[:12] + "…" in changelist.content.decode()
    assert "orders:read" in changelist.content.decode()


def test_tokens_cannot_be_found_by_searching_their_value(moderator_client, own_app):
    token = AccessTokenFactory(application=own_app)

    found = moderator_client.get("/admin/oauth2_provider/accesstoken/", {"q": token.token}).context["cl"]

    assert list(found.result_list) == []


def test_refresh_token_admin_masks_its_values_and_grants_are_not_in_the_admin(moderator_client, own_app, other_user):
    from django.utils import timezone

    access = AccessTokenFactory(application=own_app, user=other_user)
    refresh = get_refresh_token_model().objects.create(
        user=other_user, application=own_app, token="r" * 28 + "abcd", access_token=access
    )
    grant = get_grant_model().objects.create(
        user=other_user,
        application=own_app,
        code="c" * 28 + "wxyz",
        expires=timezone.now(),
        redirect_uri="https://app.example.com/callback",
    )

    pages = [
        moderator_client.get("/admin/oauth2_provider/refreshtoken/").content.decode(),
        moderator_client.get(f"/admin/oauth2_provider/refreshtoken/{refresh.pk}/change/").content.decode(),
        moderator_client.get("/admin/").content.decode(),
    ]

    for page in pages:
        assert refresh.token not in page and grant.code not in page
    refresh.refresh_from_db()
    assert refresh.token_checksum not in pages[1]
    assert "sha256:" + refresh.token_checksum[:12] + "…" in pages[0]
    # Authorization codes are the OAuth flow's bookkeeping: not in the admin at all.
    assert moderator_client.get("/admin/oauth2_provider/grant/").status_code == 404
    assert moderator_client.get(f"/admin/oauth2_provider/grant/{grant.pk}/change/").status_code == 404


def test_the_app_authorization_admin_is_a_read_only_list(moderator_client, own_app, other_user):
    auth = AppAuthorization.objects.create(application=own_app, user=other_user)

    assert moderator_client.get("/admin/oauth/appauthorization/").status_code == 200
    assert moderator_client.get("/admin/oauth/appauthorization/add/").status_code == 403
    page = moderator_client.get(f"/admin/oauth/appauthorization/{auth.pk}/change/")
    assert page.status_code == 200
    assert b'name="user"' not in page.content


def test_rotating_a_secret_is_not_possible_from_the_admin(moderator_client, own_app):
    url = f"{CHANGELIST}{own_app.pk}/change/"
    response = moderator_client.post(url, {"client_secret": "chosen-by-staff"})

    assert response.status_code == 403
    own_app.refresh_from_db()
    assert check_password(APP_SECRET, own_app.client_secret)


def test_the_oauth_flows_bookkeeping_is_not_in_the_admin(moderator_client):
    for path in ("/admin/oauth/authorizationcodeuse/", "/admin/oauth2_provider/grant/", "/admin/oauth2_provider/idtoken/"):
        assert moderator_client.get(path).status_code == 404, path
