# The course in two commands:  `make lab` (open it)  and  `make test` (check all of it).
# For instructors: `make site` (the course as a website) and `make demo` (a widget for a lecture).
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
SITE_STAMP := $(VENV)/.installed-site
HUB_STAMP  := $(VENV)/.installed-hub
# Where pip gets PyTorch's CPU build (a wheel file will do): `make install` without a GPU and
# `make bench-notebooks` (Binder's build).
CPU_TORCH ?= torch --index-url https://download.pytorch.org/whl/cpu
# Use the kernel and the Jupyter data of this environment, not ones left elsewhere on the machine.
export JUPYTER_PREFER_ENV_PATH := 1

.PHONY: lab test install data notebooks bench bench-notebooks site demo clean

install: $(STAMP)

# Where no NVIDIA GPU answers (nvidia-smi), torch is PyTorch's CPU build (CPU_TORCH, below): a
# laptop does not download the CUDA libraries, about half of a 6.4 GB environment. Where that index
# cannot be reached, the default build is installed instead, and make says so.
HAS_GPU := $(shell nvidia-smi >/dev/null 2>&1 && echo yes)
$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
ifneq ($(HAS_GPU),yes)
	$(PY) -m pip install --quiet --retries 0 --timeout 15 $(CPU_TORCH) || echo "make: PyTorch's \
	CPU index could not be reached; the default build of torch (with its CUDA libraries) follows"
endif
	$(PY) -m pip install --quiet -e '.[lab,dev]'
	touch $(STAMP)

# The website's and the demo's tools (the `site` extra), on top of the above.
$(SITE_STAMP): $(STAMP)
	$(PY) -m pip install --quiet -e '.[lab,dev,site]'
	touch $(SITE_STAMP)

# The hub test's tools (the `hub` extra: JupyterHub, nbgitpuller) and the proxy JupyterHub
# needs, configurable-http-proxy, by npm from the lock file into .venv/hub-proxy.
$(HUB_STAMP): $(SITE_STAMP) tests/hub/package.json tests/hub/package-lock.json
	$(PY) -m pip install --quiet -e '.[lab,dev,site,hub]'
	mkdir -p $(VENV)/hub-proxy
	cp tests/hub/package.json tests/hub/package-lock.json $(VENV)/hub-proxy/
	cd $(VENV)/hub-proxy && npm ci --silent --no-audit --no-fund
	touch $(HUB_STAMP)

# MNIST into data/MNIST: `make data MNIST_DIR=/path/to/MNIST` links a local copy (a folder holding
# raw/); without it capsedu downloads the files on first use (capsedu/data/mnist.py).
data: $(STAMP)
	@if [ -n "$(MNIST_DIR)" ] && [ ! -e data/MNIST ]; then ln -s "$(abspath $(MNIST_DIR))" data/MNIST; fi
	-$(PY) -c "from capsedu.data import load_mnist; load_mnist(True); load_mnist(False); print('MNIST ready')"

# Jupyter refuses to start as root (as containers and many cloud machines run) unless told it may.
lab: $(STAMP) data
	$(VENV)/bin/jupyter lab $(if $(filter 0,$(shell id -u)),--allow-root) \
		notebooks/00_start_here.ipynb

# Lint, unit tests (the browser tests build a small website and open the demo; the hub tests
# start a JupyterHub with several learners), then every notebook executed by nbval, all in quick
# mode.
test: $(HUB_STAMP)
	$(PY) -m ruff check .
	CAPSEDU_QUICK=1 $(PY) -m pytest tests notebooks \
		--nbval-lax --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg

# Re-run every notebook in quick mode and store it as the policy says (tests/notebook_policy.py).
notebooks: $(STAMP)
	$(PY) tests/notebook_policy.py --fix notebooks/[0-9][0-9]_*.ipynb

# The course as a website in _build/site/ (open _build/site/index.html). Notebooks run in default
# mode, once: their outputs are kept in _build/jupyter_cache/ and a notebook runs again only when
# its code changes (-E reads every page again, from that cache). The build refuses to run with
# CAPSEDU_QUICK set.
site: $(SITE_STAMP) data
	$(PY) -m sphinx -E -b html -c docs . _build/site -d _build/doctrees

# Notebook 07's headline widget and 04's routing widget, without code, for a lecture (Voila).
# DEMO_DPI: the widgets' resolution, larger than in a notebook (80) so a projector shows them large.
DEMO_DPI ?= 130
demo: $(SITE_STAMP) data
	CAPSEDU_WIDGET_DPI=$(DEMO_DPI) $(VENV)/bin/voila notebooks/demo/lecture_demo.ipynb

bench: $(STAMP)
	$(PY) benchmarks/routing.py
	$(PY) benchmarks/routing_cost.py
	$(PY) benchmarks/widgets.py
	$(PY) benchmarks/scoring.py

# Each notebook's time and peak memory (benchmarks/notebooks.py) as a Binder learner gets them: in a
# second environment, $(CPU_VENV), with the CPU-only build of torch that Binder installs (a CUDA
# build imports about 300 MB more), from CPU_TORCH.
CPU_VENV  ?= .venv-cpu
bench-notebooks: data
	test -x $(CPU_VENV)/bin/python || $(PYTHON) -m venv $(CPU_VENV)
	$(CPU_VENV)/bin/python -m pip install --quiet $(CPU_TORCH)
	$(CPU_VENV)/bin/python -m pip install --quiet -e '.[lab]' nbclient psutil
	$(CPU_VENV)/bin/python benchmarks/notebooks.py --json benchmarks/results/notebooks.json

clean:
	rm -rf $(VENV) $(CPU_VENV) .pytest_cache .ruff_cache
