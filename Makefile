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

# BEIR's evaluator is tested through runscore.pytrec_eval.register(); beir itself requires sentence-transformers (and
# so torch), which its evaluator never imports: installed without its dependencies (tqdm is in the test extra).
BEIR := "beir==2.2.0"

# A second venv with the machine's python3 and the newest numpy/scipy/PyYAML/jsonschema: the suite must pass at
# both ends of the supported range (the image's pins above, and today's releases).
VENV_LATEST := .venv-latest
PY_LATEST := $(VENV_LATEST)/bin/python
LATEST_PYTHON ?= python3

.PHONY: setup demo test test-cpu test-cpu-docs test-dispatch lint bench bench-docs clean bundle bundle-files channel-docs \
	test-latest fuzz fuzz-ci package-check tau-coverage

# pip's own chatter goes to .venv/setup.log, shown only when a step fails.
$(VENV)/.done: pyproject.toml
	@echo "setting up $(VENV) (pip log: $(VENV)/setup.log)"
	@$(BASE_PYTHON) -m venv $(VENV)
	@( $(PY) -m pip install -q --upgrade pip && \
	   if $(PY) -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 9) else 1)'; then \
		$(PY) -m pip install -q $(PINS_39); fi && \
	   $(PY) -m pip install -q -e '.[test]' && $(PY) -m pip install -q --no-deps $(BEIR) ) > $(VENV)/setup.log 2>&1 \
	   || { cat $(VENV)/setup.log; exit 1; }
	@touch $@

setup: $(VENV)/.done

# Every task's competition built (dist/<task-id>.zip), then each one's sample submission scored exactly as
# Codabench would score it in that competition (starting_kit/run/<task-id>/output/ keeps each detailed page).
demo: setup
	@$(PY) -m runscore bundle --per-task dist
	@$(PY) starting_kit/dry_run.py $$(for z in dist/*.zip; do echo --bundle $$z; done)

# Bytecode is kept under the venv: where PYTHONDONTWRITEBYTECODE is set (as on this project's machines), every run
# compiled runscore again in each Python the tests start, and pytest rewrote every test file (3 s of CPU a worker).
# The source tree stays free of __pycache__ all the same; `make clean` removes the venv and its bytecode.
TEST_ENV = PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX=$(CURDIR)/$(VENV)/pycache
TEST_ENV_LATEST = PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX=$(CURDIR)/$(VENV_LATEST)/pycache

test: setup
	$(TEST_ENV) $(PY) -m pytest -n auto

$(VENV_LATEST)/.done: pyproject.toml
	$(LATEST_PYTHON) -m venv $(VENV_LATEST)
	$(PY_LATEST) -m pip install -q --upgrade pip
	$(PY_LATEST) -m pip install -q -e '.[test]'
	$(PY_LATEST) -m pip install -q --no-deps $(BEIR)
	$(PY_LATEST) -m pip install -q --upgrade numpy scipy PyYAML jsonschema
	touch $@

# `make test` timed (tests/suite_figures.py): where its CPU goes, by test file (CPU seconds, which other work on the
# machine inflates far less than wall time), then the whole run's wall and CPU (every process: workers, the commands
# and peers they start), the load average before and after (a figure measured on a loaded machine says so), kept in
# tests/suite_figures.json; `make test-cpu-docs` writes them into docs/development.md and docs/performance.md.
test-cpu: setup
	$(TEST_ENV) $(PY) tests/suite_figures.py run

test-cpu-docs:
	python3 tests/suite_figures.py docs

# The bit-for-bit suites (fast path = exact path, kernels = depth walks, whole-run kernels, the NTCIREVAL measures =
# C's loops, runscore.pytrec_eval = pytrec_eval, trec_eval byte for byte) again with numpy's AVX-512 targets switched
# off, then its AVX-512 and AVX2 targets (`make test` runs them under the native dispatch, and
# tests/test_dispatch.py compares the bits of every kernel family across the three): tests/cpu_dispatch.py lists
# the targets this CPU has, so the target works on any machine and says so where there is nothing to switch off.
DISPATCH_TESTS := tests/test_fast_path.py tests/test_fast_path_shapes.py tests/test_fast_path_crlf_shuffled.py \
	tests/test_fast_path_tasks.py tests/test_fuzz_fast_path.py tests/test_id_keys.py tests/test_columnar.py \
	tests/test_run_batch.py tests/test_vectorised_ntcir.py tests/test_ntcireval.py tests/test_trec_measures.py \
	tests/test_trec_oracle.py tests/test_trec_eval_differential.py tests/test_trec_eval_fixtures.py \
	tests/test_pytrec_eval_compat.py tests/test_pytrec_eval_adopters.py tests/test_campaign_once.py tests/test_inmemory_rows.py
test-dispatch: setup
	@for families in avx512 avx512,avx2; do \
		features="$$($(PY) tests/cpu_dispatch.py $$families)" || exit 2; \
		if [ -z "$$features" ]; then echo "test-dispatch: $$families: nothing to switch off here"; continue; fi; \
		echo "test-dispatch: NPY_DISABLE_CPU_FEATURES=\"$$features\""; \
		$(TEST_ENV) NPY_DISABLE_CPU_FEATURES="$$features" $(PY) -m pytest -n auto -q $(DISPATCH_TESTS) || exit 1; \
	done

test-latest: $(VENV_LATEST)/.done
	$(PY_LATEST) -c 'import sys, numpy, scipy, yaml, jsonschema; from importlib.metadata import version; \
		print("test-latest: Python %s, numpy %s, scipy %s, PyYAML %s, jsonschema %s" % (sys.version.split()[0], \
		numpy.__version__, scipy.__version__, yaml.__version__, version("jsonschema")))'
	$(TEST_ENV_LATEST) $(PY_LATEST) -m pytest -n auto

FUZZ_TESTS := tests/test_fuzz_runs.py tests/test_fuzz_references.py tests/test_fuzz_commands.py tests/test_fuzz_fast_path.py \
	tests/test_fuzz_numeric_fields.py tests/test_fuzz_campaign.py

# CI's fuzzing (.ci/run): 10,000 hostile variants per run format, 100 per reference file, 400 fast-path and 1,000
# trec_eval inputs, numeric fields on 30 lines of each sample and reference file (3 in `make test`), 60 variants of
# each task's sample and every hostile case given to validate, check and score.py (4 and a quarter in `make test`),
# 240 random pairs against pytrec_eval (60 in `make test`), 150 hostile campaigns through pool, judgements and report
# and 400 damaged sheets, runs tables and pool statistics each (6 and 20 in `make test`), 600 random cases through every
# door of trec_eval and against ir_measures (30 in `make test`), 200 cases under ir_measures and BEIR (40 in `make
# test`), 4 tricky pairs against each trec_eval binary and path (2 in `make test`); `make test` runs a hundredth of the
# run variants (100), a tenth of the reference ones (10), a twentieth of the trec_eval inputs (50) and a tenth of the
# fast-path inputs (40), so that its CPU stays low on two shared cores (docs/performance.md).
fuzz-ci: setup
	$(TEST_ENV) RUNSCORE_FUZZ_INPUTS=10000 RUNSCORE_FUZZ_REFERENCE_INPUTS=100 RUNSCORE_FUZZ_COMMAND_INPUTS=1000 \
		RUNSCORE_FUZZ_CAMPAIGNS=150 RUNSCORE_FUZZ_CAMPAIGN_FILES=400 \
		RUNSCORE_FUZZ_FAST_PATH_INPUTS=400 \
		RUNSCORE_FUZZ_NUMERIC_LINES=30 RUNSCORE_VERDICT_VARIANTS=60 RUNSCORE_VERDICT_HOSTILE=all \
		RUNSCORE_PYTREC_CASES=240 RUNSCORE_DOORS_CASES=600 RUNSCORE_ADOPTER_CASES=200 \
		RUNSCORE_FUZZ_TREC_EVAL_PAIRS=4 \
		$(PY) -m pytest -n auto $(FUZZ_TESTS) tests/test_one_verdict.py tests/test_pytrec_eval_compat.py \
		tests/test_all_doors.py tests/test_pytrec_eval_adopters.py tests/test_trec_eval_differential.py

# The coverage of runscore report's tau interval, by simulation at CI's size (tests/test_report_tau_coverage.py:
# seven scenarios of 400 campaigns, three with tau in [0.9, 1.0], and the intervals that do not hold the tau of the
# population means; about 7 CPU minutes); `make test` runs one cheap scenario of 40 campaigns.
tau-coverage: setup
	RUNSCORE_TAU_COVERAGE_CAMPAIGNS=400 $(PY) -m pytest -n auto tests/test_report_tau_coverage.py

# Longer fuzzing than CI (100,000 hostile variants per run format, 2,000 per reference file, 20,000 for the
# trec_eval command; 5,000 random pairs against pytrec_eval; every numeric field on every line of every sample
# and reference file); RUNSCORE_FUZZ_DUMP=folder keeps failing inputs whole.
fuzz: setup
	RUNSCORE_FUZZ_INPUTS=100000 RUNSCORE_FUZZ_REFERENCE_INPUTS=2000 RUNSCORE_FUZZ_COMMAND_INPUTS=20000 RUNSCORE_FUZZ_FAST_PATH_INPUTS=10000 \
		RUNSCORE_FUZZ_CAMPAIGNS=2000 RUNSCORE_FUZZ_CAMPAIGN_FILES=5000 \
		RUNSCORE_FUZZ_NUMERIC_LINES=0 RUNSCORE_FUZZ_TREC_EVAL_PAIRS=600 RUNSCORE_FUZZ_TREC_EVAL_BIG=1 RUNSCORE_FUZZ_TREC_EVAL_SWEEP_LINES=1000000 $(PY) -m pytest -n auto $(FUZZ_TESTS) tests/test_trec_eval_differential.py
	RUNSCORE_PYTREC_CASES=5000 $(PY) -m pytest -n auto tests/test_pytrec_eval_compat.py

# The platform suite (tests/platform/, docs/codabench.md): the real Codabench of ../shared/peers/codabench (its
# Django site on PostgreSQL and Redis from Debian's packages, its compute worker) with every task's bundles. Its own
# venv, .venv-codabench, holds Codabench's pinned dependencies (its pyproject.toml and uv.lock) on Python 3.13 as
# pinned (3.12 if absent: its IPython pin needs 3.12), made once and remade when those pins change. Skips, saying
# why, without ../shared or such a Python; PLATFORM_ARGS are pytest's (RUNSCORE_PLATFORM_TASKS=a,b: some tasks).
SHARED ?= $(or $(RUNSCORE_SHARED),../shared)
CODABENCH := $(SHARED)/peers/codabench
VENV_CB := .venv-codabench
PY_CB := $(VENV_CB)/bin/python
PYTHON_CB ?= $(shell for p in $$HOME/.pyenv/versions/3.13*/bin/python3 $$(command -v python3.13) \
	$$HOME/.pyenv/versions/3.12*/bin/python3 $$(command -v python3.12 python3.11 python3); do \
	"$$p" -c 'import sys, venv; sys.exit(sys.version_info < (3, 12))' >/dev/null 2>&1 && echo "$$p" && break; done)

.PHONY: test-platform
test-platform: setup
	@if [ ! -f "$(CODABENCH)/manage.py" ]; then \
		echo "test-platform: skipped: needs Codabench's sources at $(CODABENCH) (codalab/codabench)"; exit 0; fi; \
	if [ -z "$(PYTHON_CB)" ]; then echo "test-platform: skipped: needs Python >= 3.12 for Codabench's pins"; exit 0; fi; \
	pins=$$(cat "$(CODABENCH)/uv.lock" "$(CODABENCH)/compute_worker/uv.lock" "$(CODABENCH)/pyproject.toml" \
		"$(CODABENCH)/compute_worker/pyproject.toml" | sha256sum | cut -c1-16); \
	if [ "$$(cat $(VENV_CB)/.done 2>/dev/null)" != "$$pins" ]; then \
		echo "setting up $(VENV_CB) with Codabench's pins (pip log: $(VENV_CB)/setup.log)"; \
		rm -rf $(VENV_CB) && "$(PYTHON_CB)" -m venv $(VENV_CB) && \
		( RUNSCORE_SHARED=$(abspath $(SHARED)) $(PY_CB) tests/platform/codabench_harness.py requirements $(VENV_CB) && \
		  $(PY_CB) -m pip install -q --upgrade pip && \
		  $(PY_CB) -m pip install -q -r $(VENV_CB)/requirements.txt -c $(VENV_CB)/constraints.txt \
		) > $(VENV_CB)/setup.log 2>&1 || { cat $(VENV_CB)/setup.log; exit 1; }; \
		echo "$$pins" > $(VENV_CB)/.done; fi; \
	RUNSCORE_SHARED=$(abspath $(SHARED)) $(PY_CB) -m pytest -c tests/platform/pytest.ini tests/platform $(PLATFORM_ARGS)

# The sdist and wheel built, checked by twine; the wheel installed alone (numpy only) on every Python 3.9-3.13 under
# ~/.pyenv, with its extras, and beside ir_measures and BEIR by the recipe of docs/python-api.md, `pip check`
# clean (BEIR brings torch: about 5 minutes and 2 GB; RUNSCORE_TORCH=wheel-or-requirement picks the torch).
package-check: setup
	RUNSCORE_PACKAGE_TEST=1 $(PY) -m pytest tests/test_packaging.py

lint: setup
	$(VENV)/bin/vermin -q --no-tips -t=3.9- --violations --eval-annotations scoring_program
	$(PY) -m compileall -q scoring_program
	$(PY) -m pyflakes scoring_program tests benchmarks starting_kit/dry_run.py starting_kit/baselines

# The table of what a hidden phase's leaderboard can tell, per task (codabench/channel.py), rewritten into
# docs/codabench.md ("How much a leaderboard tells"); tests/test_channel.py fails when the page differs.
channel-docs: setup
	cd scoring_program && ../$(PY) -m runscore.codabench.channel --update-docs ../docs/codabench.md

# Regenerate the committed bundle files (competition.yaml, pages/, logo.png, starting_kit/schemas/) from the registry.
bundle-files: setup
	$(PY) -m runscore bundle --write-root

# The Codabench upload zips, one competition per task: dist/<task-id>.zip (TASKS=a,b for some tasks,
# REFERENCE=dir for the organiser's real reference data, a folder per task id, in the formal phase: it is written to
# dist/<task-id>.worker-data/ for the organiser's compute worker, never into the zip, unless PUBLISH_REFERENCE=1;
# QUEUE=vhost names the organiser's own Codabench queue in competition.yaml; docs/codabench.md).
bundle: setup
	$(PY) -m runscore bundle --per-task dist $(if $(TASKS),--tasks $(TASKS)) $(if $(REFERENCE),--reference $(REFERENCE)) $(if $(PUBLISH_REFERENCE),--publish-reference) $(if $(QUEUE),--queue $(QUEUE)) $(if $(FORMAL_END),--formal-end "$(FORMAL_END)")

# The shape table (every shape of input users have, against trec_eval -O2 and pytrec_eval: a promise of speed made
# on clean input only broke on others; about 30 minutes on a quiet machine), then the size and form benchmark and the many-files benchmark. SHAPES_FLAGS=--quick for a look.
bench: setup
	$(PY) benchmarks/shapes.py $(SHAPES_FLAGS) --json benchmarks/shapes.json
	$(PY) benchmarks/bench.py
	$(PY) benchmarks/many_files.py
	$(PY) benchmarks/report_bench.py
	$(PY) benchmarks/collection_bench.py

# The shape table of the last `make bench` (benchmarks/shapes.json) written into docs/performance.md.
bench-docs: setup
	$(PY) benchmarks/shapes.py --from-json benchmarks/shapes.json --update-docs

clean:
	rm -rf $(VENV) $(VENV_LATEST) $(VENV_CB) build *.egg-info scoring_program/*.egg-info .pytest_cache
