# The two commands of the README:
#   make run    set up, load the demo data and start the platform on http://127.0.0.1:8000
#   make test   set up and run the whole test suite on SQLite, then its database tests on PostgreSQL

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
PYTEST_ARGS ?=

.PHONY: run test setup setup-run system-deps js-deps lint migrate messages

# `make run` installs what running needs; `make test` adds the test tools (Playwright, Inspect,
# Schemathesis, ruff, import-linter: the `test` extra).
$(VENV)/.installed-run: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet --editable .
	touch $@

$(VENV)/.installed: $(VENV)/.installed-run
	$(PY) -m pip install --quiet --editable '.[test]'
	touch $@

setup-run: $(VENV)/.installed-run

setup: $(VENV)/.installed

migrate: setup-run
	$(PY) manage.py migrate --no-input

run: migrate
	$(VENV)/bin/heartbench load-demo
	$(VENV)/bin/heartbench demo-study
	$(VENV)/bin/heartbench serve --host $(HOST) --port $(PORT)

# Redis, Chromium, CJK fonts and GNU gettext (the translation-catalogue test extracts strings
# with xgettext) come from Debian; PostgreSQL's server binaries are expected on PATH (initdb,
# pg_ctl). Installs only what is missing, and only when it can (root with apt).
system-deps:
	@missing=""; \
	command -v redis-server >/dev/null || missing="$$missing redis-server"; \
	command -v xgettext >/dev/null || missing="$$missing gettext"; \
	test -x /usr/bin/chromium || missing="$$missing chromium"; \
	test -d /usr/share/fonts/opentype/noto || missing="$$missing fonts-noto-cjk"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  else echo "missing system packages:$$missing (tests that need them will skip)"; fi; \
	fi

# axe-core, for the accessibility test (tests/e2e/test_accessibility.py), at the version
# package-lock.json pins; again only when the lock file changed. Without npm that test skips.
js-deps:
	@if ! command -v npm >/dev/null; then echo "no npm: the accessibility tests will skip"; \
	elif [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then \
	  npm ci --no-audit --no-fund; fi

# The translation catalogues (config/locale/zh_Hans): extract every marked string of the
# code, templates (django) and scripts (djangojs), then compile. The .mo files are committed,
# so `make run` needs no gettext; tests/frontend/test_i18n.py fails when they fall behind.
I18N_IGNORE := --ignore=tests --ignore=benchmarks --ignore=docs --ignore=fixtures \
	--ignore=data --ignore=var --ignore=staticfiles --ignore=test-artifacts --ignore=build --ignore=node_modules --ignore='*.egg-info'
CATALOGUE := config/locale/zh_Hans/LC_MESSAGES
messages: setup
	$(PY) manage.py makemessages --locale zh_Hans --add-location file --no-obsolete $(I18N_IGNORE)
	$(PY) manage.py makemessages --domain djangojs --locale zh_Hans --add-location file \
	  --no-obsolete $(I18N_IGNORE)
	for d in django djangojs; do test ! -f $(CATALOGUE)/$$d.po || msgfmt --check -o $(CATALOGUE)/$$d.mo $(CATALOGUE)/$$d.po; done

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-cache

# The product suite once per database, both passes at once (tests/passes.py): every test on
# SQLite, and on PostgreSQL those marked `database` (tests/conftest.py marks every test that can
# reach a database).
test: setup system-deps js-deps lint
	$(PY) -m tests.passes $(PYTEST_ARGS)
