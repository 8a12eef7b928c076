# The board in a browser and game reports (issue 16, docs/WEB.md).
#   make play-web [WEB_PORT=8765]   serve the page on 127.0.0.1 (prints the address)
#   make web-deps                   headless Chromium + driver for the browser tests (apt, as root)
#   make web-measure                the page's load time and click-to-light in headless Chromium
#   make web-shots                  the screenshots in docs/img/
#   make test-web                   only the browser and report tests
WEB_PORT ?= 8765

.PHONY: play-web web-build web-deps web-measure web-shots test-web

play-web: setup
	$(PY) -m host_tools.simulators.web_serve --port $(WEB_PORT)

web-build: setup
	$(PY) -m host_tools.simulators.web_serve --build-only

# Debian's chromium and chromium-driver (a matched pair) for the browser tests, and the
# cairo library CairoSVG draws the report's PNG with.  Installed when missing and root;
# elsewhere the browser tests are skipped with the reason (under CI they fail instead).
web-deps:
	@missing=""; \
	command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || missing="$$missing chromium"; \
	command -v chromedriver >/dev/null 2>&1 || missing="$$missing chromium-driver"; \
	{ /sbin/ldconfig -p 2>/dev/null || ldconfig -p 2>/dev/null; } | grep -q 'libcairo\.so\.2' || missing="$$missing libcairo2"; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "installing for the browser tests and reports:$$missing fonts-dejavu-core (apt-get)"; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    --no-install-recommends $$missing fonts-dejavu-core >/dev/null; } \
	  || echo "warning: apt-get could not install$$missing: the browser tests will say so"; \
	else \
	  echo "warning: missing$$missing and not root: the browser tests will be skipped" \
	       "(apt-get install chromium chromium-driver libcairo2)"; \
	fi

# `make test` runs the browser tests: the browser comes first
test: web-deps

web-measure: setup web-deps
	$(PY) -m host_tools.benches.web_measure

web-shots: setup web-deps
	$(PY) -m host_tools.benches.web_measure --loads 1 --clicks 3 --shots docs/img

test-web: setup web-deps
	$(VENV)/bin/pytest -q -n $(JOBS) tests/test_web_board.py tests/test_web_glue.py tests/test_report.py
