import pytest
from django.test import override_settings

pytestmark = pytest.mark.urls("apps.core.tests.urls")


def test_path_declared_without_slash_answers_get_in_both_forms(api, user):
    for path in ("/echo", "/echo/"):
        response = api.get(path)
        assert response.status_code == 200, path
        assert response.json() == {"user": user.username}


def test_path_declared_with_slash_answers_get_in_both_forms(api):
    assert api.get("/things/").status_code == 200
    assert api.get("/things").status_code == 200


def test_post_works_in_both_forms_without_a_redirect(api):
    for path in ("/echo", "/echo/", "/things", "/things/"):
        response = api.post(path, {"name": "x"}, format="json")
        assert response.status_code == 200, path
        assert response.json() == {"data": {"name": "x"}}


def test_query_string_survives_the_rewrite(api):
    response = api.get("/users?per_page=5")
    assert response.status_code == 200
    assert "per_page=5" in response["Link"]
    assert "/users/?" in response["Link"]


def test_unknown_path_answers_json_404_in_either_form(anon_client, db):
    for path in ("/nope", "/nope/", "/echo/extra"):
        response = anon_client.post(path)
        assert response.status_code == 404
        assert response.json() == {"error": "Not Found", "code": 404, "type": "NOT_FOUND"}
        assert response["X-Error"] == "Not Found"


@override_settings(DEBUG=True)
def test_unknown_path_is_json_even_in_debug(anon_client, db):
    response = anon_client.get("/nope")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json()["type"] == "NOT_FOUND"
