"""Site pages: /@<username>, /signup/, /account/ (session login; they call the same services as the API)."""

import pytest
from django.core import mail
from django.test import Client

from apps.accounts.models import User
from apps.accounts.tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def browser(user):
    client = Client()
    client.force_login(user)
    return client


# --- /@<username> ----------------------------------------------------------------------------------


def test_the_public_profile_shows_name_bio_and_location(client, user):
    response = client.get(f"/@{user.username}")
    assert response.status_code == 200
    html = response.content.decode()
    assert user.username in html and "Makes things." in html and "Earth" in html
    assert "/static/accounts/default-avatar.png" in html
    assert "Registered" in html


def test_the_public_profile_escapes_the_bio(client):
    victim = UserFactory(bio="<script>alert(1)</script>")
    html = client.get(f"/@{victim.username}").content.decode()
    assert "<script>alert(1)" not in html


def test_an_unknown_profile_is_404(client):
    assert client.get("/@nobody-here").status_code == 404


# --- /signup/ --------------------------------------------------------------------------------------


def _signup(client, **overrides):
    data = {
        "username": "newbie",
        "email": "newbie@example.com",
        "password1": "correct horse 42",
        "password2": "correct horse 42",
        **overrides,
    }
    return client.post("/signup/", data)


def test_signup_creates_the_account_logs_in_and_goes_to_the_account_page(client):
    assert client.get("/signup/").status_code == 200
    response = _signup(client)
    assert response.status_code == 302
    assert response["Location"] == "/account/"
    user = User.objects.get(username="newbie")
    assert client.session["_auth_user_id"] == str(user.pk)


def test_signup_follows_a_local_next(client):
    response = _signup(client, next="/login/oauth/authorize?client_id=abc")
    assert response["Location"] == "/login/oauth/authorize?client_id=abc"


def test_signup_ignores_a_foreign_next(client):
    assert _signup(client, next="https://evil.example/").get("Location") == "/account/"


@pytest.mark.parametrize("username", ["me", "Unread-Message-Count", "bad name!"])
def test_signup_rejects_reserved_and_malformed_names(client, username):
    response = _signup(client, username=username)
    assert response.status_code == 400
    assert not User.objects.filter(username=username).exists()


def test_signup_rejects_a_name_taken_in_another_case(client, user):
    response = _signup(client, username=user.username.upper())
    assert response.status_code == 400
    assert b"already exists" in response.content


def test_signup_rejects_mismatched_and_weak_passwords(client):
    assert _signup(client, password2="other horse 42").status_code == 400
    assert _signup(client, password1="123", password2="123").status_code == 400
    assert not User.objects.filter(username="newbie").exists()


# --- /account/ -------------------------------------------------------------------------------------


def test_the_account_page_needs_a_login(client):
    response = client.get("/account/")
    assert response.status_code == 302
    assert response["Location"].startswith("/login/?next=/account/")


def test_the_account_page_links_apps_and_the_developer_portal(browser, user):
    html = browser.get("/account/").content.decode()
    assert user.username in html
    assert 'href="/account/apps"' in html and 'href="/developers/apps/"' in html


def test_the_account_page_saves_the_profile(browser, user):
    data = {
        "first_name": "Ada",
        "last_name": "L",
        "location": "London",
        "bio": "Hi",
        "default_license": "gpl",
    }
    response = browser.post("/account/", data)
    assert response.status_code == 302
    user.refresh_from_db()
    assert (user.first_name, user.location, user.default_license) == ("Ada", "London", "gpl")


def test_the_account_page_rejects_an_unknown_license(browser, user):
    response = browser.post("/account/", {"default_license": "nope", "bio": "x"})
    assert response.status_code == 400
    user.refresh_from_db()
    assert user.default_license == "cc-sa"


def test_the_account_page_sends_the_verification_mail(browser, user):
    response = browser.post("/account/verify-email")
    assert response.status_code == 302
    assert mail.outbox[0].to == [user.email]


def test_pages_answer_in_both_slash_forms(client, user):
    assert client.get("/signup").status_code == 200
    assert client.get(f"/@{user.username}/").status_code == 200


# --- issue 15: the profile's tabs, sign-up keeps `next` ---------------------------------------------------


def test_the_profile_tabs_list_things_makes_collections_and_likes(client):
    from apps.makes.tests.factories import MakeFactory
    from apps.things import services as thing_services
    from apps.things.tests.factories import ThingFactory
    from apps.thingcollections.tests.factories import CollectionFactory

    maker = UserFactory(username="maker")
    ThingFactory(creator=maker, name="Own design")
    ThingFactory(creator=maker, name="Own draft", is_published=False, published_at=None)
    MakeFactory(creator=maker, thing=ThingFactory(name="Made thing"))
    CollectionFactory(creator=maker, name="Saved stuff")
    liked = ThingFactory(name="Liked thing")
    thing_services.thing_like(user=maker, thing=liked)
    things = client.get("/@maker").content.decode()
    assert "Own design" in things and "Own draft" not in things
    assert "Made thing" in client.get("/@maker/makes").content.decode()
    assert "Saved stuff" in client.get("/@maker/collections").content.decode()
    assert "Liked thing" in client.get("/@maker/likes").content.decode()
    assert client.get("/@maker/nonsense").status_code == 404


def test_each_profile_tab_shows_how_many_rows_it_holds_for_the_viewer(client, browser, user):
    """The counts are the tabs' own listings counted (apps.accounts.profiles.profile_counts): a stranger
    does not count the owner's draft, the owner does; the current tab's pager uses the same count."""
    import re

    from apps.makes.tests.factories import MakeFactory
    from apps.things.tests.factories import ThingFactory

    def counts(reader, path):
        html = reader.get(path).content.decode()
        return dict(re.findall(r'href="/@[^/"]+/([a-z]+)"[^>]*>[^<]+<span class="tab-count">(\d+)</span>', html))

    ThingFactory(creator=user, name="Shown")
    draft = ThingFactory(creator=user, name="Draft", is_published=False, published_at=None)
    MakeFactory(creator=user, thing=draft)
    for _ in range(25):  # more than a page of makes: the pager reads the tab's count
        MakeFactory(creator=user)
    owner, stranger = counts(browser, f"/@{user.username}"), counts(client, f"/@{user.username}")
    assert owner == {"things": "2", "makes": "26", "collections": "0", "likes": "0"}
    assert stranger == {"things": "1", "makes": "25", "collections": "0", "likes": "0"}
    second = client.get(f"/@{user.username}/makes?page=2").content.decode()
    assert counts(client, f"/@{user.username}/makes?page=2") == stranger and "Page 2 of 2" in second


def test_the_owner_sees_their_drafts_on_their_own_profile(browser, user):
    from apps.things.tests.factories import ThingFactory

    ThingFactory(creator=user, name="My draft", is_published=False, published_at=None)
    assert "My draft" in browser.get(f"/@{user.username}").content.decode()


def test_the_login_pages_sign_up_link_keeps_next(client):
    target = "/login/oauth/authorize?client_id=abc&response_type=code"
    html = client.get("/login/", {"next": target}).content.decode()
    assert 'href="/signup/?next=/login/oauth/authorize%3Fclient_id%3Dabc%26response_type%3Dcode"' in html
    signup = client.get("/signup/", {"next": target}).content.decode()
    assert f'name="next" value="{target.replace("&", "&amp;")}"' in signup
