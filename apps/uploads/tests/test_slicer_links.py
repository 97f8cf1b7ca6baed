""""Open in slicer" (issue 27, apps/uploads/slicers.py): the file list's buttons for the slicers whose URL
scheme opens a model from any host, and the signed route that answers the bytes without a session."""
import re
import time
from urllib.parse import unquote, urlsplit

import pytest
from django.test import Client

from apps.things.tests.factories import ThingFactory
from apps.uploads import slicers
from apps.uploads.models import ThingFile
from apps.uploads.tests.file_factories import live_file

pytestmark = pytest.mark.django_db

BODY = b"solid part\nendsolid part\n"


def _buttons(page: str) -> dict[str, str]:
    return {m[1]: m[0].replace("&amp;", "&") for m in re.findall(r'href="([a-z]+://open\?file=[^"]+)"[^>]*>Open in (\w+)', page)}


def _fetch_path(slicer_url: str) -> str:
    return urlsplit(unquote(slicer_url.split("?file=", 1)[1])).path


def test_the_file_list_offers_orcaslicer_and_cura_with_a_signed_link(s3, client, settings):
    thing = ThingFactory(is_published=True)
    file = live_file(s3, thing, name="Shelf bracket.3mf", body=BODY)

    buttons = _buttons(client.get(f"/thing:{thing.pk}").content.decode())

    assert set(buttons) == {"OrcaSlicer", "Cura"}
    assert buttons["OrcaSlicer"].startswith("orcaslicer://open?file=" + "http")
    assert buttons["Cura"].startswith("cura://open?file=")
    fetch = unquote(buttons["Cura"].split("?file=", 1)[1])
    assert fetch.startswith(settings.SITE_URL + f"/files/{file.pk}/open/")
    assert fetch.endswith("/Shelf%20bracket.3mf")
    assert "prusaslicer://" not in buttons.values() and "bambustudio" not in str(buttons)


def test_the_signed_link_answers_the_bytes_without_a_session_and_counts_a_download(s3, user):
    thing = ThingFactory(creator=user, is_published=False)  # a draft: only its owner sees the page
    file = live_file(s3, thing, name="clip.stl", body=BODY)
    owner = Client()
    owner.force_login(user)
    path = _fetch_path(_buttons(owner.get(f"/thing:{thing.pk}").content.decode())["OrcaSlicer"])

    response = Client().get(path)  # the slicer: no cookie, no token

    assert response.status_code == 200
    assert b"".join(response.streaming_content) == BODY  # type: ignore[attr-defined]  # a FileResponse
    assert response["Content-Type"] == "model/stl"
    assert response["Content-Disposition"].startswith('attachment; filename="clip.stl"')
    assert "no-store" in response["Cache-Control"] and "private" in response["Cache-Control"]
    assert Client().head(path).status_code == 200
    file.refresh_from_db()
    assert file.download_count == 2


def test_a_link_for_another_file_a_bad_token_or_an_expired_one_is_404(s3, monkeypatch):
    thing = ThingFactory(is_published=True)
    one = live_file(s3, thing, name="one.stl", body=BODY)
    two = live_file(s3, thing, name="two.stl", body=BODY)
    path = slicers.file_open_path(one.pk, one.name)

    assert Client().get(path).status_code == 200
    assert Client().get(path.replace(f"/files/{one.pk}/", f"/files/{two.pk}/")).status_code == 404
    assert Client().get(path[:-12] + "x" * 4 + path[-8:]).status_code == 404
    real_time = time.time
    monkeypatch.setattr(time, "time", lambda: real_time() + slicers.LINK_SECONDS + 5)
    assert Client().get(path).status_code == 404


def test_a_hidden_thing_or_a_file_not_live_is_404(s3):
    thing = ThingFactory(is_published=True)
    file = live_file(s3, thing, name="one.stl", body=BODY)
    path = slicers.file_open_path(file.pk, file.name)

    ThingFile.objects.filter(pk=file.pk).update(status="processing")
    assert Client().get(path).status_code == 404
    ThingFile.objects.filter(pk=file.pk).update(status="live")
    thing.is_hidden = True
    thing.save(update_fields=["is_hidden"])
    assert Client().get(path).status_code == 404


def test_files_slicers_do_not_open_get_no_button(s3, client):
    thing = ThingFactory(is_published=True)
    live_file(s3, thing, name="notes.pdf", body=b"%PDF-1.4")

    assert _buttons(client.get(f"/thing:{thing.pk}").content.decode()) == {}
