# runscore: `make demo` (score the shipped samples as Codabench would) and `make test` do their own set-up.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
# The scoring image is Python 3.9 (codalab/codalab-legacy:py39); use a 3.9 interpreter when the machine has one.
PYTHON39 := $(shell for p in $$(ls -d $$HOME/.pyenv/versions/3.9*/bin/python3.9 2>/dev/null) $$(command -v python3.9); do \
	"$$p" -c 'import venv' >/dev/null 2>&1 && echo "$$p" && break; done)
BASE_PYTHON ?= $(if $(PYTHON39),$(PYTHON39),python3)
# Pins closest to the image (numpy 1.22.4, scipy 1.8.1, PyYAML 6.0, jsonschema 4.x) on Python 3.9.
PINS_39 := "numpy==1.22.4" "scipy==1.8.1" "PyYAML==6.0.1" "jsonschema>=4,<5"

.PHONY: setup demo test lint bench clean bundle bundle-files

$(VENV)/.done: pyproject.toml
	$(BASE_PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	@if $(PY) -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 9) else 1)'; then \
		$(PY) -m pip install -q $(PINS_39); fi
	$(PY) -m pip install -q -e '.[test]'
	touch $@

setup: $(VENV)/.done

demo: setup
	$(PY) starting_kit/dry_run.py

test: setup
	$(PY) -m pytest

lint: setup
	$(VENV)/bin/vermin -q --no-tips -t=3.9- --violations --eval-annotations scoring_program
	$(PY) -m compileall -q scoring_program

# Regenerate the committed bundle files (competition.yaml, pages/, logo.png, starting_kit/schemas/) from the registry.
bundle-files: setup
	$(PY) -m runscore bundle --write-root

# The Codabench upload zip (add TASKS=a,b REFERENCE=dir for a subset or the real reference data).
bundle: setup
	$(PY) -m runscore bundle -o dist/runscore-bundle.zip $(if $(TASKS),--tasks $(TASKS)) $(if $(REFERENCE),--reference $(REFERENCE))

bench: setup
	$(PY) benchmarks/bench.py

clean:
	rm -rf $(VENV) build *.egg-info scoring_program/*.egg-info .pytest_cache
