# The two commands of the README: `make run` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
PORT ?= 8787
HOST ?= 127.0.0.1
# Twice WS_CLOSE_FRAME_BYTES: larger frames never reach the app (daphne closes with 1009).
WS_TRANSPORT_MAX_BYTES ?= 524288
# Seconds an HTTP request may take before daphne answers 503 and drops it.
HTTP_TIMEOUT ?= 30
# uv from PATH, else a private copy bootstrapped with pip into .tools/.
UV := $(shell command -v uv 2>/dev/null || echo .tools/bin/uv)

.PHONY: run test lint format install migrate import bench screenshots clean

$(UV):
	$(PYTHON) -m venv .tools
	.tools/bin/python -m pip install --quiet --upgrade pip uv

install: $(UV)
	$(UV) sync --frozen

migrate: install
	$(UV) run python manage.py migrate --no-input
	$(UV) run python manage.py reindex_kb --if-empty

# `make import URL=https://... [URL2 ...]`: a site, sitemap, pages or files into kb/imported/.
import: migrate
	@test -n "$(URL)" || (echo "usage: make import URL=https://www.example.se/" && exit 2)
	$(UV) run python manage.py import_kb $(URL)
	$(UV) run python manage.py reindex_kb

run: migrate
	$(UV) run python manage.py mark_interrupted_turns
	$(UV) run python manage.py recover_executions
	$(UV) run python manage.py import_worker & worker=$$!; trap 'kill $$worker 2>/dev/null' EXIT INT TERM; \
	$(UV) run python -m config.serve -b $(HOST) -p $(PORT) --http-timeout $(HTTP_TIMEOUT) --websocket-max-message-size $(WS_TRANSPORT_MAX_BYTES) --websocket-max-frame-size $(WS_TRANSPORT_MAX_BYTES) config.asgi:application

lint: install
	$(UV) run ruff check .
	$(UV) run ruff format --check .
	$(UV) run lint-imports

test: lint
	$(UV) run pytest

format: install
	$(UV) run ruff format .
	$(UV) run ruff check --fix .

# The product runs on SQLite and, when this server answers, on PostgreSQL too (BENCH_POSTGRES= for SQLite only).
BENCH_POSTGRES ?= postgres://postgres@127.0.0.1:5432/postgres
bench: install
	$(UV) run python -m bench --postgres "$(BENCH_POSTGRES)"

# The README's two screenshots of the chat page, from the current code (needs Chromium).
screenshots: install
	$(UV) run python scripts/screenshots.py

clean:
	rm -rf .tools .venv .pytest_cache .ruff_cache .test-db.sqlite3*
