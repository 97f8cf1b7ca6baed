# Thingyard: the two commands are `make run` (quick start, embedded defaults) and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(VENV)/bin/pip
STAMP_DEV  := $(VENV)/.installed-dev
STAMP_TEST := $(VENV)/.installed-test

.PHONY: run test bench load install install-test migrate seed clean lint imports screenshots fuzz assets

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

## The site's front-end libraries (three.js) from the npm registry, exactly as package-lock.json pins them;
## Django serves the files it needs from node_modules (config/settings/base.py NODE_STATIC_FILES).
NODE_STAMP := node_modules/.package-lock.json
$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@
assets: $(NODE_STAMP)

## Start the whole service on embedded defaults under supervisord: SQLite, a Celery broker on SQLite, moto's S3 server.
run: $(STAMP_DEV) $(NODE_STAMP)
	bash scripts/run-local.sh

## The whole suite against the real PostgreSQL and Redis (DATABASE_URL / REDIS_URL; local servers by default),
## on TEST_WORKERS pytest-xdist workers, each with its own test database (test_<name>_gw0..) and Redis number
## (REDIS_URL's + 1..), cloned from one template migrated once per run; the fault suite and the two groups of
## browser tests each run on one worker (--dist loadgroup). Four workers on two cores: about a third of the
## suite's time is waiting (servers starting, fault timeouts, browsers), which the other workers fill.
TEST_WORKERS ?= 4
test: $(STAMP_TEST) $(NODE_STAMP)
	$(VENV)/bin/pytest -n $(TEST_WORKERS) --dist loadgroup $(PYTEST_ARGS)

## Static checks (CI runs them first): no merge-conflict markers, ruff, the import contracts of pyproject.toml (lint-imports), mypy.
lint: $(STAMP_TEST)
	@! git grep -nE '^(<<<<<<<|>>>>>>>)( |$$)' -- . || { echo "merge conflict markers left in the files above"; exit 1; }
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports
	$(VENV)/bin/mypy

## Figures of the import graph between apps: arrows, arrows back up the layer order, cross-app circles.
## Options: make imports IMPORTS_ARGS="--verbose" or "--root ../other-checkout".
imports: $(STAMP_TEST)
	$(VENV)/bin/python scripts/import_graph.py $(IMPORTS_ARGS)

## Speed targets against the real PostgreSQL and Redis: seeds thingyard_bench (100k Things), loads gunicorn
## with wrk beside the floor and a DRF baseline, writes docs/benchmarks.md; exits 1 when a target is missed.
## Options: make bench BENCH_ARGS="--scale --no-fail --rounds 3 --reseed" (python -m bench --help).
bench: $(STAMP_TEST)
	$(VENV)/bin/python -m bench $(BENCH_ARGS)

## Mixed load (reads, searches, likes, uploads) from a second process against gunicorn -w 4 on the real
## PostgreSQL and Redis; checks likes, file counts and the rate limit stay exact; writes docs/load.md.
## Options: make load LOAD_ARGS="--duration 60 --concurrency 16" (python -m bench.mixed --help).
load: $(STAMP_TEST)
	$(VENV)/bin/python -m bench.mixed $(LOAD_ARGS)

## Contract fuzzing: Schemathesis against a live server on a fresh `thingyard_fuzz` database, fixed seed,
## bounded examples (tests/contract/fuzz.py). Options: make fuzz FUZZ_ARGS="--max-examples 20 --seed 7".
fuzz: $(STAMP_TEST)
	$(VENV)/bin/python -m tests.contract.fuzz $(FUZZ_ARGS)

## Refresh the screenshots in docs/img/: the site's flows and the iframe SDK dialogs (the browser tests,
## in headless Chromium).
screenshots: $(STAMP_TEST) $(NODE_STAMP)
	THINGYARD_SCREENSHOTS=1 $(VENV)/bin/pytest -m browser apps tests -q -p no:cacheprovider

clean:
	rm -rf .run staticfiles node_modules
