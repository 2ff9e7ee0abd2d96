# The two commands: `make run` and `make test` (docs/development.md). Everything else
# supports them.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
HOST ?= 127.0.0.1
# Every target here is local work: development settings (a key kept in var/secret_key, any
# host, no HTTPS redirect). Production sets JOBCOST_ENV=production (docs/operations/production.md).
export JOBCOST_ENV ?= development
# Python keeps the bytecode it compiles (in __pycache__/, which git ignores) even where the
# environment asks it not to (PYTHONDONTWRITEBYTECODE, set on our CI machines). Without the
# cache every process the suite starts (Celery workers, gunicorn, manage.py, schemathesis)
# compiled Django, DRF and Celery from source again: `manage.py check` takes 2.3 s instead of
# 0.85 s, and a fresh clone's `make test` took 188 s instead of 174 s.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: install var run migrate seed test lint format docs bench bench-reads bench-webhooks bench-bounds bench-writes bench-import bench-soak fuzz clean

$(VENV)/.installed: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# --no-compile: Python compiles what it imports on first use; compiling all of every
	# package here (playwright, reportlab, …) was a third of a fresh install's time.
	$(BIN)/pip install --quiet --no-compile -r requirements.txt
	touch $@

install: $(VENV)/.installed var

# Local state of development runs; the settings create nothing when read (docs/architecture.md).
var:
	@mkdir -p var/broker/out var/broker/processed var/broker/control

migrate: install
	$(BIN)/python manage.py migrate --noinput

seed: migrate
	$(BIN)/python manage.py seed_demo

## run: install, migrate, load the demo job, then serve the API and admin with a Celery
## worker (and beat) beside it, on all queues, with threads (docs/operations/workers.md).
## Ctrl-C stops both.
run: seed
	@mkdir -p var
	@echo "Starting the Celery worker (log: var/worker.log) and the web server on http://$(HOST):$(PORT)"
	@WEBHOOKS_ALLOW_INSECURE_LOCALHOST=1 $(BIN)/celery -A config worker --beat --loglevel=info \
		--schedule var/celerybeat-schedule -Q celery,webhooks,webhooks-slow \
		--pool threads --concurrency 8 > var/worker.log 2>&1 & \
	worker=$$!; \
	trap 'kill $$worker 2>/dev/null; wait $$worker 2>/dev/null' EXIT INT TERM; \
	WEBHOOKS_ALLOW_INSECURE_LOCALHOST=1 $(BIN)/python manage.py runserver --insecure --noreload $(HOST):$(PORT)

## test: the whole suite, spread over TEST_WORKERS pytest-xdist processes (docs/development.md;
## TEST_WORKERS=0 runs it in this process). PostgreSQL and Redis when DATABASE_URL / REDIS_URL
## are set; each worker gets its own database and Redis database.
TEST_WORKERS ?= 2
test: install
	$(BIN)/pytest -n $(TEST_WORKERS) --dist worksteal

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python manage.py makemigrations --check --dry-run
	$(BIN)/mypy

## docs: the documentation site (docs/, mkdocs.yml) built into site/ with MkDocs and the
## Material theme; --strict turns every warning (a broken link or anchor, a page missing from
## the navigation) into a failure.
docs: install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# The benchmarks' commands live in bench/, an app installed only when JOBCOST_BENCH=1
# (config/settings.py); every bench target sets it.
bench bench-reads bench-webhooks bench-bounds bench-writes bench-import bench-soak: export JOBCOST_BENCH = 1

## bench: rollup reads on a project with 100,000 approved invoices vs an empty project.
bench: migrate
	$(BIN)/python manage.py bench_rollups --invoices $${INVOICES:-100000}

## bench-reads: the 100-invoice list and a project retrieve under gunicorn (2 workers × 4
## threads, config/gunicorn.conf.py), each beside its ceiling measured in the same run (the same
## rows from raw psycopg + json under the same gunicorn); load from Debian's wrk. Needs
## PostgreSQL (DATABASE_URL) and Redis (REDIS_URL).
bench-reads: migrate
	$(BIN)/python manage.py bench_reads --duration $${DURATION:-4} --rounds $${ROUNDS:-5} \
		--connections $${CONNECTIONS:-8}

## bench-bounds: create and approve of maximum-size change orders, invoices, daily logs and pay-app
## PATCHes through the API (docs/operations/limits.md); needs PostgreSQL.
bench-bounds: migrate
	$(BIN)/python manage.py bench_bounds --runs $${RUNS:-3}

## bench-webhooks: webhook deliveries per second of one main Celery worker process (as in
## production, docs/operations/workers.md; WORKERS=1,2 for more) beside a plain httpx loop (the
## ceiling), their ratio, and a fast endpoint's delay beside a slow one. Needs PostgreSQL
## (DATABASE_URL) and Redis (REDIS_URL).
bench-webhooks: migrate
	$(BIN)/python manage.py bench_webhooks --events $${EVENTS:-1000} \
		--endpoints $${ENDPOINTS:-5} --workers $${WORKERS:-1}

## bench-writes: invoices through create → code → approve on one commitment by 8 clients against
## gunicorn (2 workers × 4 threads), beside pgbench's hot-row ceiling (docs/benchmarks.md).
## Needs PostgreSQL (DATABASE_URL), Redis (REDIS_URL) and pgbench.
bench-writes: SECONDS ?= 20
bench-writes: migrate
	$(BIN)/python manage.py bench_writes --clients $${CLIENTS:-8} --seconds $(SECONDS)

## bench-soak: the memory soak (docs/benchmarks.md): SECONDS (600) of reads, writes and webhook
## deliveries against gunicorn (2 workers × 4 threads) and one Celery worker; prints each
## process's RSS growth after the warm-up (the first 20 %) beside the 5 % ceiling, PASS or FAIL.
## Needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL).
bench-soak: SECONDS ?= 600
bench-soak: migrate
	$(BIN)/python manage.py bench_soak --seconds $(SECONDS)

## bench-import: a clean 5,000-row budget file imported through the API (dry run, in the
## request, queued) beside a raw COPY of the same rows (docs/budget-import.md). Needs PostgreSQL.
bench-import: migrate
	$(BIN)/python manage.py bench_import --rows $${ROWS:-5000} --runs $${RUNS:-1}

## fuzz: schemathesis over the whole API for longer than the test suite's bounded run, with a
## random seed (docs/openapi.md, "Fuzzing the API"). Needs PostgreSQL (DATABASE_URL).
fuzz: install
	FUZZ_SEED=$${FUZZ_SEED:-$$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')} \
	FUZZ_MAX_EXAMPLES=$${FUZZ_MAX_EXAMPLES:-100} FUZZ_TIMEOUT=$${FUZZ_TIMEOUT:-3600} \
		$(BIN)/pytest tests/contract/test_schemathesis.py -p no:cacheprovider -q

clean:
	rm -rf var/jobcost.sqlite3 var/broker var/celerybeat-schedule*
