# Shortlist — `make run` serves the app locally, `make test` runs the whole suite, `make docs`
# builds the documentation the app serves at /docs/.
# Both install whatever is missing first (Debian packages, .venv, the project).

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
MANAGE := $(BIN)/python manage.py
HOST ?= 127.0.0.1
PORT ?= 8000
OIDC_PROVIDER := tests/oidc_provider
# The suite runs in parallel (pytest-xdist): one worker per core by default. Tests that share an
# expensive set-up are grouped onto one worker (xdist_group, --dist loadgroup).
TEST_WORKERS ?= auto

.PHONY: bench-session run test install install-test system-deps system-deps-test translations migrate messages seed \
	lint format worker beat bench bench-scale docs clean

run: install translations docs
	@mkdir -p var
	$(MANAGE) migrate --noinput
	$(MANAGE) seed
	$(MANAGE) seed_demo_users
	$(MANAGE) demo
	@echo "Shortlist is at http://$(HOST):$(PORT)/ (sign in with a demo account above)."
	@# The web server and a report worker together; Ctrl-C stops both (bin/serve-local).
	BIN=$(BIN) HOST=$(HOST) PORT=$(PORT) bin/serve-local

test: install-test translations
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadgroup --durations=25 $(PYTEST_ARGS)

# The documentation (docs/, mkdocs.yml) as a static site in var/docs-site/, which the app serves
# at /docs/; --strict fails on a broken link or anchor and on a page missing from the nav (not
# with --quiet, which hides the warnings --strict counts).
docs: $(BIN)/.installed
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir var/docs-site

system-deps:
	bin/install-system-deps

system-deps-test:
	bin/install-system-deps --test

# The venv is rebuilt when pyproject.toml changes.
$(BIN)/.installed: pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $@

install: system-deps $(BIN)/.installed

install-test: system-deps-test $(BIN)/.installed $(OIDC_PROVIDER)/node_modules/.installed

# The throwaway OpenID provider the company sign-in tests start (oidc-provider under node).
$(OIDC_PROVIDER)/node_modules/.installed: $(OIDC_PROVIDER)/package-lock.json
	cd $(OIDC_PROVIDER) && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# Compiled catalogs (*.mo) are build output, not in git: every command that serves pages or
# renders reports compiles them first, so a fresh clone never prints an English "Chinese" report.
translations: $(BIN)/.installed
	$(MANAGE) compilemessages --ignore=.venv -v0

migrate: install
	$(MANAGE) migrate --noinput

messages: install
	$(MANAGE) makemessages -l zh_Hans -e html,txt,py,jinja --ignore=.venv --ignore=var --ignore=tests --ignore=bench --no-obsolete
	$(MANAGE) compilemessages --ignore=.venv

seed: migrate
	$(MANAGE) seed

lint: $(BIN)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(BIN)/.installed
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# A Celery worker on its own (production: REDIS_URL set; `make run` starts one by itself).
worker: install translations
	$(BIN)/celery -A config worker --loglevel=INFO

# Periodic jobs (fails report runs stuck past REPORT_STUCK_AFTER so they can be retried).
beat: install translations
	$(BIN)/celery -A config beat --loglevel=INFO --schedule var/celerybeat-schedule

bench: install translations
	$(BIN)/python bench/catalog_compare.py
	$(BIN)/python bench/report_render.py

# Readers and a writer on the large evaluation under gunicorn, on SQLite and on PostgreSQL
# (bench/poc_session.py; a database of its own on postgres://postgres@127.0.0.1:5432).
bench-session: install translations
	$(BIN)/python bench/poc_session.py

# Lists, tabs and a load mix at 1,000 evaluations (bench/scale.py): PostgreSQL only, in a
# database of its own, e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/shortlist_scale.
bench-scale: install translations
	@case "$$DATABASE_URL" in postgres*) ;; \
	  *) echo "make bench-scale needs DATABASE_URL=postgres://... (a database of its own)"; exit 2;; esac
	$(BIN)/python bench/scale.py

clean:
	rm -rf $(VENV) staticfiles .ruff_cache var/docs-site
