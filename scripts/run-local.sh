#!/usr/bin/env bash
# `make run`: the whole service on one machine with only Python present.
#   web (Django runserver) · Celery worker+beat on a file-based broker · moto's S3 server · SQLite
# Every process started here is stopped when this script exits (Ctrl-C).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
PY="$VENV/bin/python"
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-8000}
S3_PORT=${S3_PORT:-9000}
export DJANGO_SETTINGS_MODULE=${DJANGO_SETTINGS_MODULE:-config.settings.local}
export THINGYARD_API_URL=${THINGYARD_API_URL:-http://$HOST:$PORT}
export S3_ENDPOINT_URL=${S3_ENDPOINT_URL:-http://127.0.0.1:$S3_PORT}
# The quick start's state (SQLite file, file broker, logs); config/settings/local.py reads the same variable.
export THINGYARD_RUN_DIR=${THINGYARD_RUN_DIR:-$PWD/.run}
RUN="$THINGYARD_RUN_DIR"
mkdir -p "$RUN"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT INT TERM

port_open() { "$PY" - "$1" "$2" <<'PYEOF'
import socket, sys
s = socket.socket(); s.settimeout(0.3)
sys.exit(0 if s.connect_ex((sys.argv[1], int(sys.argv[2]))) == 0 else 1)
PYEOF
}

if port_open 127.0.0.1 "$S3_PORT"; then
  echo "object store: something already listens on 127.0.0.1:$S3_PORT, using it"
else
  "$VENV/bin/moto_server" -H 127.0.0.1 -p "$S3_PORT" > "$RUN/moto.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 50); do port_open 127.0.0.1 "$S3_PORT" && break; sleep 0.2; done
fi

"$PY" manage.py migrate --noinput > "$RUN/migrate.log"
"$PY" manage.py seed_demo --summary "$RUN/demo.txt" > /dev/null

# One worker for all three queues (config/settings/base.py: CELERY_TASK_ROUTES), with beat.
"$VENV/bin/celery" -A config worker -B --pool=solo --loglevel=INFO -Q celery,webhooks,processing \
  --schedule "$RUN/celerybeat-schedule" > "$RUN/celery.log" 2>&1 &
pids+=($!)

# The example Thing app (examples/thing-app) on its own origin, listed on every Thing page (issue 7).
APP_PORT=${APP_PORT:-8001}
if ! port_open 127.0.0.1 "$APP_PORT"; then
  "$PY" examples/thing-app/serve.py --site "http://$HOST:$PORT" --port "$APP_PORT" > "$RUN/example-app.log" 2>&1 &
  pids+=($!)
fi

cat "$RUN/demo.txt"
echo "example Thing app: http://127.0.0.1:$APP_PORT/ (open any Thing page signed in as demo)"
echo "logs: $RUN/*.log   stop: Ctrl-C"
"$PY" manage.py runserver "$HOST:$PORT" --noreload &
pids+=($!)
wait "${pids[-1]}"
