"""Sign in to Thingyard by device code and upload a file to a new Thing (Python 3.9+ and `requests`).

    python examples/device-upload/thingyard_upload.py --client-id <client_id> bracket.stl

It asks for a device code, tells you where to approve it (open the address on any device, sign in,
type the code), waits for your decision, then creates a draft Thing named after the file and uploads the
file to it in the three steps of the upload flow (docs/uploads.md). The app whose client id you pass must
be a Desktop or Mobile app (register one at /developers/); a confidential one also needs --client-secret.
See docs/device-sign-in.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import requests

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


class SignInFailed(Exception):
    pass


def sign_in(server: str, client_id: str, client_secret: str | None = None, scope: str | None = None) -> str:
    """The device authorization grant (RFC 8628): returns an access token once the person approves."""
    client = {"client_id": client_id}
    if client_secret:
        client["client_secret"] = client_secret
    asked = requests.post(
        f"{server}/login/oauth/device_authorization", data={**client, **({"scope": scope} if scope else {})},
        timeout=10,
    )
    if asked.status_code != 200:
        raise SignInFailed(f"device authorization refused: {asked.status_code} {asked.text}")
    codes = asked.json()
    print(f"To sign in, open {codes['verification_uri']} and enter the code {codes['user_code']}", flush=True)
    print(f"(or open {codes['verification_uri_complete']})", flush=True)

    interval = codes.get("interval", 5)
    deadline = time.monotonic() + codes["expires_in"]
    while time.monotonic() < deadline:
        time.sleep(interval)
        answer = requests.post(
            f"{server}/login/oauth/access_token",
            data={**client, "grant_type": DEVICE_GRANT, "device_code": codes["device_code"]},
            headers={"Accept": "application/json"},
            timeout=10,
        )
        body = answer.json()
        if answer.status_code == 200:
            return body["access_token"]
        error = body.get("error")
        if error == "authorization_pending":
            continue
        if error == "slow_down":  # RFC 8628 §3.5: wait 5 seconds longer from now on
            interval += 5
            continue
        if error == "access_denied":
            raise SignInFailed("you chose Deny on the sign-in page")
        if error == "expired_token":
            raise SignInFailed("the code expired before it was approved; run the command again")
        raise SignInFailed(f"sign-in failed: {answer.status_code} {body}")
    raise SignInFailed("the code expired before it was approved; run the command again")


def upload(server: str, token: str, path: Path, thing_name: str) -> dict:
    """A new draft Thing with `path` as its file, through the upload flow; the file as the API answers it."""
    auth = {"Authorization": f"Bearer {token}"}
    thing = requests.post(f"{server}/things/", json={"name": thing_name}, headers=auth, timeout=10)
    thing.raise_for_status()
    thing_id = thing.json()["id"]

    # 1. The upload form, 2. the bytes straight to the store (fields first, then the file; the 303's
    #    Location is the finalize URL), 3. finalize.
    descriptor = requests.post(
        f"{server}/things/{thing_id}/files", json={"filename": path.name}, headers=auth, timeout=10
    )
    descriptor.raise_for_status()
    form = descriptor.json()
    with path.open("rb") as content:
        stored = requests.post(
            form["action"],
            data=list(form["fields"].items()),
            files={"file": (path.name, content, "application/octet-stream")},
            allow_redirects=False,
            timeout=300,
        )
    if stored.status_code != 303:
        raise RuntimeError(f"the store refused the file: {stored.status_code} {stored.text[:200]}")
    finalized = requests.post(stored.headers["Location"], headers=auth, timeout=30)
    finalized.raise_for_status()
    file = finalized.json()
    print(f"Uploaded {file['name']} to Thing {thing_id}: {file['url']}", flush=True)

    # Processing (sizes, mesh checks, renders) runs in the background.
    status = "processing"
    for _ in range(60):
        status = requests.get(file["url"], headers=auth, timeout=10).json().get("status", "")
        if status != "processing":
            break
        time.sleep(1)
    print(f"File status: {status}", flush=True)
    return {**file, "thing_id": thing_id, "status": status}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Sign in by device code and upload a file to a new Thing.")
    parser.add_argument("file", type=Path, help="the file to upload (an STL, say)")
    parser.add_argument("--server", default=os.environ.get("THINGYARD_URL", "http://127.0.0.1:8000"))
    parser.add_argument("--client-id", default=os.environ.get("THINGYARD_CLIENT_ID"), required=False)
    parser.add_argument("--client-secret", default=os.environ.get("THINGYARD_CLIENT_SECRET"))
    parser.add_argument("--name", help="the new Thing's name (default: the file's name)")
    args = parser.parse_args(argv)
    if not args.client_id:
        parser.error("--client-id (or THINGYARD_CLIENT_ID) is required")
    if not args.file.is_file():
        parser.error(f"no such file: {args.file}")
    server = args.server.rstrip("/")
    try:
        token = sign_in(server, args.client_id, args.client_secret)
    except SignInFailed as error:
        print(f"Not signed in: {error}", file=sys.stderr)
        return 1
    me = requests.get(f"{server}/users/me", headers={"Authorization": f"Bearer {token}"}, timeout=10).json()
    print(f"Signed in as {me['name']}", flush=True)
    upload(server, token, args.file, args.name or args.file.stem)
    return 0


if __name__ == "__main__":
    sys.exit(main())
