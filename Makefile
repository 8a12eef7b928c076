# One entry point for everything. `make play` and `make test` set themselves up.
# Area-specific targets live in mk/*.mk (one file per area, included below).

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# What playing needs (the project and its run-time packages) apart from what the
# tests and tools of the developers need (`.[dev]`: pytest, OpenSpiel, mypy,
# Chromium's driver, the unix port; and node's MicroPython VM).
PLAY_STAMP := $(VENV)/.installed-play
MPVM   := node_modules/@micropython/micropython-webassembly-pyscript/micropython.mjs
# Test workers: the machines have 2 cores.
JOBS   ?= 2

.PHONY: all setup setup-play play test lint typecheck compile bench clean
all: setup

setup: $(STAMP) $(MPVM)

setup-play: $(PLAY_STAMP)

$(PLAY_STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e .
	touch $@

$(STAMP): $(PLAY_STAMP)
	$(VENV)/bin/pip install --quiet -e '.[dev]'
	touch $@

$(MPVM): package.json package-lock.json
	@command -v npm >/dev/null 2>&1 || { echo "error: the MicroPython WebAssembly VM comes from npm:" \
	  "install node and npm (Debian: apt-get install nodejs npm), then run make again" >&2; exit 1; }
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

play: setup-play
	$(PY) -m host_tools.simulators.sim $(ARGS)

# The whole suite: lint, type check against device stubs, mpy-cross, pytest
# (CPython and the MicroPython VM). Kept under 4 minutes on 2 cores: the
# exhaustive sweeps it samples run in `make test-long` (mk/test_long.mk).
# web-deps first (mk/web.mk): as root with apt-get it installs the browser tests'
# system packages, and says so before anything else (WEB_DEPS=no: none); online-deps
# (mk/online.mk) the same for the online tests' broker, Mosquitto (ONLINE_DEPS=no: none).
test: web-deps online-deps setup lint typecheck compile
	$(VENV)/bin/pytest -q -n $(JOBS) $(PYTEST_ARGS)

lint: setup
	$(VENV)/bin/ruff check firmware host_tools tests

typecheck: setup
	$(PY) -m host_tools.runners.typecheck

compile: setup
	$(PY) -m host_tools.runners.mpycompile --check

bench: setup
	$(VENV)/bin/mancala bench

clean:
	rm -rf $(VENV) node_modules build .pytest_cache .hypothesis .mypy_cache .ruff_cache

-include mk/*.mk
