"""examples/device-upload runs against the live test server: it signs in by device code while a person
approves on the /device page (over HTTP, as a browser would), then uploads an STL to a new Thing."""
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from apps.accounts.tests.factories import UserFactory
from apps.oauth.tests.device import approve_over_http
from apps.oauth.tests.factories import ApplicationFactory
from apps.things.models import Thing
from apps.uploads.tests.upload_helpers import ASCII_STL

CLIENT = Path(settings.BASE_DIR) / "examples" / "device-upload" / "thingyard_upload.py"


def _run_client(args, *, approve_as: str, live_url: str, allow: bool = True):
    """Starts the example client; when it prints its code, approves (or denies) it on the live server."""
    process = subprocess.Popen(
        [sys.executable, str(CLIENT), "--server", live_url, *args],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    lines: list[str] = []
    approved = threading.Event()
    assert process.stdout is not None
    for line in process.stdout:
        lines.append(line)
        match = re.search(r"enter the code ([B-Z]{4}-[B-Z]{4})", line)
        if match and not approved.is_set():
            approve_over_http(live_url, approve_as, match.group(1), allow=allow)
            approved.set()
    process.wait(timeout=120)
    return process.returncode, "".join(lines)


@pytest.mark.django_db(transaction=True)
def test_the_example_client_signs_in_by_device_code_and_uploads_a_file(site_urls, s3, tmp_path):
    person = UserFactory(username="maker")
    app = ApplicationFactory(app_type="desktop", client_type="public", client_secret="", redirect_uris="")
    browser = Client()
    browser.force_login(person)
    model = tmp_path / "bracket.stl"
    model.write_bytes(ASCII_STL)

    code, output = _run_client(
        ["--client-id", app.client_id, "--name", "Shelf bracket", str(model)],
        approve_as=browser.cookies[settings.SESSION_COOKIE_NAME].value,
        live_url=site_urls,
    )
    assert code == 0, output
    assert "Signed in as maker" in output
    assert "File status: live" in output, output
    thing = Thing.objects.get(creator=person)
    assert thing.name == "Shelf bracket"
    assert [f.name for f in thing.files.all()] == ["bracket.stl"]


@pytest.mark.django_db(transaction=True)
def test_the_example_client_stops_when_the_person_denies(site_urls, tmp_path):
    person = UserFactory()
    app = ApplicationFactory(app_type="mobile", client_type="public", client_secret="", redirect_uris="")
    browser = Client()
    browser.force_login(person)
    model = tmp_path / "part.stl"
    model.write_bytes(ASCII_STL)
    code, output = _run_client(
        ["--client-id", app.client_id, str(model)],
        approve_as=browser.cookies[settings.SESSION_COOKIE_NAME].value,
        live_url=site_urls,
        allow=False,
    )
    assert code == 1 and "you chose Deny" in output, output
    assert not Thing.objects.filter(creator=person).exists()
