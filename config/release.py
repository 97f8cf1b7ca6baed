"""The release's identity (settings.THINGYARD_RELEASE): what the code that builds an answer is.

A cached answer (a Thing's body, a short form, a kept page, rendered Markdown) is the shape the code that
built it gave it. Two releases sharing a Redis (the old processes still serving during an upgrade, or a
restart within the cache's lifetime) must not read each other's entries, and a client's ETag from one
release must not be answered 304 by another whose body differs. So the derived caches' keys and the
Things' ETags carry this identity (docs/decisions.md: "A release's caches and ETags are its own").

THINGYARD_RELEASE names it (a build may set its commit); by default it is a digest of the product's own
code, the Python sources under apps/ and config/ (tests left out) and pyproject.toml: any change to them
is a new release. Reading them takes about 20 ms, once per process.
"""
import hashlib
from pathlib import Path

_SOURCES = ("apps", "config")
_ALSO = ("pyproject.toml",)


def release_fingerprint(base_dir: Path) -> str:
    digest = hashlib.blake2b(digest_size=6)
    files = [
        path for root in _SOURCES for path in (base_dir / root).rglob("*.py")
        if "tests" not in path.relative_to(base_dir).parts
    ]
    files += [base_dir / name for name in _ALSO if (base_dir / name).is_file()]
    for path in sorted(files):
        digest.update(str(path.relative_to(base_dir)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()
