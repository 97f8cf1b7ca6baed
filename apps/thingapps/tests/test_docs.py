"""The developer docs page of Thing apps and its screenshots (docs/thing-apps.md, docs/img/)."""

import re

import pytest
from django.conf import settings
from django.http import FileResponse
from django.test import Client

DIALOGS = ("file_select", "thing_select", "thing_search", "thing_save")


@pytest.mark.django_db
def test_the_docs_page_shows_every_dialog_with_its_screenshot():
    response = Client().get("/developers/docs/thing-apps")
    assert response.status_code == 200
    body = response.content.decode()
    assert "<h1>Thing apps and the iframe SDK</h1>" in body
    for name in DIALOGS:
        assert f'src="img/thing-apps-{name}.png"' in body, name
    assert "/static/sdk/thingyard-sdk.js" in body and "/static/sdk/thingyard-sdk.mjs" in body


@pytest.mark.django_db
def test_every_image_the_docs_show_is_committed_and_served():
    text = (settings.BASE_DIR / "docs" / "thing-apps.md").read_text()
    images = re.findall(r"\]\(img/([a-z0-9_-]+)\.png\)", text)
    assert {f"thing-apps-{name}" for name in DIALOGS} <= set(images)
    for name in images:
        response = Client().get(f"/developers/docs/img/{name}.png")
        assert response.status_code == 200, name
        assert response["Content-Type"] == "image/png"
        assert isinstance(response, FileResponse)  # streamed from the docs' folder
        assert b"".join(response.streaming_content).startswith(b"\x89PNG")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    ["/developers/docs/img/nope.png", "/developers/docs/img/..%2Fsettings.png", "/developers/docs/img/.png"],
)
def test_unknown_docs_images_are_404(path):
    assert Client().get(path).status_code == 404


def test_the_sdk_is_served_at_its_stable_urls(client, settings):
    settings.WHITENOISE_USE_FINDERS = True  # as in production after collectstatic
    for path in ("/static/sdk/thingyard-sdk.js", "/static/sdk/thingyard-sdk.mjs"):
        response = client.get(path)
        assert response.status_code == 200, path
        assert "javascript" in response["Content-Type"]
        # A module script from the app's origin is a CORS request: WhiteNoise allows any origin.
        assert response["Access-Control-Allow-Origin"] == "*"
