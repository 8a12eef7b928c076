# Online games (issue 44, docs/ONLINE.md): the tests' broker.
#   make online-deps [ONLINE_DEPS=no]   Mosquitto, the tests' MQTT broker (apt, as root)
#   make test-online                    only the online tests (the sample; --long: every point)
# `make test` runs online-deps first: as root with apt-get it installs Debian's
# mosquitto and says so before anything else; elsewhere one line says why nothing was
# installed, and the tests that need a broker are skipped with one line (under CI they
# fail instead).  MOSQUITTO=/path/to/mosquitto names a broker of your own.
ONLINE_DEPS ?= yes

.PHONY: online-deps test-online test-online-long

online-deps:
	@if [ -n "$$MOSQUITTO" ] || command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ]; then exit 0; fi; \
	skip="the tests that need a broker will be skipped"; \
	if [ "$(ONLINE_DEPS)" = no ]; then \
	  echo "online-deps: ONLINE_DEPS=no: mosquitto not installed, $$skip; to get it, as root: make online-deps (apt-get install mosquitto)"; \
	elif [ "$$(id -u)" != 0 ]; then \
	  echo "online-deps: not root: mosquitto not installed, $$skip; to get it, as root: make online-deps (apt-get install mosquitto)"; \
	elif ! command -v apt-get >/dev/null 2>&1; then \
	  echo "online-deps: no apt-get here: mosquitto not installed, $$skip; install the Mosquitto broker with this system's packages (or name it: MOSQUITTO=/path/to/mosquitto)"; \
	else \
	  echo "online-deps: installing the MQTT broker for the online tests, as root with apt-get: apt-get install mosquitto, after apt-get update where the lists are stale (the tests start their own broker on free ports of 127.0.0.1; to install none: make test ONLINE_DEPS=no)"; \
	  { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends mosquitto >/dev/null 2>&1 \
	    || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    --no-install-recommends mosquitto >/dev/null; }; } \
	  || echo "warning: apt-get could not install mosquitto: the online tests will say why"; \
	fi

test-online: setup online-deps
	$(VENV)/bin/pytest -q -n $(JOBS) tests/test_online_*.py $(PYTEST_ARGS)

test-online-long: setup online-deps
	$(VENV)/bin/pytest -q -n $(JOBS) --long tests/test_online_*.py $(PYTEST_ARGS)

# How many games at once one Mosquitto holds here (docs/ONLINE.md "Scale"): ~2-5 minutes
# of load on both cores; BENCH_ARGS="--steps 10,100 --window 5" for a short look.
.PHONY: bench-online
bench-online: setup online-deps
	$(PY) -m host_tools.benches.online_scale $(BENCH_ARGS)
