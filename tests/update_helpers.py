"""Fake firmware and board helpers for the update tests (test_deploy.py,
test_update_*.py, test_boot_*.py): the real boot.py and main.py, a small fake
`mancala` package whose app behaves as asked, on an emulated board
(host_tools/bridge.py)."""

import hashlib
import os

from host_tools import bridge, deploy

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PLAYER_DATA = {
    "data/settings.json": b'{"rules": "kalah", "level": 3, "sum": "9f2c"}',
    "data/game.json": b'{"record": "kalah 4: 3 10 2", "sum": "77aa"}',
    "data/games/g00001.txt": b"[Rules kalah]\n1. 3 10 2\n*\n",
}

# The app's loop, like App.run: a few healthy turns, then confirm_boot() (set
# by main.py), then it keeps running (sleeping: where a Ctrl-C reaches it).
HEALTHY = (
    "    for _ in range(5):\n"
    "        time.sleep_ms(10)\n"
    "    confirm_boot()\n"
    "    while True:\n"
    "        time.sleep_ms(50)\n")

BEHAVIOURS = {
    "healthy": HEALTHY,
    # a hang in a Python loop that never sleeps (on a chip: or one in C)
    "hangs": "    while True:\n        pass\n",
    # every loop turn raises; the loop swallows it and goes on (never healthy)
    "raises_every_turn": (
        "    while True:\n"
        "        try:\n"
        "            raise ValueError('turn failed')\n"
        "        except ValueError:\n"
        "            pass\n"
        "        time.sleep_ms(20)\n"),
    # the error board: a loop that runs fine but is not the game
    "error_board": "    while True:\n        time.sleep_ms(50)\n",
    "returns_after_trial": "    for _ in range(5):\n        time.sleep_ms(10)\n    confirm_boot()\n    return\n",
    "raises_after_trial": (
        "    for _ in range(5):\n        time.sleep_ms(10)\n    confirm_boot()\n"
        "    raise RuntimeError('late failure')\n"),
    "raises_at_start": "    raise RuntimeError('no pixels')\n",
}


def make_app(root, version, util="hello", app_extra="", big=0, behaviour="healthy", top=""):
    """A firmware folder: real boot.py/main.py, a fake `mancala` package whose
    app prints `app <version> <util>` when it starts, then behaves."""
    src = os.path.join(str(root), "fw-" + version + "-" + behaviour)
    pkg = os.path.join(src, "mancala")
    os.makedirs(pkg, exist_ok=True)
    for name in ("boot.py", "main.py"):
        with open(os.path.join(ROOT, "firmware", name), "rb") as f, open(os.path.join(src, name), "wb") as g:
            g.write(f.read())
    files = {
        "__init__.py": "__version__ = %r\n" % version,
        "util.py": "def word():\n    return %r\n" % util,
        "app.py": ("import time\n%s\nfrom mancala import util\nconfirm_boot = None\n%s\n"
                   "def main(fault=None):\n"
                   "    if fault:\n"
                   "        print('app safe state:', fault)\n"
                   "        while True:\n"
                   "            time.sleep_ms(50)\n"
                   "    print('app %s', util.word())\n"
                   "    with open('/app_ran.tmp', 'w') as f:\n"
                   "        f.write('app %s ' + util.word())\n"
                   "    import os\n"
                   "    os.rename('/app_ran.tmp', '/app_ran.txt')\n%s"
                   % (top, app_extra, version, version, BEHAVIOURS[behaviour])),
    }
    for i in range(big):
        # Big modules (mostly a string constant) so a transfer takes a while.
        files["data%d.py" % i] = "BLOB = %r\n" % (hashlib.sha256(b"%d%s" % (i, version.encode())).hexdigest() * 120)
    for name, text in files.items():
        with open(os.path.join(pkg, name), "w") as f:
            f.write(text)
    return src


def built_version(src, mpy=774):
    return deploy.build(src, mpy)[0]


def new_board(tmp_path, name="board", **kw):
    d = tmp_path / name
    d.mkdir()
    for rel, data in PLAYER_DATA.items():
        p = d / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    return bridge.Bridge(str(d), **kw).start()


def read_board_files(port, paths):
    """Read files back through the board's REPL (not from the host folder)."""
    from mpremote.transport_serial import SerialTransport

    t = SerialTransport(port, timeout=10)
    try:
        t.enter_raw_repl(soft_reset=False)
        out = {}
        for p in paths:
            try:
                out[p] = bytes(t.fs_readfile("/" + p))
            except OSError:
                out[p] = None
        t.exit_raw_repl()
        return out
    finally:
        t.close()


def assert_player_data_intact(port):
    assert read_board_files(port, list(PLAYER_DATA)) == PLAYER_DATA


def start_board(board, timeout=30):
    """Reset the board for real and return (version, slot) it runs, and what
    it printed after the reset (its first lines may be lost, as on a board:
    the port is not open yet) followed by what the last app start wrote in
    /app_ran.txt (`app VERSION WORD`)."""
    o = deploy.start_board(board.port, timeout)
    try:
        with open(os.path.join(board.board_dir, "app_ran.txt")) as f:
            ran = f.read()
    except OSError:
        ran = ""
    return o["running"], o["output"].decode("utf-8", "replace") + "\n" + ran


def state_of(board):
    import json

    with open(os.path.join(board.board_dir, "slots", "state.json")) as f:
        return json.load(f)


def quiet():
    return open(os.devnull, "w")
