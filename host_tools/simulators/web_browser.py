"""Headless Chromium (Debian's package) driven by Selenium, for the page's tests,
screenshots and measurements.

    browser = open_browser()        # or raises BrowserMissing with the reason
    browser.get(url) ... browser.quit()

Debian's `chromium` and `chromium-driver` come as a matched pair (mk/web.mk installs
them); Selenium is pointed at both, so it never looks for or downloads a browser.
"""

import os
import shutil
import tempfile

CHROMIUM_NAMES = ("chromium", "chromium-browser")
DRIVER_NAMES = ("chromedriver",)
# Chromium as root in a container: no sandbox, no GPU, nothing phoning home.
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--no-first-run", "--no-default-browser-check", "--disable-extensions",
         "--disable-background-timer-throttling", "--disable-renderer-backgrounding")


class BrowserMissing(RuntimeError):
    """No headless browser here; the message says what is missing and how to install it."""


def _which(names, extra=()):
    for n in names:
        p = shutil.which(n)
        if p:
            return p
    for p in extra:
        if os.path.exists(p):
            return p
    return None


def find():
    """(chromium path, chromedriver path); BrowserMissing says what is missing."""
    chromium = os.environ.get("CHROMIUM") or _which(CHROMIUM_NAMES, ("/usr/bin/chromium",))
    driver = os.environ.get("CHROMEDRIVER") or _which(
        DRIVER_NAMES, ("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"))
    missing = [name for name, path in (("chromium", chromium), ("chromium-driver", driver))
               if not path]
    if missing:
        raise BrowserMissing("headless Chromium is not installed (%s): `make web-deps` installs "
                             "it (apt-get install chromium chromium-driver, as root)"
                             % ", ".join(missing))
    try:
        import selenium  # noqa: F401
    except ImportError:
        raise BrowserMissing("the Selenium driver is not installed: `make setup` "
                             "(pip install -e '.[dev]')") from None
    return chromium, driver


class Browser:
    """A Selenium Chrome session on a fresh profile folder, removed by quit()."""

    def __init__(self, width=1100, height=900):
        chromium, driver = find()
        os.environ.setdefault("SE_OFFLINE", "true")  # Selenium Manager: never download
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        self.profile_dir = tempfile.mkdtemp(prefix="mancala-chromium-")
        opts = webdriver.ChromeOptions()
        opts.binary_location = chromium
        for f in FLAGS:
            opts.add_argument(f)
        opts.add_argument("--user-data-dir=" + self.profile_dir)
        opts.add_argument("--window-size=%d,%d" % (width, height))
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        try:
            self.driver = webdriver.Chrome(options=opts, service=Service(executable_path=driver))
        except Exception as e:  # noqa: BLE001 - a browser that will not start is "missing" here
            shutil.rmtree(self.profile_dir, ignore_errors=True)
            raise BrowserMissing("headless Chromium did not start: %s" % str(e).splitlines()[0]) \
                from None
        self.driver.set_script_timeout(60)

    def __getattr__(self, name):  # the driver's own API (get, execute_script, ...)
        return getattr(self.driver, name)

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def console(self):
        """Browser console lines since the last call (errors of the page, failed loads)."""
        try:
            return [e.get("message", "") for e in self.driver.get_log("browser")]
        except Exception:  # noqa: BLE001 - not every driver keeps the log
            return []

    def quit(self):
        try:
            self.driver.quit()
        finally:
            shutil.rmtree(self.profile_dir, ignore_errors=True)


def open_browser(width=1100, height=900):
    return Browser(width, height)
