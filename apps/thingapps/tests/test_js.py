"""The JavaScript unit tests (Node's test runner): the SDK's message handling and the host's protocol.

Run here so `make test` covers them; skipped without Node locally, required under CI (CI=true)."""

import os
import shutil
import subprocess

import pytest
from django.conf import settings

JS_TESTS = settings.BASE_DIR / "static" / "sdk" / "tests"


def test_the_sdk_and_host_javascript_unit_tests_pass():
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("CI runs the JavaScript tests: Node.js is not installed")
        pytest.skip("Node.js is not installed: the SDK's JavaScript unit tests did not run")
    result = subprocess.run(
        [node, "--test", str(JS_TESTS)],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=settings.BASE_DIR,
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout
