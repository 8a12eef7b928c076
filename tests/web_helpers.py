"""Shared by the browser tests: the page served from a fresh build, a headless
Chromium, and reading back what the page drew.

Where Chromium cannot be had the tests are skipped with the reason and how to get
it, in one line for all of them (one place raises every such skip, so pytest folds them;
a module of browser tests only is skipped whole at collection); under CI (CI set) that
is a failure instead: there the Makefile has installed it.
"""

import os
import time

import pytest

from host_tools.runners import mpvm
from host_tools.simulators import web_serve
from host_tools.simulators.web_browser import BrowserMissing, find, open_browser
from mancala.hw.pixels_read import decode


def _skip(e):
    # the one line of every browser test skipped (the same line of code: pytest folds them)
    pytest.skip("browser tests skipped: %s" % e, allow_module_level=True)


def browser_or_skip(width=1100, height=900):
    try:
        return open_browser(width, height)
    except BrowserMissing as e:
        if os.environ.get("CI"):
            pytest.fail("CI must run the browser tests: %s" % e)
        _skip(e)


def skip_module_without_browser():
    """At the top of a module of browser tests only: skip it whole where no Chromium is
    installed (not under CI: there each test fails with the reason)."""
    if os.environ.get("CI"):
        return
    try:
        find()
    except BrowserMissing as e:
        _skip(e)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """(url, browser) for a freshly built page."""
    if not mpvm.available():
        pytest.skip("MicroPython VM not installed: run `make setup` (npm ci)")
    out = web_serve.build(str(tmp_path_factory.mktemp("web")))
    srv, url = web_serve.serve_in_thread(out)
    browser = browser_or_skip()
    try:
        yield url, browser
    finally:
        browser.quit()
        srv.shutdown()
        srv.server_close()


def wait_for(fn, timeout=30.0, every=0.02, what="condition"):
    end = time.monotonic() + timeout
    while True:
        v = fn()
        if v:
            return v
        if time.monotonic() > end:
            raise AssertionError("timed out waiting for %s" % what)
        time.sleep(every)


def load(browser, url):
    """Open `url` and wait until the firmware drew its first frame."""
    browser.get(url)
    wait_for(lambda: browser.js("return !!(window.mancala && window.mancala.stats.loadMs)"),
             what="the first frame")
    return browser.js("return window.mancala.layout")


DRAWN_JS = """
const leds = [...document.querySelectorAll('#leds .led')];
const rgb = new Array(window.mancala.layout.led_count).fill('0,0,0');
for (const e of leds) rgb[Number(e.dataset.i)] = e.dataset.rgb;
return [document.getElementById('mode').dataset.mode, rgb.join(',')];
"""


def drawn(browser, layout):
    """(mode shown, counts, backgrounds) decoded from the LED colours the page drew."""
    mode, flat = browser.js(DRAWN_JS)
    buf = bytes(int(v) for v in flat.split(","))
    spans = [tuple(s) for s in layout["leds"]]
    counts, bgs = decode(buf, spans, (0, 1, 2, 3))  # the page keeps r,g,b per LED
    return mode, counts, bgs


def settle(browser):
    """Wait until every press and release reached the firmware and settled."""
    wait_for(lambda: browser.js("return window.mancala.wb.quiet()"), what="the pits to settle")


def click_pit(browser, pit):
    """A real mouse click (pointer down and up) on pit `pit`, then wait until it settled."""
    el = browser.find_element("css selector", '#hits [data-pit="%d"]' % pit)
    el.click()
    settle(browser)
