"""Issue 43 item 16: the page's server (host_tools/simulators/web_serve.py) times idle
connections out, holds a bounded number of them at once, and lists no folder.
Everything on 127.0.0.1, with a short idle time set for the test."""

import os
import socket
import threading
import time
import urllib.error
import urllib.request

import pytest

from host_tools.simulators import web_serve

IDLE = 0.5  # s: the test's idle time (the server's own is web_serve.IDLE_TIMEOUT)


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "index.html").write_text("<!doctype html><title>page</title>")
    (tmp_path / "vm").mkdir()
    (tmp_path / "vm" / "micropython.mjs").write_text("// the VM")
    (tmp_path / "vm" / "secret-name.wasm").write_bytes(b"\0asm")
    return tmp_path


def serve(folder, **kw):
    srv = web_serve.make_server(str(folder), 0, **kw)
    t = threading.Thread(target=srv.serve_forever, args=(0.05,), daemon=True)
    t.start()
    return srv, srv.server_address[1]


def stop(srv):
    srv.shutdown()
    srv.server_close()


def get(port, path, timeout=10):
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, path), timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def serving_threads():
    """The server's connection threads now (socketserver names them by their target)."""
    return sum("process_request_thread" in t.name for t in threading.enumerate())


def closed_by_server(sock, deadline):
    """True once the server closed `sock` (recv sees the end), False at `deadline`."""
    sock.settimeout(max(0.01, deadline - time.monotonic()))
    try:
        while True:
            if not sock.recv(4096):
                return True
    except socket.timeout:
        return False
    except OSError:  # reset: closed too
        return True


def test_the_server_has_an_idle_timeout_and_a_connection_bound():
    assert 0 < web_serve.IDLE_TIMEOUT <= 60
    assert 1 <= web_serve.MAX_CONNECTIONS <= 256
    # as docs/WEB.md says
    with open(os.path.join(web_serve.ROOT, "docs", "WEB.md"), encoding="utf-8") as f:
        doc = " ".join(f.read().split())
    assert "idle or half-sent for %g s (`IDLE_TIMEOUT`)" % web_serve.IDLE_TIMEOUT in doc
    assert "at most %d connections at once (`MAX_CONNECTIONS`" % web_serve.MAX_CONNECTIONS in doc


def test_idle_half_sent_connections_are_timed_out(folder):
    """50 connections that send half a request and wait: each is closed by the server
    after the idle time, while no more than the bound are held by threads at once."""
    bound = 10
    srv, port = serve(folder, idle_timeout=IDLE, max_connections=bound)
    socks = []
    try:
        for _ in range(50):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # no blank line
            socks.append(s)
        peak = 0
        # 50 / 10 held at a time, each for IDLE: about 2.5 s; 15 s is the test's limit
        deadline = time.monotonic() + 15
        left = list(socks)
        while left and time.monotonic() < deadline:
            peak = max(peak, serving_threads())
            left = [s for s in left if not closed_by_server(s, time.monotonic() + 0.005)]
        assert not left, "%d of 50 idle connections still open after 15 s" % len(left)
        assert 0 < peak <= bound, "the server held %d connections at once" % peak
        # and the page is served as before
        status, body = get(port, "/")
        assert status == 200 and b"<title>page</title>" in body
    finally:
        for s in socks:
            s.close()
        stop(srv)


def test_one_idle_connection_does_not_hold_the_page_back(folder):
    srv, port = serve(folder, idle_timeout=IDLE)
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        s.sendall(b"GET / HT")
        t0 = time.monotonic()
        assert get(port, "/vm/micropython.mjs")[0] == 200
        assert time.monotonic() - t0 < IDLE  # served beside it, not after it
        assert closed_by_server(s, time.monotonic() + 10 * IDLE)
    finally:
        s.close()
        stop(srv)


@pytest.mark.parametrize("path", ["/vm/", "/vm", "/vm/?x=1", "/./vm/", "/vm//"])
def test_no_folder_is_listed(folder, path):
    srv, port = serve(folder, idle_timeout=IDLE)
    try:
        status, body = get(port, path)
        assert status == 404, (path, status)
        assert b"secret-name" not in body and b"micropython.mjs" not in body
        # the files themselves are served
        assert get(port, "/vm/micropython.mjs") == (200, b"// the VM")
        assert get(port, "/")[0] == 200  # a folder with index.html: the page
    finally:
        stop(srv)


def test_a_folder_without_index_is_not_listed_at_the_top_either(tmp_path):
    (tmp_path / "a.txt").write_text("a")
    srv, port = serve(tmp_path, idle_timeout=IDLE)
    try:
        status, body = get(port, "/")
        assert status == 404 and b"a.txt" not in body
    finally:
        stop(srv)
