#!/usr/bin/env bash
# CI's installs, reused while the lockfiles are unchanged (issue 23): `.ci/run` calls this in a fresh clone.
#
# - The virtualenv (`make install-test`: .[dev,test] from pyproject.toml) is kept in the cache keyed by a
#   hash of pyproject.toml's install inputs, the Makefile's install recipe and the Python version. A hit copies it into the
#   clone (hard links on the same file system: a second instead of a minute; Python and pip replace
#   files rather than write into them, so the cache is not changed through them) and points its scripts
#   and the editable install at the clone (the rewrite any copied virtualenv needs); a miss installs as before (pip's wheel cache, ~/.cache/pip, spares
#   the downloads) and stores a copy for the next run.
# - node_modules (`npm ci`) likewise, keyed by package.json, package-lock.json and Node's version.
# - mypy's cache: scripts/ci_mypy_cache.sh, keyed by its configuration and the settings.
#
# The cache is THINGYARD_CI_CACHE (default ~/.cache/thingyard-ci); THINGYARD_CI_CACHE=off installs from
# scratch without touching it. Entries are written to a temporary name and renamed, so two runs never
# see half an entry; only the newest 3 of each kind are kept.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd -P)
cache=${THINGYARD_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/thingyard-ci}

python_bin=${PYTHON:-python3}
# Only what the install reads: the project's dependencies, extras, entry points and build system (a change
# to the tools' settings in pyproject.toml, an import contract or mypy's, reinstalls nothing).
install_inputs() {
  "$python_bin" - <<'PYEOF'
import json, tomllib
with open("pyproject.toml", "rb") as fh:
    data = tomllib.load(fh)
tool = data.get("tool", {})
print(json.dumps([data.get("project"), data.get("build-system"), tool.get("setuptools")], sort_keys=True))
PYEOF
}
venv_key=$( { install_inputs; sed -n '/^\$(PY):/,/^install-test:/p' Makefile; "$python_bin" --version; } \
  | sha256sum | cut -c1-16)
node_key=$( { cat package.json package-lock.json; node --version 2>/dev/null || true; } | sha256sum | cut -c1-16)

rm -rf .venv node_modules

if [ "$cache" = off ]; then
  make install-test
  make assets
  exit 0
fi
mkdir -p "$cache"

prune() {  # keep the newest 3 entries of a kind
  ls -1dt "$cache"/"$1"-* 2>/dev/null | grep -v '\.tmp\.' | tail -n +4 | xargs -r rm -rf
}

store() {  # store DIR as cache entry NAME (atomically; a concurrent run may have stored it first)
  local dir=$1 name=$2 tmp="$cache/$2.tmp.$$"
  rm -rf "$tmp"
  cp -a "$dir" "$tmp" && printf '%s\n' "$root" > "$tmp/.ci-cache-origin"
  mv -T "$tmp" "$cache/$name" 2>/dev/null || rm -rf "$tmp"
}

copy_entry() {  # hard links when the cache is on the clone's file system (a second), else a copy
  cp -al "$1" "$2" 2>/dev/null || { rm -rf "$2"; cp -a "$1" "$2"; }
}

# --- the virtualenv ----------------------------------------------------------------------------------
venv_entry="$cache/venv-$venv_key"
if [ -d "$venv_entry" ]; then
  echo "CI install: virtualenv from the cache ($venv_entry)"
  copy_entry "$venv_entry" .venv
  origin=$(cat .venv/.ci-cache-origin)
  rm -f .venv/.ci-cache-origin
  if [ "$origin" != "$root" ]; then
    # Scripts' shebangs and the editable install (its finder, .pth and direct_url) name the clone.
    # sed -i writes new files: the cache's hard-linked originals stay as they are.
    grep -rlIF "$origin" .venv/bin .venv/lib/python3*/site-packages/__editable__* \
      .venv/lib/python3*/site-packages/thingyard-*.dist-info 2>/dev/null \
      | xargs -r sed -i "s#$origin/#$root/#g; s#file://$origin\"#file://$root\"#g"
  fi
  touch .venv/.installed-dev .venv/.installed-test  # newer than the fresh clone's pyproject.toml
  .venv/bin/python -c "import apps, config, pytest, django" \
    || { echo "CI install: the cached virtualenv does not work; installing"; rm -rf .venv "$venv_entry"; }
fi
if [ ! -d .venv ]; then
  echo "CI install: virtualenv from PyPI (pip's wheel cache: ${PIP_CACHE_DIR:-~/.cache/pip})"
  make install-test
  store .venv "venv-$venv_key"
  prune venv
fi

# --- node_modules --------------------------------------------------------------------------------------
node_entry="$cache/node-$node_key"
if [ -d "$node_entry" ]; then
  echo "CI install: node_modules from the cache ($node_entry)"
  copy_entry "$node_entry" node_modules
  rm -f node_modules/.ci-cache-origin
  touch node_modules/.package-lock.json  # the Makefile's stamp: newer than package(-lock).json
else
  echo "CI install: node_modules from the npm registry"
  make assets
  store node_modules "node-$node_key"
  prune node
fi
