# The board in a browser and game reports (issue 16, docs/WEB.md).
#   make play-web [WEB_PORT=8765]   serve the page on 127.0.0.1 (prints the address)
#   make web-dist                   the page as static files in build/web-dist/ (any static host)
#   make web-deps [WEB_DEPS=no]     headless Chromium + driver for the browser tests (apt, as root)
#   make web-measure                the page's load time and click-to-light in headless Chromium
#   make web-shots                  the screenshots in docs/img/
#   make test-web                   only the browser and report tests (the page online too)
WEB_PORT ?= 8765
# `make test WEB_DEPS=no`: install no system packages (the browser tests are then skipped)
WEB_DEPS ?= yes

.PHONY: play-web web-build web-dist web-deps web-measure web-shots test-web

# The page needs the play packages (setup-play) and the npm VM ($(MPVM)), not the
# developers' tools (make setup: OpenSpiel, mypy, pytest...).  The server itself uses
# only the standard library (tests/test_web_setup.py).
play-web: setup-play $(MPVM)
	$(PY) -m host_tools.simulators.web_serve --port $(WEB_PORT)

web-build: setup-play $(MPVM)
	$(PY) -m host_tools.simulators.web_serve --build-only

# The page as a static site (index.html, the js, the VM, the firmware's bundle): no
# server-side code, any static host serves it (tests/test_web_online.py serves it with
# `python -m http.server`).
web-dist: setup-play $(MPVM)
	$(PY) -m host_tools.simulators.web_serve --dist

# System packages for the browser tests and reports: Debian's chromium and
# chromium-driver (a matched pair), the cairo library CairoSVG draws the report's PNG
# with, and a font.  Only what is missing; only as root with apt-get, and said before
# (`make test` runs this first).  Elsewhere, or with WEB_DEPS=no, one line says why
# nothing was installed and how to get them; the browser tests are then skipped with
# one line (under CI they fail instead).  CHROMIUM= / CHROMEDRIVER= name a browser
# and driver of your own (host_tools/simulators/web_browser.py).
web-deps:
	@missing=""; \
	[ -n "$$CHROMIUM" ] || command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || missing="$$missing chromium"; \
	[ -n "$$CHROMEDRIVER" ] || command -v chromedriver >/dev/null 2>&1 || missing="$$missing chromium-driver"; \
	{ /sbin/ldconfig -p 2>/dev/null || ldconfig -p 2>/dev/null; } | grep -q 'libcairo\.so\.2' || missing="$$missing libcairo2"; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	pkgs="$$missing fonts-dejavu-core"; \
	skip="the browser tests will be skipped"; \
	if [ "$(WEB_DEPS)" = no ]; then \
	  echo "web-deps: WEB_DEPS=no: no system packages installed (missing:$$missing), $$skip; to get them, as root: make web-deps (apt-get install$$pkgs)"; \
	elif [ "$$(id -u)" != 0 ]; then \
	  echo "web-deps: not root: no system packages installed (missing:$$missing), $$skip; to get them, as root: make web-deps (apt-get install$$pkgs)"; \
	elif ! command -v apt-get >/dev/null 2>&1; then \
	  echo "web-deps: no apt-get here: no system packages installed (missing:$$missing), $$skip; to get them, install Chromium, its chromedriver and cairo with this system's packages (or name them: CHROMIUM=/path/to/chromium CHROMEDRIVER=/path/to/chromedriver)"; \
	else \
	  echo "web-deps: installing system packages for the browser tests and reports, as root with apt-get: apt-get update, then apt-get install$$pkgs (to install none: make test WEB_DEPS=no)"; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    --no-install-recommends $$pkgs >/dev/null; } \
	  || echo "warning: apt-get could not install$$pkgs: the browser tests will say why"; \
	fi

web-measure: setup web-deps
	$(PY) -m host_tools.benches.web_measure

web-shots: setup web-deps
	$(PY) -m host_tools.benches.web_measure --loads 1 --clicks 3 --shots docs/img

test-web: setup web-deps online-deps
	$(VENV)/bin/pytest -q -n $(JOBS) tests/test_web_board.py tests/test_web_glue.py tests/test_web_online.py tests/test_report.py
