# Thingyard: the two commands are `make run` (quick start, embedded defaults) and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(VENV)/bin/pip
STAMP_DEV  := $(VENV)/.installed-dev
STAMP_TEST := $(VENV)/.installed-test

.PHONY: run test bench install install-test migrate seed clean lint

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(STAMP_DEV): pyproject.toml | $(PY)
	$(PIP) install --quiet -e ".[dev]"
	touch $@

$(STAMP_TEST): pyproject.toml | $(PY)
	$(PIP) install --quiet -e ".[dev,test]"
	touch $@

install: $(STAMP_DEV)
install-test: $(STAMP_TEST)

## Start the whole service on embedded defaults: SQLite, a file-based Celery broker, moto's S3 server.
run: $(STAMP_DEV)
	bash scripts/run-local.sh

## The whole suite against the real PostgreSQL and Redis (DATABASE_URL / REDIS_URL; local servers by default).
test: $(STAMP_TEST)
	$(VENV)/bin/pytest $(PYTEST_ARGS)

## Speed targets against the real PostgreSQL and Redis: seeds thingyard_bench (100k Things), loads gunicorn,
## writes docs/benchmarks.md. Options: make bench BENCH_ARGS="--reseed --duration 5" (python -m bench --help).
bench: $(STAMP_TEST)
	$(VENV)/bin/python -m bench $(BENCH_ARGS)

clean:
	rm -rf .run staticfiles
