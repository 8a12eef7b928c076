"""Fake firmware and board helpers for the update tests (test_deploy.py,
test_update_*.py, test_boot_*.py): the real boot.py and main.py, a small fake
`mancala` package whose app behaves as asked, on an emulated board
(host_tools/link/bridge.py)."""

import os

from host_tools.link import bridge, deploy_plan, slots
from host_tools.link.deploy_emulated import BEHAVIOURS, make_app  # noqa: F401  (the fake firmware)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PLAYER_DATA = {
    "data/settings.json": b'{"rules": "kalah", "level": 3, "sum": "9f2c"}',
    "data/game.json": b'{"record": "kalah 4: 3 10 2", "sum": "77aa"}',
    "data/games/g00001.txt": b"[Rules kalah]\n1. 3 10 2\n*\n",
    # the Wi-Fi settings `mancala wifi` writes: no update may overwrite or delete them
    "data/online.json": b'{"ssid":"net","password":"pw-long-enough","broker":"h:1883",'
                        b'"user":"","broker_password":"","tls":false}',
}

def built_version(src, mpy=774):
    return deploy_plan.build(src, mpy)[0]


def new_board(tmp_path, name="board", **kw):
    d = tmp_path / name
    d.mkdir()
    for rel, data in PLAYER_DATA.items():
        p = d / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    return bridge.Bridge(str(d), **kw).start()


def board_fixture(tmp_path):
    """The `board` fixture of the update tests: an emulated board with player data."""
    b = new_board(tmp_path)
    yield b
    if b.proc is not None:
        b.stop()


def read_board_files(port, paths):
    """Read files back through the board's REPL (not from the host folder)."""
    from host_tools.link.board_transport import serial_transport

    t = serial_transport(port, timeout=10)
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
    o = slots.start_board(board.port, timeout)
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
