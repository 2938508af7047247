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

MANAGE := $(UV) run python manage.py

.PHONY: help run test lint format install migrate import reindex superuser verify guard-report manage ask python bench screenshots clean

help:
	@echo "make run                        serve the product on http://$(HOST):$(PORT)/ (PORT=, HOST=)"
	@echo "make test                       lint and the whole test suite (about 30 minutes on 2 cores)"
	@echo "make superuser                  create an admin account for /admin/ and /staff/"
	@echo "make import URL=... [REPLACE=1] import a site, pages or files into kb/ (REPLACE=1: instead of the example KB)"
	@echo "make reindex                    index kb/ again after editing its files"
	@echo "make verify Q=... A=...         the number guard's verdict on an answer to a question"
	@echo "make guard-report               wrong answers made from the KB's own facts: all must be withheld"
	@echo "make manage ARGS=\"...\"          any other manage.py command, e.g. ARGS=\"import_kb URL --depth 0\""
	@echo "make ask Q=...                  ask the running server one question over its WebSocket"
	@echo "make python ARGS=\"...\"          the project's Python, e.g. ARGS=\"-m bench.hotpath\""
	@echo "make bench [ARGS=\"...\"]         the load benchmark (docs/performance.md)"

$(UV):
	$(PYTHON) -m venv .tools
	.tools/bin/python -m pip install --quiet --upgrade pip uv

install: $(UV)
	$(UV) sync --frozen
	$(UV) run python -m grounding.lemma_tables

migrate: install
	$(MANAGE) migrate --no-input
	$(MANAGE) reindex_kb --if-empty

# `make import URL=https://... [URL2 ...]`: a site, sitemap, pages or files into kb/imported/,
# beside the example KB. REPLACE=1: the import becomes the whole of kb/ (the example's files are
# removed; `git checkout -- kb/` and `make reindex` bring them back).
import: migrate
	@test -n "$(URL)" || (echo "usage: make import URL=https://www.example.se/ [REPLACE=1]" && exit 2)
	$(MANAGE) import_kb $(if $(filter 1 yes true,$(REPLACE)),--replace) $(URL)
	$(MANAGE) reindex_kb

reindex: migrate
	$(MANAGE) reindex_kb

superuser: migrate
	$(MANAGE) createsuperuser

# Q and A reach the command through the environment, so any quotes in them are safe.
verify: migrate
	@test -n "$$Q" -a -n "$$A" || (echo 'usage: make verify Q="What does Premium cost?" A="Premium costs 399 SEK/month."' && exit 2)
	@$(MANAGE) verify_answer --question "$$Q" --answer "$$A"

guard-report: migrate
	$(MANAGE) grounding_eval --mutate

# Any other management command: `make manage ARGS="import_kb https://www.example.se/priser --depth 0"`.
manage: migrate
	@test -n "$(ARGS)" || (echo 'usage: make manage ARGS="help"' && exit 2)
	$(MANAGE) $(ARGS)

run: migrate
	$(MANAGE) mark_interrupted_turns
	$(MANAGE) recover_executions
	@echo ""
	@echo "Once it listens, open:"
	@echo "  http://$(HOST):$(PORT)/              the chat page"
	@echo "  http://$(HOST):$(PORT)/admin/        review: conversations, answers, actions, the KB (make superuser first)"
	@echo "  http://$(HOST):$(PORT)/staff/        the staff console: live conversations handed to a person"
	@echo "  http://$(HOST):$(PORT)/widget-demo/  the widget on a demo page (WIDGET_DEMO=1 or DJANGO_DEBUG=1)"
	@echo ""
	$(MANAGE) import_worker & worker=$$!; trap 'kill $$worker 2>/dev/null' EXIT INT TERM; \
	$(UV) run python -m config.serve -b $(HOST) -p $(PORT) --http-timeout $(HTTP_TIMEOUT) --websocket-max-message-size $(WS_TRANSPORT_MAX_BYTES) --websocket-max-frame-size $(WS_TRANSPORT_MAX_BYTES) config.asgi:application

lint: install
	$(UV) run ruff check .
	$(UV) run ruff format --check .
	$(UV) run lint-imports

# The whole suite took about 30 minutes on a 2-core machine busy with other work; no test may
# take more than pytest-timeout's 600 s (pyproject.toml).
test: lint
	@echo "make test: the whole suite, about 30 minutes on 2 cores (each test stopped after 600 s)"
	$(UV) run pytest

format: install
	$(UV) run ruff format .
	$(UV) run ruff check --fix .

# The product runs on SQLite and, when this server answers, on PostgreSQL too (BENCH_POSTGRES= for SQLite only).
BENCH_POSTGRES ?= postgres://postgres@127.0.0.1:5432/postgres
# Ask the server `make run` started one question; prints the frames (docs/protocol.md).
ask: install
	@test -n "$$Q" || (echo 'usage: make ask Q="Vad kostar premium?"' && exit 2)
	@$(UV) run python scripts/ask.py --url "ws://$(HOST):$(PORT)/ws/chat/" "$$Q"

# The project's Python for anything else: `make python ARGS="-m bench.reindex --files 1000"`.
python: install
	@test -n "$(ARGS)" || (echo 'usage: make python ARGS="-m bench.hotpath"' && exit 2)
	$(UV) run python $(ARGS)

# ARGS: more options of `python -m bench`, e.g. ARGS="--scenario 2 --clients 500".
bench: install
	$(UV) run python -m bench --postgres "$(BENCH_POSTGRES)" $(ARGS)

# The README's two screenshots of the chat page, from the current code (needs Chromium).
screenshots: install
	$(UV) run python scripts/screenshots.py

clean:
	rm -rf .tools .venv .pytest_cache .ruff_cache .test-db.sqlite3*
