"""Boards playing online as processes of the MicroPython unix port (the tests' and the
benches' side of host_tools/online/mpboard.py).

  lib = BoardLib()                      # the firmware laid out once, as on a board
  a = BoardProcess(lib, data_dir, role="a", port=broker.port)
  code = a.wait_for("ev", lambda m: m["ev"] == "code")["text"]
  b = BoardProcess(lib, other_dir, role="b", code=code, port=broker.port)
  a.wait_for("done"); b.wait_for("done")

A power cut is `kill()` (SIGKILL: no goodbye, the broker sees the socket die) and a new
BoardProcess on the same data folder.  Every wait is bounded (BoardTimeout).
"""

import hashlib
import json
import os
import queue
import shutil
import signal
import subprocess
import tempfile
import threading
import time

from host_tools.runners import mpunix

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "mpboard.py")
# compiled modules kept by their source's hash (and mpy-cross's): a test session, or
# the next one, compiles a module again only once it has changed
MPY_CACHE = os.path.join(os.path.dirname(os.path.dirname(HERE)), "build", "online-mpy")


# The modules a board process imports (mpboard.py), compiled when BoardLib(mpy=True)
ONLINE_MODULES = ("__init__.py", "compat.py", "rules.py", "game.py", "record.py", "hw/__init__.py",
                  "hw/clock.py", "hw/storage.py", "online/__init__.py", "online/protocol.py",
                  "online/mqtt.py", "online/link.py", "online/session.py")


class BoardTimeout(AssertionError):
    pass


class BoardLib:
    """The firmware at ROOT/lib/mancala (as .py), shared by the board processes."""

    def __init__(self, heap="1M", mpy=False):
        """mpy: the firmware compiled with mpy-cross, as deploy sends it (a heap cap of
        a board's size: source compiled at import would take the heap the board keeps)."""
        self.root = tempfile.mkdtemp(prefix="mpboards-")
        self.lib = mpunix.lay_out(self.root)
        if mpy:  # only what a board playing online imports (the whole tree takes seconds)
            for rel in ONLINE_MODULES:
                compile_cached(os.path.join(self.lib, "mancala", rel), "mancala/" + rel)
        shutil.copy(SCRIPT, os.path.join(self.root, "mpboard.py"))
        self.heap = heap

    def close(self):
        shutil.rmtree(self.root, ignore_errors=True)


def compile_cached(path, name, cache=MPY_CACHE):
    """Replace the source `path` by its .mpy (as mpy-cross makes it, the source named
    `name` in it), taken from `cache` when a module of the same text was compiled before."""
    from host_tools.runners.mpycompile import mpy_cross_exe

    exe = mpy_cross_exe()
    with open(path, "rb") as f:
        src = f.read()
    try:
        stamp = str(os.stat(shutil.which(exe) or exe).st_mtime_ns)
    except OSError:
        stamp = ""
    digest = hashlib.sha256(b"\0".join((exe.encode(), stamp.encode(), name.encode(), src))).hexdigest()[:32]
    cached = os.path.join(cache, digest + ".mpy")
    if not os.path.exists(cached):
        os.makedirs(cache, exist_ok=True)
        tmp = "%s.%d.tmp" % (cached, os.getpid())
        proc = subprocess.run([exe, "-s", name, "-o", tmp, path], capture_output=True, text=True)
        if proc.returncode != 0:
            raise mpunix.MicroPythonError("mpy-cross failed on %s: %s" % (name, proc.stderr))
        os.replace(tmp, cached)  # (atomic: test workers may compile the same module at once)
    shutil.copy(cached, path[:-3] + ".mpy")
    os.remove(path)


class BoardProcess:
    def __init__(self, lib, data, role, port, code=None, heap=None, **cfg):
        os.makedirs(data, exist_ok=True)
        cfg.update(role=role, port=port, data=data)
        if code is not None:
            cfg["code"] = code
        self.cfg = cfg
        self.lines = []
        self._q = queue.Queue()
        env = dict(os.environ, MICROPYPATH=lib.lib + ":.frozen")
        self.proc = subprocess.Popen(
            [mpunix.executable(), "-X", "heapsize=" + str(heap or lib.heap), "mpboard.py", json.dumps(cfg)],
            cwd=lib.root, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, bufsize=1)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        for line in self.proc.stdout:
            try:
                msg = json.loads(line)
            except ValueError:
                msg = {"raw": line.rstrip()}
            self._q.put(msg)
        self._q.put(None)

    def next(self, timeout):
        try:
            msg = self._q.get(timeout=timeout)
        except queue.Empty:
            return False
        if msg is not None:
            self.lines.append(msg)
        return msg

    def wait_for(self, key, pred=None, timeout=20.0):
        """The first line (from now) holding `key` (and matching pred)."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise BoardTimeout("no %r from board %s in %.0f s; last lines: %s%s" % (
                    key, self.cfg["role"], timeout, self.lines[-8:], self._stderr()))
            msg = self.next(left)
            if msg is None:
                raise BoardTimeout("board %s ended before %r: %s%s" % (
                    self.cfg["role"], key, self.lines[-8:], self._stderr()))
            if msg and key in msg and (pred is None or pred(msg)):
                return msg

    def _stderr(self):
        if self.proc.poll() is None:
            return ""
        return "; stderr: " + (self.proc.stderr.read() or "")[-1500:]

    def send(self, cmd):
        try:
            self.proc.stdin.write(cmd + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass

    def kill(self):
        """A power cut: the process ends at once, mid-whatever."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=5)
        self._close_pipes()

    def wait(self, timeout=10):
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise BoardTimeout("board %s did not end in %d s" % (self.cfg["role"], timeout)) from None
        self._reader.join(timeout=2)
        self._close_pipes()

    def _close_pipes(self):
        for f in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            try:
                f.close()
            except Exception:  # (a pipe the reader thread still holds)
                pass


class Match:
    """Two board processes playing one game through a broker port (each its own port:
    a proxy for one, the broker for the other...).  `run(hook)` drives it to the end:
    hook(match, side, line) sees every line as it comes and may cut the power
    (`power_cut`), drop the Wi-Fi (`send`), restart the broker..."""

    def __init__(self, lib, folder, port, port_b=None, seeds=(1, 2), heap=None, **cfg):
        self.lib = lib
        self.folder = folder
        self.ports = {"a": port, "b": port_b or port}
        self.seeds = {"a": seeds[0], "b": seeds[1]}
        self.heap = heap
        self.cfg = cfg
        self.boards = {}
        self.code = None
        self.done = {}
        self.cuts = 0
        self.starts = {"a": 0, "b": 0}
        self.past = {"a": [], "b": []}  # the lines of each side's processes before a power cut

    def _start(self, side):
        self.starts[side] += 1
        self.boards[side] = BoardProcess(self.lib, os.path.join(self.folder, side), side, self.ports[side],
                                         code=self.code, seed=self.seeds[side], heap=self.heap, **self.cfg)

    def start(self, timeout=15):
        self._start("a")
        self.code = self.boards["a"].wait_for("ev", lambda m: m["ev"] == "code", timeout=timeout)["text"]
        self._start("b")
        return self

    def power_cut(self, side):
        """Kill side's process and start it again from its saved folder."""
        self.boards[side].kill()
        self.past[side] += self.boards[side].lines
        self.cuts += 1
        self._start(side)

    def send(self, side, cmd):
        self.boards[side].send(cmd)

    def run(self, hook=None, timeout=60):
        end = time.monotonic() + timeout
        while len(self.done) < 2:
            if time.monotonic() > end:
                raise BoardTimeout("the game did not end in %d s: a %s / b %s" % (
                    timeout, self.boards["a"].lines[-6:], self.boards["b"].lines[-6:]))
            idle = True
            for side in ("a", "b"):
                if side in self.done:
                    continue
                board = self.boards[side]
                msg = board.next(0.005)
                if msg is None:
                    raise BoardTimeout("board %s ended before the end: %s%s" % (
                        side, board.lines[-8:], board._stderr()))
                if not msg:
                    continue
                idle = False
                if "failed" in msg:
                    raise BoardTimeout("board %s: %s" % (side, msg["failed"]))
                if "done" in msg:
                    self.done[side] = msg
                elif hook is not None:
                    hook(self, side, msg)
            if idle:
                time.sleep(0.001)
        for side in ("a", "b"):
            self.boards[side].wait()
        return self.done

    def close(self):
        for b in self.boards.values():
            if b.proc.poll() is None:
                b.kill()

    def lines(self, side):
        return self.boards[side].lines

    def resumed_at(self, side):
        """The first ply a board of `side` resumed at after a power cut (from there it
        chooses with seed + 100: mpboard.py), or None."""
        plies = [x["resumed"] for x in self.past[side] + self.boards[side].lines if "resumed" in x]
        return min(plies) if plies else None
