"""Boards with Wi-Fi as a person uses them, online: the firmware's whole App in unix-port
processes (the tests' side of host_tools/online/appboard.py).

  lib = AppLib()                                   # the firmware and the fakes, once
  a = AppBoard(lib, folder_a, broker_port, seed=1, variant="kalah3")
  a.tap(13)                                        # (its menu, its online lobby ...)
  counts = a.leds()["leds"]

Each board's flash is a folder (`folder/data/...`): online.json is written there as
`mancala wifi` writes it, settings.json as the board saves it.  A power cut is `kill()`
and a new AppBoard on the same folder.  Every wait is bounded (BoardTimeout).
"""

import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading

from host_tools.online.boards import BoardProcess, BoardTimeout
from host_tools.runners import mpunix

HERE = os.path.dirname(os.path.abspath(__file__))
FAKES = os.path.join(os.path.dirname(HERE), "fakes")

__all__ = ["AppBoard", "AppLib", "BoardTimeout", "write_flash"]


class AppLib:
    """The firmware (as .py: the unix port compiles it at import in ~0.1 s) and the fakes
    under one folder, shared by the board processes."""

    def __init__(self, heap="8M"):
        self.root = tempfile.mkdtemp(prefix="appboards-")
        self.lib = mpunix.lay_out(self.root, mounts=[(FAKES, "/fakes")])
        shutil.copy(os.path.join(HERE, "appboard.py"), os.path.join(self.root, "appboard.py"))
        self.heap = heap

    def close(self):
        shutil.rmtree(self.root, ignore_errors=True)


def write_flash(folder, online_json, settings=None):
    """The board's /data as a person leaves it before playing online: online.json's
    bytes (as `mancala wifi` writes them: the caller's, host_tools/command/wifi.py
    settings_json), and the menu's settings."""
    from mancala.hw.storage import encode

    data = os.path.join(folder, "data")
    os.makedirs(data, exist_ok=True)
    with open(os.path.join(data, "online.json"), "wb") as f:
        f.write(online_json)
    if settings is not None:
        with open(os.path.join(data, "settings.json"), "w") as f:
            f.write(encode(settings))


class AppBoard(BoardProcess):
    def __init__(self, lib, folder, seed=1, save_ms=60, heap=None, debug=False):
        self.cfg = {"role": os.path.basename(folder), "data": folder, "seed": seed,
                    "save_ms": save_ms, "debug": debug}
        self.lines = []
        self.logs = []
        self._q = queue.Queue()
        env = dict(os.environ, MICROPYPATH=lib.lib + ":" + os.path.join(lib.root, "fakes"))
        self.proc = subprocess.Popen(
            [mpunix.executable(), "-X", "heapsize=" + str(heap or lib.heap), "appboard.py",
             json.dumps(self.cfg)],
            cwd=lib.root, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, bufsize=1)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.started = self.wait_for("started", timeout=20)

    def next(self, timeout):
        msg = BoardProcess.next(self, timeout)
        if msg and "log" in msg:
            self.logs.append(msg["log"])
        return msg

    def ask(self, cmd, key, timeout=20.0):
        self.send(cmd)
        return self.wait_for(key, timeout=timeout)

    def leds(self):
        return self.ask("leds", "leds")

    def tap(self, pit):
        return self.ask("tap %d" % pit, "tapped")

    def hold(self, pits, ms):
        return self.ask("hold %s %d" % (",".join(str(p) for p in pits), ms), "held")

    def run(self, ms):
        return self.ask("run %d" % ms, "ran")

    def until_stage(self, stages, limit_ms=20000, step_ms=100):
        """Let the board run until its mode or online stage is one of `stages`."""
        t = 0
        while True:
            st = self.run(step_ms)["stage"]
            if st in stages:
                return st
            t += step_ms
            if t > limit_ms:
                raise BoardTimeout("board %s: still %r after %d ms of its clock, not %s; "
                                   "its last lines %s" % (self.cfg["role"], st, limit_ms,
                                                          stages, self.logs[-6:]))

    def log_has(self, text):
        return [x for x in self.logs if text in x]

    def quit(self):
        self.send("quit")
        self.wait(timeout=10)
