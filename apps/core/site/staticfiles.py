"""Front-end libraries from the npm registry, served as static files without copying them into the repo.

`package.json` and `package-lock.json` pin them; `npm ci` (run by `make run`, `make test`, CI and the
Docker build) puts them in `node_modules/`. This finder exposes only the files the site needs, each
under a static prefix of ours (settings.NODE_STATIC_FILES), so `collectstatic`, WhiteNoise and the
`{% static %}` tag treat them like any other static file, and the rest of node_modules stays private.
"""

import os

from django.conf import settings
from django.contrib.staticfiles.finders import BaseFinder, searched_locations
from django.core.checks import Warning
from django.core.files.storage import FileSystemStorage
from whitenoise.compress import Compressor
from whitenoise.storage import CompressedManifestStaticFilesStorage

try:
    import brotli
except ImportError:  # pragma: no cover - whitenoise[brotli] installs it; without it only gzip is written
    brotli = None


def _entries():
    """(static prefix, absolute source directory, file names) of settings.NODE_STATIC_FILES."""
    root = settings.NODE_MODULES_DIR
    for prefix, directory, names in settings.NODE_STATIC_FILES:
        yield prefix, os.path.join(root, directory), tuple(names)


class _PrefixedStorage(FileSystemStorage):
    """A storage whose files collectstatic copies under `prefix` (as Django's FileSystemFinder sets it)."""

    prefix: str | None = None


class NodeModulesFinder(BaseFinder):
    """Finds `<prefix>/<name>` for each file listed in NODE_STATIC_FILES (nothing else of node_modules)."""

    def __init__(self, *args, **kwargs):
        self.entries = list(_entries())
        self.storages = {}
        for prefix, directory, _ in self.entries:
            storage = _PrefixedStorage(location=directory)
            storage.prefix = prefix  # collectstatic copies `<name>` to `<prefix>/<name>`
            self.storages[directory] = storage
        super().__init__(*args, **kwargs)

    def check(self, **kwargs):
        missing = [
            os.path.join(directory, name)
            for _, directory, names in self.entries
            for name in names
            if not os.path.isfile(os.path.join(directory, name))
        ]
        if not missing:
            return []
        return [
            Warning(
                f"{len(missing)} front-end file(s) are missing from node_modules, e.g. {missing[0]}.",
                hint="Run `npm ci` (make run and make test do) to install package-lock.json's libraries.",
                id="thingyard.W001",
            )
        ]

    def find(self, path, find_all=False, **kwargs):
        find_all = find_all or kwargs.get("all", False)
        matches = []
        for prefix, directory, names in self.entries:
            if directory not in searched_locations:
                searched_locations.append(directory)
            head, _, name = path.rpartition("/")
            if head != prefix or name not in names:
                continue
            full = os.path.join(directory, name)
            if os.path.isfile(full):
                if not find_all:
                    return full
                matches.append(full)
        return matches

    def list(self, ignore_patterns):
        for _, directory, names in self.entries:
            storage = self.storages[directory]
            for name in names:
                if os.path.isfile(os.path.join(directory, name)):
                    yield name, storage


# --- production's storage -------------------------------------------------------------------------------

# Brotli's quality 9 instead of its default 11 (the most): 11 % larger files for a 17th of the CPU (three.js's
# 1.5 MB core: 235 KB in 0.2 s against 211 KB in 4 s), so the image build and CI's production build
# compress every file in seconds, not minutes on a busy 2-core machine (docs/decisions.md).
BROTLI_QUALITY = 9


class _Compressor(Compressor):
    @staticmethod
    def compress_brotli(data: bytes) -> bytes:
        return brotli.compress(data, quality=BROTLI_QUALITY) if brotli is not None else b""


class ProductionStaticFilesStorage(CompressedManifestStaticFilesStorage):
    """Production's static files (settings.production STORAGES): WhiteNoise's manifest storage, so every
    file has a content-hashed name WhiteNoise serves with a one-year `immutable` cache header, plus a
    gzip and (with the `brotli` package, a dependency) a Brotli copy it serves to browsers that take them.
    `collectstatic` fails when a CSS or JS file refers to a file that is not collected (a source map)."""

    def create_compressor(self, **kwargs):
        return _Compressor(**kwargs)


class CollectedOrFoundStaticFilesStorage(ProductionStaticFilesStorage):
    """The quick start's static files storage (config/settings/local.py, issue 23): production's (hashed
    names, gzip and brotli, immutable) once `make run` has collected them; before that (a test or a
    `runserver` started by hand with the local settings), a file the manifest does not know keeps its
    plain name, which WhiteNoise serves from the finders, instead of failing every page."""

    def stored_name(self, name):
        try:
            return super().stored_name(name)
        except ValueError:  # no manifest entry, and no collected file to hash
            return name
