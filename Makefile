# Sekundant developer commands. Only Python >= 3.11 and make are needed: every target
# creates the virtual environment and installs what it needs itself. `make run` installs only
# what the bot needs; the development tools come with the first `make test`, `lint` or `bench`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
PIP    := $(BIN)/python -m pip --disable-pip-version-check --quiet
BOT    := $(VENV)/.installed-bot
DEV    := $(VENV)/.installed-dev
# Test workers: one per core (pytest-xdist); `make test JOBS=0` runs in one process.
JOBS   ?= auto

.PHONY: run test lint bench deploy clean venv pictures webapp-pictures proof-bundle

venv: $(DEV)

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Sekundant needs Python >= 3.11")'
	$(PYTHON) -m venv $(VENV)

$(BOT): pyproject.toml | $(BIN)/python
	$(PIP) install -e .
	touch $(BOT)

$(DEV): pyproject.toml | $(BIN)/python
	$(PIP) install -e ".[dev]"
	touch $(BOT) $(DEV)

## run: the bot (long polling) with TELEGRAM_BOT_TOKEN set, else the offline sandbox
run: $(BOT)
	$(BIN)/sekundant run

## test: the whole test suite, on every core, with the 10 slowest tests listed
test: $(DEV)
	$(BIN)/python -m pytest -n $(JOBS) --durations=10

## lint: ruff and mypy
lint: $(DEV)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

## bench: performance figures (targets are printed beside each figure)
bench: $(DEV)
	$(BIN)/python -m tests.bench

## pictures: the example reveal pictures of docs/bot.md and the README (docs/img/)
pictures: $(BOT)
	$(BIN)/python -m handlers.telegram.picture_demo docs/img

## webapp-pictures: the order pages at 390x844 in docs/img/ (needs Chromium, as .ci/run installs)
webapp-pictures: $(DEV)
	$(BIN)/python -m tests.webapp.pictures docs/img

## proof-bundle: the proof page's verifier, handlers/webapp/static/proof-bundle.js, built from
## webapp-verifier/ with the locked packages (needs node and npm; the build is checked by
## tests/webapp/test_proof_bundle.py)
proof-bundle:
	cd webapp-verifier && npm ci --ignore-scripts --no-audit --no-fund && npm run build

## deploy: build and deploy to AWS with SAM (see docs/deploy.md)
deploy: $(DEV)
	$(BIN)/python -m infra.deploy

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis .aws-sam build
