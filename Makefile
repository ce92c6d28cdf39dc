# The course in two commands:  `make lab` (open it)  and  `make test` (check all of it).
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# Use the kernel and the Jupyter data of this environment, not ones left elsewhere on the machine.
export JUPYTER_PREFER_ENV_PATH := 1

.PHONY: lab test install data notebooks bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[lab,dev]'
	touch $(STAMP)

# MNIST into data/MNIST: `make data MNIST_DIR=/path/to/MNIST` links a local copy (a folder holding
# raw/); without it torchvision downloads the files on first use.
data: $(STAMP)
	@if [ -n "$(MNIST_DIR)" ] && [ ! -e data/MNIST ]; then ln -s "$(abspath $(MNIST_DIR))" data/MNIST; fi
	-$(PY) -c "from capsedu.data import load_mnist; load_mnist(True); load_mnist(False); print('MNIST ready')"

lab: $(STAMP) data
	$(VENV)/bin/jupyter lab notebooks/00_start_here.ipynb

# Lint, unit tests, then every notebook executed by nbval, all in quick mode.
test: $(STAMP)
	$(PY) -m ruff check .
	CAPSEDU_QUICK=1 $(PY) -m pytest tests notebooks \
		--nbval-lax --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg

# Re-run every notebook in quick mode and store it as the policy says (tests/notebook_policy.py).
notebooks: $(STAMP)
	$(PY) tests/notebook_policy.py --fix notebooks/[0-9][0-9]_*.ipynb

bench: $(STAMP)
	$(PY) benchmarks/routing.py
	$(PY) benchmarks/routing_cost.py
	$(PY) benchmarks/widgets.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
