# Sekundant developer commands. Only Python >= 3.11 and make are needed: every target
# creates the virtual environment and installs what it needs itself.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test lint bench deploy clean venv pictures

venv: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Sekundant needs Python >= 3.11")'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

## run: the bot (long polling) with TELEGRAM_BOT_TOKEN set, else the offline sandbox
run: $(STAMP)
	$(BIN)/sekundant run

## test: the whole test suite
test: $(STAMP)
	$(BIN)/python -m pytest

## lint: ruff and mypy
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

## bench: performance figures (targets are printed beside each figure)
bench: $(STAMP)
	$(BIN)/python -m tests.bench

## pictures: the example reveal pictures of docs/bot.md and the README (docs/img/)
pictures: $(STAMP)
	$(BIN)/python -m handlers.telegram.picture_demo docs/img

## deploy: build and deploy to AWS with SAM (see docs/deploy.md)
deploy: $(STAMP)
	$(BIN)/python -m infra.deploy

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .aws-sam build
