#!/usr/bin/env bash
# `make run`: the whole service on one machine with only Python present, supervised by supervisord.
#   web (Django runserver) · Celery worker · Celery beat · moto's S3 server · the example Thing app
#   SQLite for the data and, in a file of its own, for the Celery broker (kombu's SQLAlchemy transport)
# supervisord (README "Quick start") restarts any program that exits, and says so in .run/supervisord.log
# and on this terminal. This script fails, loudly, when a program cannot start; Ctrl-C stops them all.
# Ports: PORT (8000, the site and API), S3_PORT (9000), APP_PORT (8001); HOST (127.0.0.1).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
case "$VENV" in /*) ;; *) VENV="$PWD/$VENV" ;; esac  # supervisord's programs need absolute paths
PY="$VENV/bin/python"
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-8000}
S3_PORT=${S3_PORT:-9000}
APP_PORT=${APP_PORT:-8001}
export DJANGO_SETTINGS_MODULE=${DJANGO_SETTINGS_MODULE:-config.settings.local}
export THINGYARD_API_URL=${THINGYARD_API_URL:-http://$HOST:$PORT}
export S3_ENDPOINT_URL=${S3_ENDPOINT_URL:-http://127.0.0.1:$S3_PORT}
export PYTHONUNBUFFERED=1
# The quick start's state (SQLite files, static files, logs); config/settings/local.py reads the same variable.
export THINGYARD_RUN_DIR=${THINGYARD_RUN_DIR:-$PWD/.run}
RUN="$THINGYARD_RUN_DIR"
mkdir -p "$RUN"
CONF="$RUN/supervisord.conf"
CTL=("$VENV/bin/supervisorctl" -c "$CONF")

port_open() { "$PY" - "$1" "$2" <<'PYEOF'
import socket, sys
s = socket.socket(); s.settimeout(0.3)
sys.exit(0 if s.connect_ex((sys.argv[1], int(sys.argv[2]))) == 0 else 1)
PYEOF
}

if port_open "$HOST" "$PORT"; then
  echo "make run: something already listens on $HOST:$PORT; stop it or choose another PORT=" >&2
  exit 1
fi

# --- supervisord's configuration: one [program] per process, each restarted when it exits -------------
program() {  # name, command, [startsecs]
  cat <<EOF

[program:$1]
command=$2
directory=$PWD
autostart=false
autorestart=true
startsecs=${3:-2}
startretries=5
stopasgroup=true
killasgroup=true
stopwaitsecs=15
redirect_stderr=true
stdout_logfile=$RUN/$1.log
stdout_logfile_maxbytes=10MB
stdout_logfile_backups=2
EOF
}
programs=()
late=(web worker beat)
{
  cat <<EOF
; Written by scripts/run-local.sh at each start; edits here are lost.
[supervisord]
nodaemon=true
logfile=$RUN/supervisord.log
logfile_maxbytes=5MB
pidfile=$RUN/supervisord.pid
childlogdir=$RUN

[unix_http_server]
file=$RUN/supervisor.sock

[supervisorctl]
serverurl=unix://$RUN/supervisor.sock

[rpcinterface:supervisor]
supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface
EOF
  if port_open 127.0.0.1 "$S3_PORT"; then
    echo "object store: something already listens on 127.0.0.1:$S3_PORT, using it" >&2
  else
    program objectstore "$VENV/bin/moto_server -H 127.0.0.1 -p $S3_PORT"
    programs+=(objectstore)
  fi
  program web "$PY manage.py runserver $HOST:$PORT --noreload"
  # One worker for all three queues (config/settings/base.py: CELERY_TASK_ROUTES). The broker has no
  # broadcast (fanout) exchange: no gossip or mingle between workers, of which there is one.
  program worker "$VENV/bin/celery -A config worker --pool=solo --loglevel=INFO -Q celery,webhooks,processing --without-gossip --without-mingle" 5
  program beat "$VENV/bin/celery -A config beat --loglevel=INFO --schedule $RUN/celerybeat-schedule" 3
  if port_open 127.0.0.1 "$APP_PORT"; then
    echo "example Thing app: something already listens on 127.0.0.1:$APP_PORT, leaving it be" >&2
  else
    # The example Thing app (examples/thing-app) on its own origin, listed on every Thing page (issue 7).
    program example-app "$PY examples/thing-app/serve.py --site http://$HOST:$PORT --port $APP_PORT"
    late+=(example-app)
  fi
} > "$CONF"

supervisord_pid=""
cleanup() {
  if [ -n "$supervisord_pid" ] && kill -0 "$supervisord_pid" 2>/dev/null; then
    kill -TERM "$supervisord_pid" 2>/dev/null || true  # supervisord stops every program, then exits
    wait "$supervisord_pid" 2>/dev/null || true
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# supervisord's own log lines (a program that exited, its restart) go to this terminal too.
"$VENV/bin/supervisord" -c "$CONF" &
supervisord_pid=$!
for _ in $(seq 1 50); do "${CTL[@]}" pid 2>/dev/null | grep -qx '[0-9]*' && break; sleep 0.2; done

start() {  # start programs; on failure, show each failed one's log and stop everything
  local failed=0 name
  "${CTL[@]}" start "$@" || failed=1
  for name in "$@"; do
    if ! "${CTL[@]}" status "$name" | grep -q RUNNING; then
      failed=1
      echo "make run: $name did not start; the end of $RUN/$name.log:" >&2
      tail -n 20 "$RUN/$name.log" >&2 || true
    fi
  done
  if [ "$failed" != 0 ]; then
    echo "make run: FAILED (see above and $RUN/supervisord.log)" >&2
    exit 1
  fi
}

if [ "${#programs[@]}" -gt 0 ]; then
  start "${programs[@]}"
  for _ in $(seq 1 50); do port_open 127.0.0.1 "$S3_PORT" && break; sleep 0.2; done
fi

"$PY" manage.py migrate --noinput > "$RUN/migrate.log" 2>&1 || { tail -n 30 "$RUN/migrate.log" >&2; exit 1; }
# Static files as production serves them (hashed names, gzip and brotli): collected again only when a
# source changed since the last collection (the first one takes a minute or two: brotli).
manifest="$RUN/static/staticfiles.json"
if [ ! -f "$manifest" ] || [ -n "$(find static apps/*/static package-lock.json node_modules/.package-lock.json \
     config/settings -newer "$manifest" -print -quit 2>/dev/null)" ]; then
  echo "collecting static files into $RUN/static …"
  "$PY" manage.py collectstatic --noinput > "$RUN/collectstatic.log" 2>&1 \
    || { tail -n 30 "$RUN/collectstatic.log" >&2; exit 1; }
fi
"$PY" manage.py seed_demo --summary "$RUN/demo.txt" > "$RUN/seed.log" 2>&1 || { tail -n 30 "$RUN/seed.log" >&2; exit 1; }

start "${late[@]}"
for _ in $(seq 1 100); do port_open "$HOST" "$PORT" && break; sleep 0.2; done
port_open "$HOST" "$PORT" || { echo "make run: the web process does not answer on $HOST:$PORT" >&2; exit 1; }

cat "$RUN/demo.txt"
echo "example Thing app: http://127.0.0.1:$APP_PORT/ (open any Thing page signed in as demo)"
echo "logs: $RUN/<program>.log, supervision: $RUN/supervisord.log   status: ${CTL[*]} status"
echo "stop: Ctrl-C"
wait "$supervisord_pid"
