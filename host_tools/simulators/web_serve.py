"""The board in a browser: build the page into build/web/ and serve it on 127.0.0.1.

    make play-web                       (python -m host_tools.simulators.web_serve)
    python -m host_tools.simulators.web_serve --port 8765 [--build-only] [--out DIR]
    make web-dist                       (... --dist: the same files in build/web-dist/, a
                                        static site for any static host)

Everything the page loads is a local file: the page (host_tools/simulators/web/), the
official MicroPython WebAssembly VM (micropython.mjs + .wasm from node_modules,
the npm package the tests use) and one JSON bundle of the Python the VM runs:
the firmware's `mancala` package unchanged, the fake `machine`/`neopixel`
(host_tools/fakes/) and the page's glue (host_tools/simulators/web/webboard.py).  No CDN,
nothing fetched at view time: the folder works offline and can be copied anywhere
a static server runs.
"""

import argparse
import base64
import functools
import hashlib
import http.server
import json
import os
import shutil
import sys
import threading

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WEB_SRC = os.path.join(ROOT, "host_tools", "simulators", "web")
FIRMWARE_PKG = os.path.join(ROOT, "firmware", "mancala")
FAKES = os.path.join(ROOT, "host_tools", "fakes")
VM_DIR = os.path.join(ROOT, "node_modules", "@micropython", "micropython-webassembly-pyscript")
OUT = os.path.join(ROOT, "build", "web")
PAGE_FILES = ("index.html", "board.js", "online.js", "board.css")
# the page's Python beside the firmware: the board's glue, the online player and the
# `socket` its MQTT client opens (a browser WebSocket)
GLUE_MODULES = ("webboard.py", "webonline.py", "wssocket.py")
DIST = os.path.join(ROOT, "build", "web-dist")
FAKE_MODULES = ("machine.py", "neopixel.py", "board.py", "memfs.py")
BOOK_DIR = os.path.join(ROOT, "firmware", "tables")
FLASH_TABLES = "/lib/tables/"  # (webboard.FLASH_TABLES: where the VM finds them)
# A connection that sends nothing (or half a request) this long is closed, and no more
# than MAX_CONNECTIONS are served at once (the rest wait in the listen queue until one
# ends): a page loads over a handful, so idle or half-sent ones cannot pile up threads.
IDLE_TIMEOUT = 10.0
MAX_CONNECTIONS = 32


def python_bundle():
    """{VM path: source} for every Python file the page's VM imports, and the
    firmware's data files (the puzzles: mancala/data/*.txt)."""
    files = {}
    for folder, _dirs, names in sorted(os.walk(FIRMWARE_PKG)):
        if "__pycache__" in folder:
            continue
        for n in sorted(names):
            if n.endswith((".py", ".txt")):
                rel = os.path.relpath(os.path.join(folder, n), FIRMWARE_PKG).replace(os.sep, "/")
                with open(os.path.join(folder, n), encoding="utf-8") as f:
                    files["/lib/mancala/" + rel] = f.read()
    for n in FAKE_MODULES:
        with open(os.path.join(FAKES, n), encoding="utf-8") as f:
            files["/lib/" + n] = f.read()
    for n in GLUE_MODULES:
        with open(os.path.join(WEB_SRC, n), encoding="utf-8") as f:
            files["/lib/" + n] = f.read()
    # What `make deploy` puts on a board's /tables/ from the repository: the opening
    # books (binary, so base64; board.js writes them as bytes, webboard.py puts them
    # on the board's flash).  The endgame tables are built, not committed: the page
    # plays without them and says so, as a board that was not sent them.
    for n in sorted(os.listdir(BOOK_DIR)):
        if n.endswith(".book"):
            with open(os.path.join(BOOK_DIR, n), "rb") as f:
                files[FLASH_TABLES + n] = "base64:" + base64.b64encode(f.read()).decode()
    return files


def build(out=OUT):
    """Write the page into `out`; returns `out`.  Needs `make setup` (the npm VM)."""
    vm_mjs = os.path.join(VM_DIR, "micropython.mjs")
    if not os.path.exists(vm_mjs):
        raise SystemExit("error: the MicroPython VM is not installed: run `make setup` (npm ci)")
    os.makedirs(os.path.join(out, "vm"), exist_ok=True)
    os.makedirs(os.path.join(out, "py"), exist_ok=True)
    for n in ("micropython.mjs", "micropython.wasm"):
        shutil.copyfile(os.path.join(VM_DIR, n), os.path.join(out, "vm", n))
    bundle = python_bundle()
    text = json.dumps(bundle, sort_keys=True)
    version = hashlib.sha256(text.encode()).hexdigest()[:12]
    with open(os.path.join(out, "py", "bundle.json"), "w", encoding="utf-8") as f:
        f.write(text)
    for n in PAGE_FILES:
        with open(os.path.join(WEB_SRC, n), encoding="utf-8") as f:
            page = f.read()
        # the firmware's version busts the browser's cache of the bundle
        page = page.replace("@BUNDLE_VERSION@", version)
        with open(os.path.join(out, n), "w", encoding="utf-8") as f:
            f.write(page)
    return out


class _Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = dict(http.server.SimpleHTTPRequestHandler.extensions_map,
                          **{".mjs": "text/javascript", ".js": "text/javascript",
                             ".wasm": "application/wasm", ".json": "application/json"})
    timeout = IDLE_TIMEOUT  # each read and write of the socket (make_server sets it)

    def end_headers(self):
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def list_directory(self, path):
        """No folder is listed (a folder with index.html serves that page)."""
        self.send_error(404, "File not found")
        return None

    def log_message(self, fmt, *args):  # quiet: one line per request is noise here
        pass


class _Server(http.server.ThreadingHTTPServer):
    """A thread per connection, at most `max_connections` at once."""

    request_queue_size = 128  # connections past the bound wait here, not refused

    def __init__(self, address, handler, max_connections=MAX_CONNECTIONS):
        self._slots = threading.BoundedSemaphore(max_connections)
        super().__init__(address, handler)

    def process_request(self, request, client_address):
        # Blocks the accepting loop while every slot is busy: an idle connection gives its
        # slot back after the idle time, so the wait is bounded.
        self._slots.acquire()
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()


def make_server(directory, port=0, host="127.0.0.1", idle_timeout=IDLE_TIMEOUT,
                max_connections=MAX_CONNECTIONS):
    """An HTTP server for `directory` on host:port (0 = a free port); not started.
    A connection idle `idle_timeout` s is closed; at most `max_connections` at once."""
    handler = type("Handler", (_Handler,), {"timeout": idle_timeout})
    return _Server((host, port), functools.partial(handler, directory=directory),
                   max_connections)


def serve_in_thread(directory, port=0):
    """Start a server in a daemon thread; returns (server, url).  server.shutdown() stops it."""
    srv = make_server(directory, port)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    return srv, "http://127.0.0.1:%d/" % srv.server_address[1]


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m host_tools.simulators.web_serve", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1 (0 = any free one)")
    ap.add_argument("--out", default=OUT, help="where the page is built (default: build/web)")
    ap.add_argument("--build-only", action="store_true", help="build the page, do not serve it")
    ap.add_argument("--dist", action="store_true",
                    help="build the page as a static site into build/web-dist (or --out), for any "
                         "static host (make web-dist)")
    a = ap.parse_args(argv)
    if a.dist:
        out = build(DIST if a.out == OUT else a.out)
        print("built the page as static files in %s: copy the folder to any static web host (no "
              "server-side code); online play needs the broker's WebSocket listener, wss:// from an "
              "https page" % out)
        return 0
    out = build(a.out)
    if a.build_only:
        print("built the page in %s" % out)
        return 0
    try:
        srv = make_server(out, a.port)
    except OSError as e:
        # both spellings: this runs as `make play-web` (WEB_PORT=) and on its own (--port)
        print("mancala play-web: error: cannot listen on 127.0.0.1:%d (%s); another port: "
              "make play-web WEB_PORT=0, or --port 0 (0: any free one)" % (a.port, e.strerror),
              file=sys.stderr)
        return 1
    url = "http://127.0.0.1:%d/" % srv.server_address[1]
    print("The board in a browser: open %s   (one-LED build: %s?profile=pico_cheap)" % (url, url))
    print("serving %s; Ctrl-C stops" % out, flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        srv.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
