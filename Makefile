# pyflowkit developer commands. Everything runs in ./.venv, created on first use.
#   make demo   set up .venv with pyflowkit and run the bundled demo job
#   make test   set up .venv with the test + lab + notebook extras and run the whole test suite
#   make lab    set up .venv with the lab extra and start JupyterLab on notebooks/
#   make lint   ruff check + ruff format --check
#   make bench  run every benchmarks/bench_*.py
#   make soak   the test suite with many more Hypothesis examples (HYPOTHESIS_PROFILE=soak)
#   make clean  remove build outputs and caches (keeps .venv); make distclean also removes .venv

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip
PIP_FLAGS ?= --quiet --progress-bar off
PYTEST_ARGS ?=
LAB_ARGS ?=
# JupyterLab refuses to run as root without --allow-root (containers, CI machines).
ALLOW_ROOT := $(if $(filter 0,$(shell id -u 2>/dev/null)),--allow-root)

# Stamp files: the install step reruns only when pyproject.toml is newer than the stamp.
STAMP_BASE := $(VENV)/.pyflowkit-base.stamp
STAMP_LAB := $(VENV)/.pyflowkit-lab.stamp
STAMP_TEST := $(VENV)/.pyflowkit-test.stamp

.DEFAULT_GOAL := help
.PHONY: help demo test lab lint format bench soak clean distclean

help:
	@sed -n '2,8s/^# \{0,1\}//p' Makefile

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 10))' || \
	  { echo "pyflowkit needs Python >= 3.10; '$(PYTHON)' is $$($(PYTHON) -V 2>&1)." \
	         "Run e.g. 'make PYTHON=python3.11 ...'." >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PIP) install $(PIP_FLAGS) --upgrade pip

$(STAMP_BASE): pyproject.toml | $(BIN)/python
	@echo "Installing pyflowkit into $(VENV) (first time: about 1-2 minutes, pyspark is large) ..."
	$(PIP) install $(PIP_FLAGS) -e .
	@touch $@

$(STAMP_LAB): pyproject.toml | $(BIN)/python
	@echo "Installing pyflowkit[lab] into $(VENV) ..."
	$(PIP) install $(PIP_FLAGS) -e '.[lab]'
	@touch $@ $(STAMP_BASE)

$(STAMP_TEST): pyproject.toml | $(BIN)/python
	@echo "Installing pyflowkit[test,lab,notebook] into $(VENV) (first time: about 1-2 minutes) ..."
	$(PIP) install $(PIP_FLAGS) -e '.[test,lab,notebook]'
	@touch $@ $(STAMP_LAB) $(STAMP_BASE)

demo: $(STAMP_BASE)
	$(BIN)/pyflowkit demo

test: $(STAMP_TEST)
	$(BIN)/python -m pytest -q $(PYTEST_ARGS)

lab: $(STAMP_LAB)
	$(BIN)/jupyter lab --ServerApp.root_dir=notebooks $(ALLOW_ROOT) $(LAB_ARGS)

lint: $(STAMP_TEST)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP_TEST)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

bench: $(STAMP_BASE)
	@set -e; for f in benchmarks/bench_*.py; do \
	  [ -e "$$f" ] || { echo "no benchmarks/bench_*.py yet"; break; }; \
	  echo "== $$f"; $(BIN)/python "$$f"; \
	done

soak: $(STAMP_TEST)
	HYPOTHESIS_PROFILE=soak $(BIN)/python -m pytest -q $(PYTEST_ARGS)

clean:
	rm -rf build dist .pytest_cache .ruff_cache .hypothesis spark-warehouse metastore_db derby.log
	find . -path ./$(VENV) -prune -o \( -name __pycache__ -o -name .ipynb_checkpoints \) \
	  -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV)
