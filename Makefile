# The two commands (see README): `make demo` and `make test`. Both set everything up first.
VENV ?= .venv
PY := $(VENV)/bin/python
export TORCHDYNAMO_DISABLE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: setup demo test test-fast lint clean

setup:
	@bash scripts/setup.sh

demo: setup
	@bash scripts/demo.sh

test: setup
	@$(PY) -m pytest -q -n auto --maxprocesses 4 --dist worksteal

# the suite without the tests marked slow (5 s or more each on 2 cores; the real model, the
# Ray and grid runs, the audits): a few minutes, for the edit-test loop. CI runs `make test`.
test-fast: setup
	@$(PY) -m pytest -q -n auto --maxprocesses 4 --dist worksteal -m "not slow"

# ruff's lint rules and its formatter (checked, not applied: run `ruff format scir solvers`),
# mypy on the two packages, and the import-layer contract (no package imports one above it;
# configuration of all of them: pyproject.toml)
lint: setup
	@$(VENV)/bin/ruff check scir solvers
	@$(VENV)/bin/ruff format --check scir solvers
	@$(VENV)/bin/mypy
	@$(VENV)/bin/lint-imports --no-cache

clean:
	rm -rf $(VENV) build dist demo-out .pytest_cache
