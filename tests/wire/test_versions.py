"""docs/decisions.md: Wire versions. The version of a request: the `Thingyard-Version` header, else its
app's `wire_version` (portal, admin, `manage.py app_wire_version`), else `spec`; echoed on every answer;
an unknown one is 400 UNKNOWN_VERSION. The cached reads answer each version its own shapes."""
import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.core.management import CommandError, call_command

from apps.developers import services as developer_services
from apps.oauth.tests.factories import AccessTokenFactory, ApplicationFactory
from tests.support.api import bearer_client
from apps.things.tests.factories import ThingFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def thing(other_user):
    return ThingFactory(creator=other_user, tags=["shelf"])


def _is_spec(body) -> bool:
    return body["is_published"] is True and isinstance(body["tags"], str)


def _is_thingiverse(body) -> bool:
    return body["is_published"] == 1 and body["is_published"] is not True and isinstance(body["tags"], list)


def test_the_default_is_spec_and_every_answer_says_so(api, thing):
    response = api.get(f"/things/{thing.pk}/")
    assert response["Thingyard-Version"] == "spec" and _is_spec(response.json())
    missing = api.get("/things/999999999/")
    assert missing.status_code == 404 and missing["Thingyard-Version"] == "spec"


def test_the_header_chooses_the_version(api, thing):
    response = api.get(f"/things/{thing.pk}/", HTTP_THINGYARD_VERSION="thingiverse")
    assert response["Thingyard-Version"] == "thingiverse" and _is_thingiverse(response.json())
    assert api.get(f"/things/{thing.pk}/", HTTP_THINGYARD_VERSION=" Thingiverse ").status_code == 200


@pytest.mark.parametrize("value", ["2026-01-01", "", "spec,thingiverse", "x" * 300])
def test_an_unknown_version_is_400_with_the_error_body(api, thing, value):
    response = api.get(f"/things/{thing.pk}/", HTTP_THINGYARD_VERSION=value)
    assert response.status_code == 400
    body = response.json()
    assert body["type"] == "UNKNOWN_VERSION" and body["code"] == 400 and "spec" in body["error"]
    assert response["X-Error"]


def test_an_unknown_version_is_400_before_the_token_is_looked_at(anon_client):
    response = anon_client.get("/things/1/", HTTP_THINGYARD_VERSION="nope")
    assert response.status_code == 400 and response.json()["type"] == "UNKNOWN_VERSION"


def test_the_apps_version_applies_and_the_header_overrides_it(user, application, thing):
    developer_services.application_wire_version_set(application=application, version="thingiverse")
    client = bearer_client(AccessTokenFactory(user=user, application=application))
    pinned = client.get(f"/things/{thing.pk}/")
    assert pinned["Thingyard-Version"] == "thingiverse" and _is_thingiverse(pinned.json())
    overridden = client.get(f"/things/{thing.pk}/", HTTP_THINGYARD_VERSION="spec")
    assert overridden["Thingyard-Version"] == "spec" and _is_spec(overridden.json())


def test_an_unknown_version_is_refused_by_the_service(application):
    from apps.core.domain.exceptions import ValidationFailed

    with pytest.raises(ValidationFailed):
        developer_services.application_wire_version_set(application=application, version="v2")


@pytest.mark.parametrize("caches", [False, True])
def test_cached_bodies_are_kept_per_version_and_a_pinned_app_changes_at_once(settings, user, application, thing,
                                                                            caches):
    """With the Thing body cache and the token cache on (the one-round-trip path answers `spec` only),
    each version reads its own cached body, and re-pinning the app takes effect on the next request."""
    if caches:
        settings.THING_BODY_CACHE_SECONDS = 600
        settings.OAUTH_TOKEN_CACHE_SECONDS = 5
    client = bearer_client(AccessTokenFactory(user=user, application=application))
    path = f"/things/{thing.pk}/"
    for _ in range(2):  # the second read of each is from the cache when it is on
        assert _is_spec(client.get(path).json())
        assert _is_thingiverse(client.get(path, HTTP_THINGYARD_VERSION="thingiverse").json())
    call_command("app_wire_version", application.client_id, "thingiverse", stdout=open("/dev/null", "w"))
    for _ in range(2):
        response = client.get(path)
        assert response["Thingyard-Version"] == "thingiverse" and _is_thingiverse(response.json())
    call_command("app_wire_version", application.client_id, "spec", stdout=open("/dev/null", "w"))
    assert _is_spec(client.get(path).json())


def test_lists_are_kept_per_version(settings, api, thing):
    settings.THING_BODY_CACHE_SECONDS = 600
    for _ in range(2):
        assert api.get("/newest/").json()[0]["is_published"] is True
        assert api.get("/newest/", HTTP_THINGYARD_VERSION="thingiverse").json()[0]["is_published"] == 1


def test_the_command_names_the_app_and_refuses_what_it_cannot_set(application):
    with pytest.raises(CommandError):
        call_command("app_wire_version", "no-such-client", "spec")
    with pytest.raises(CommandError):
        call_command("app_wire_version", application.client_id, "v9")
    application.refresh_from_db()
    assert application.wire_version == "spec"


# --- the developer portal and the admin ----------------------------------------------------------------


@pytest.fixture
def own_app(owner):
    return ApplicationFactory(user=owner)


def test_the_app_page_shows_and_changes_the_version(owner_client, own_app):
    page = owner_client.get(f"/developers/apps/{own_app.pk}/")
    assert page.status_code == 200
    assert b'id="app-wire-version">spec<' in page.content and b'value="thingiverse"' in page.content
    response = owner_client.post(f"/developers/apps/{own_app.pk}/wire-version", {"wire_version": "thingiverse"})
    assert response.status_code == 302
    own_app.refresh_from_db()
    assert own_app.wire_version == "thingiverse"
    assert b'id="app-wire-version">thingiverse<' in owner_client.get(f"/developers/apps/{own_app.pk}/").content


def test_the_app_page_refuses_an_unknown_version_and_strangers(owner_client, stranger_client, own_app):
    assert owner_client.post(f"/developers/apps/{own_app.pk}/wire-version", {"wire_version": "v2"}).status_code == 400
    assert stranger_client.post(
        f"/developers/apps/{own_app.pk}/wire-version", {"wire_version": "thingiverse"}
    ).status_code == 404
    own_app.refresh_from_db()
    assert own_app.wire_version == "spec"


def test_the_admin_sets_the_version_of_the_selected_apps(own_app):
    from django.test import Client

    from apps.accounts.tests.factories import UserFactory

    client = Client()
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    changelist = "/admin/oauth/application/"
    response = client.post(changelist, {"action": "wire_version_thingiverse", ACTION_CHECKBOX_NAME: [own_app.pk]})
    assert response.status_code == 302
    own_app.refresh_from_db()
    assert own_app.wire_version == "thingiverse"
    assert b"thingiverse" in client.get(f"{changelist}{own_app.pk}/change/").content


# --- the OpenAPI document and Swagger ----------------------------------------------------------------


def test_the_document_has_a_variant_per_version(anon_client):
    spec = anon_client.get("/openapi.json").json()
    live = anon_client.get("/openapi.json?version=thingiverse").json()
    assert spec["components"]["schemas"]["Thing"]["properties"]["is_published"]["type"] == "boolean"
    assert live["components"]["schemas"]["Thing"]["properties"]["is_published"]["type"] == "integer"
    by_header = anon_client.get("/openapi.json", HTTP_THINGYARD_VERSION="thingiverse").json()
    assert by_header["components"]["schemas"]["Thing"] == live["components"]["schemas"]["Thing"]
    bad = anon_client.get("/openapi.json?version=v3")
    assert bad.status_code == 400 and bad.json()["type"] == "UNKNOWN_VERSION"


def test_swagger_shows_either_version_and_links_the_other(anon_client):
    page = anon_client.get("/docs/?version=thingiverse")
    assert page.status_code == 200 and b"/openapi.json?version\\u003Dthingiverse" in page.content
    assert anon_client.get("/docs/?version=v3").status_code == 400
    spec = anon_client.get("/openapi.json").json()
    assert "/docs/?version=thingiverse" in spec["info"]["description"]
