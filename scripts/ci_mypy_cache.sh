#!/usr/bin/env bash
# CI's mypy cache (issue 23: CI in half the time): `restore` before `make lint`, `store` after it passed.
#
# A cold mypy run is the longest part of `make lint` (django-stubs and DRF's stubs are checked with the
# project). mypy's incremental cache is reused between CI runs under a key of everything its answers
# depend on beyond the checked files themselves, which mypy tracks on its own: pyproject.toml (mypy's
# settings, the pinned stubs and plugins), the Python version, and the Django settings modules. The
# settings are in the key because django-stubs' plugin reads them at start-up and mypy does not recheck
# a module when only the settings' types changed (seen here once): a change to config/settings/ starts
# from a cold cache. Entries live beside the installs' (scripts/ci_install.sh), newest 3 kept.
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${THINGYARD_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/thingyard-ci}
[ "$cache" = off ] && exit 0
python_bin=${PYTHON:-.venv/bin/python}
key=$( { cat pyproject.toml config/settings/*.py; "$python_bin" --version; } | sha256sum | cut -c1-16)
entry="$cache/mypy-$key"
case "${1:-}" in
  restore)
    rm -rf .mypy_cache
    if [ -d "$entry" ]; then
      cp -a "$entry" .mypy_cache && echo "CI: mypy's cache from $entry"
    else
      echo "CI: no mypy cache for this configuration; a cold run"
    fi
    ;;
  store)
    [ -d .mypy_cache ] || exit 0
    mkdir -p "$cache"
    tmp="$cache/mypy-$key.tmp.$$"
    rm -rf "$tmp" && cp -a .mypy_cache "$tmp"
    rm -rf "$entry.old.$$"; [ -d "$entry" ] && mv -T "$entry" "$entry.old.$$"
    mv -T "$tmp" "$entry" 2>/dev/null || rm -rf "$tmp"
    rm -rf "$entry.old.$$"
    ls -1dt "$cache"/mypy-* 2>/dev/null | grep -v '\.\(tmp\|old\)\.' | tail -n +4 | xargs -r rm -rf
    ;;
  *) echo "usage: $0 restore|store" >&2; exit 2 ;;
esac
