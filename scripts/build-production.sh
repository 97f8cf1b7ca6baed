#!/usr/bin/env bash
# The production build: the same steps wherever it runs, the Docker image (Dockerfile), CI (.ci/run) and a
# plain machine (README "Running in production").
#
#   scripts/build-production.sh [install] [assets] [static]     no argument: all three, in that order
#
#   install  the project and its dependencies into $PYTHON's environment (pip install -e .)
#   assets   the front-end libraries package-lock.json pins (npm ci; skipped when node_modules matches it)
#   static   collectstatic with the production settings: every file under a content-hashed name, the
#            manifest production pages read, gzip and Brotli copies (apps/core/site/staticfiles.py), in
#            STATIC_ROOT (staticfiles/). It fails when a CSS or JS file refers to a file that is not
#            collected. It reads no database, Redis or store: the values below are placeholders.
#
# PYTHON: the interpreter (default: .venv/bin/python when there is one, else python3).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${PYTHON:-}" ]; then
  if [ -x .venv/bin/python ]; then PYTHON=.venv/bin/python; else PYTHON=python3; fi
fi
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(install assets static)

for step in "${steps[@]}"; do
  started=$SECONDS
  case "$step" in
    install)
      "$PYTHON" -m pip install --quiet --disable-pip-version-check -e .
      ;;
    assets)
      # Reinstalled only when node_modules does not hold every package at package-lock.json's version
      # (npm's own record, node_modules/.package-lock.json, compared entry by entry), and never through
      # a symlinked node_modules (a worktree sharing another checkout's).
      if [ -L node_modules ]; then
        echo "build: node_modules is a link to another checkout's; not reinstalling it"
      elif [ -f node_modules/.package-lock.json ] && node -e '
          const want = require("./package-lock.json").packages, have = require("./node_modules/.package-lock.json").packages;
          for (const name in want) if (name && (!have[name] || have[name].version !== want[name].version)) process.exit(1);'
      then
        echo "build: node_modules already matches package-lock.json"
      else
        npm ci --no-audit --no-fund --loglevel=error
      fi
      ;;
    static)
      env DJANGO_SETTINGS_MODULE=config.settings.production \
          DJANGO_SECRET_KEY=build-only-not-a-secret \
          DATABASE_URL=postgres://build@localhost/build \
          REDIS_URL=redis://localhost:6379/0 \
          "$PYTHON" manage.py collectstatic --noinput --verbosity 1
      test -s staticfiles/staticfiles.json || { echo "build: no staticfiles/staticfiles.json written" >&2; exit 1; }
      ;;
    *)
      echo "build: unknown step '$step' (install, assets, static)" >&2
      exit 2
      ;;
  esac
  echo "build: $step done in $((SECONDS - started)) s"
done
