# Every target sets up what it needs on a fresh machine, in either order, into a virtualenv with
# pinned packages: `make demo` only the runtime dependencies, `make test` (lint, bench) those and
# the development ones. A stamp per set, named by pyproject.toml's checksum, says it is installed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SUM := $(shell cksum < pyproject.toml | cut -d' ' -f1)
RUNTIME := $(VENV)/.runtime-$(SUM)
DEV := $(VENV)/.dev-$(SUM)
PIP := $(BIN)/python -m pip install -q --disable-pip-version-check --config-settings editable_mode=compat

.PHONY: demo test lint bench

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(RUNTIME): | $(BIN)/python
	$(PIP) -e .
	rm -f $(VENV)/.runtime-* && touch $@

# The development set includes the runtime one, so it stamps both.
$(DEV): | $(BIN)/python
	$(PIP) -e '.[dev]'
	rm -f $(VENV)/.runtime-* $(VENV)/.dev-* $(VENV)/.installed-* && touch $(RUNTIME) $@

demo: $(RUNTIME)
	$(BIN)/python -m bot.demo

lint: $(DEV)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy --strict bot action

test: lint
	$(BIN)/pytest --cov --cov-report=term-missing:skip-covered

bench: $(DEV)
	$(BIN)/python bench/receipt_check.py
