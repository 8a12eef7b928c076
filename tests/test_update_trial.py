"""Issue 10: trial boots as the rp2/esp32 ports really behave, on the emulated
board (host_tools/link/bridge.py: soft reset runs boot.py only from the raw REPL,
machine.reset() and the deadman drop the port, a hung app never answers).

Each broken update ends with the board on a working version, the player's
data intact, and `make deploy` saying what really happened."""

import json
import subprocess
import sys

import pytest
from update_helpers import (
    ROOT,
    assert_player_data_intact,
    board_fixture,
    built_version,
    make_app,
    quiet,
    start_board,
    state_of,
)

from host_tools.link import board_transport, bridge, deploy

pytestmark = pytest.mark.skipif(not bridge.available(), reason="MicroPython VM not installed (make setup)")

TRIAL = 3  # seconds: the deadman's window (short: quick tests; room for a loaded machine)


board = pytest.fixture(board_fixture, name="board")


def deploy_ok(board, src, **kw):
    with quiet() as out:
        return deploy.deploy(board.port, src, trial_seconds=TRIAL, out=out, **kw)


def deploy_fails(board, src, **kw):
    with quiet() as out, pytest.raises(board_transport.DeployError) as e:
        deploy.deploy(board.port, src, trial_seconds=TRIAL, out=out, **kw)
    return str(e.value), e.value.result


def mpremote(port, *args):
    p = subprocess.run([sys.executable, "-m", "mpremote", "connect", port] + list(args),
                       capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    return p.stdout


def write_state(port, text):
    from host_tools.link.board_transport import serial_transport

    t = serial_transport(port, timeout=10)
    try:
        t.enter_raw_repl(soft_reset=False)
        t.exec("f=open('/slots/state.json','w')\nf.write(%r)\nf.close()" % text)
        t.exit_raw_repl()
    finally:
        t.close()


def test_mpremote_sessions_during_a_trial_are_not_failed_starts(board, tmp_path):
    """Failure 1: every mpremote session soft-resets into the raw REPL, which
    runs boot.py; the old boot.py counted each as a failed start and fell back
    after three."""
    src1, src2 = make_app(tmp_path / "1", "1.0"), make_app(tmp_path / "2", "2.0")
    deploy_ok(board, src1)
    deploy_ok(board, src2)
    # just switched to 2.0 (slot b), on trial, as deploy leaves it before its reset
    write_state(board.port, json.dumps({"active": "b", "previous": "a", "trial": True, "boots": 0,
                                        "max_boots": 3, "trial_ms": 4000, "crashes": 0}))
    for args in (["exec", "print(1)"], ["fs", "ls", ":/"], ["exec", "import os"], ["fs", "cat", ":/data/game.json"],
                 ["exec", "print(2)"]):
        mpremote(board.port, *args)
    st = state_of(board)
    assert st["active"] == "b" and st["trial"] is True and st["boots"] == 0, st
    running, text = start_board(board)
    assert running == (built_version(src2), "b") and "app 2.0 hello" in text
    st = state_of(board)
    assert st["active"] == "b" and st["trial"] is False and "fell_back_from" not in st
    assert_player_data_intact(board.port)


def test_mpremote_interrupting_the_app_on_trial_takes_the_start_back(board, tmp_path):
    """A session that stops the app during its trial (Ctrl-C) is not a failure either."""
    src = make_app(tmp_path / "1", "1.0", behaviour="error_board")  # runs, never healthy
    msg, _r = deploy_fails(board, src, max_boots=1)
    assert "there is no earlier version to go back to" in msg  # (a first install)
    write_state(board.port, json.dumps({"active": "a", "previous": None, "trial": True, "boots": 0,
                                        "max_boots": 2, "trial_ms": 60000, "crashes": 0}))
    from host_tools.link.board_transport import Board
    from host_tools.link.slots import reset_and_watch

    b = Board(board.port)
    b.raw(soft_reset=False)
    o = reset_and_watch(b, timeout=1.5, quiet_seconds=1.0)  # start 1 of 2; then a Ctrl-C, a soft reset: start 1 again
    b.close(restart_app=False)
    assert o["state"]["boots"] == 0  # the interrupted start was taken back
    for _ in range(3):  # each interrupts the app, then soft-resets into the raw REPL (boot.py only)
        mpremote(board.port, "exec", "print(1)")
    st = state_of(board)
    assert st["active"] == "a" and st["trial"] is True and st["boots"] == 0, st
    assert_player_data_intact(board.port)


@pytest.mark.parametrize("behaviour,why", [
    ("hangs", "never proved healthy in time (reset by the deadman)"),
    ("raises_every_turn", "never proved healthy in time (reset by the deadman)"),
    ("error_board", "never proved healthy in time (reset by the deadman)"),
])
def test_broken_version_on_trial_falls_back(board, tmp_path, behaviour, why):
    """Failure 2: a hang in a loop, a loop whose every turn raises, the error
    board: the old main.py confirmed all of them (15 s soft timer, 50 turns).
    The hang neither sleeps nor prints: after a moment of that the board's clock
    runs on to the deadman (Bridge.hung_after), not 3 s of the wall clock a start."""
    board.hung_after = 0.3
    src1 = make_app(tmp_path / "1", "1.0")
    deploy_ok(board, src1)
    v1 = built_version(src1)
    src2 = make_app(tmp_path / "2", "2.0", behaviour=behaviour)
    msg, r = deploy_fails(board, src2, max_boots=2)
    assert msg == ("the new version %s failed (failed its trial 2 times: it %s); the board is back on %s (slot a) and running it"
                   % (built_version(src2), why, v1))
    assert r["resets"] >= 2
    st = state_of(board)
    assert st["active"] == "a" and st["fell_back_from"] == "b" and st["trial"] is False
    running, text = start_board(board)
    assert running == (v1, "a") and "app 1.0 hello" in text
    assert_player_data_intact(board.port)


def test_import_raising_memoryerror_falls_back(board, tmp_path):
    src1 = make_app(tmp_path / "1", "1.0")
    deploy_ok(board, src1)
    src2 = make_app(tmp_path / "2", "2.0", top="raise MemoryError('memory allocation failed, allocating 4096 bytes')")
    msg, r = deploy_fails(board, src2, max_boots=2)
    assert "failed (failed its trial 2 times: MemoryError: memory allocation failed" in msg
    assert msg.endswith("the board is back on %s (slot a) and running it" % built_version(src1))
    running, _text = start_board(board)
    assert running == (built_version(src1), "a")
    assert_player_data_intact(board.port)


@pytest.mark.parametrize("behaviour,why", [
    ("returns_after_trial", "RuntimeError: app.main() returned"),
    ("raises_after_trial", "RuntimeError: late failure"),
])
def test_failing_after_the_trial_resets_then_falls_back(board, tmp_path, behaviour, why):
    """Failure 4: after the trial, an exception escaping main() (or main()
    returning) left the old board dead at the REPL."""
    src1 = make_app(tmp_path / "1", "1.0")
    deploy_ok(board, src1)
    src2 = make_app(tmp_path / "2", "2.0", behaviour=behaviour)
    msg, r = deploy_fails(board, src2)
    assert msg == ("the new version %s failed (kept failing after it was confirmed: %s); the board is back on %s (slot a) and running it"
                   % (built_version(src2), why, built_version(src1)))
    assert r["resets"] >= 3  # three crashes, each a reset, then the fallback
    running, text = start_board(board)
    assert running == (built_version(src1), "a") and "app 1.0 hello" in text
    assert_player_data_intact(board.port)


def test_failing_after_the_trial_with_nothing_to_go_back_to_is_a_safe_state(board, tmp_path):
    src = make_app(tmp_path / "1", "1.0", behaviour="raises_after_trial")
    msg, r = deploy_fails(board, src)
    assert "there is nothing to go back to; the board is in its safe state" in msg and "late failure" in msg
    # the board is not dead: it answers, and the next update installs
    src2 = make_app(tmp_path / "2", "2.0")
    r = deploy_ok(board, src2)
    assert r["running"] == (built_version(src2), "b")
    assert_player_data_intact(board.port)


def test_the_deploy_report_is_true_after_a_real_reset(board, tmp_path):
    """Failure 3: boot.py's fallback line is printed before the USB port is
    back (lost); deploy must read the outcome from /slots/state.json."""
    src1 = make_app(tmp_path / "1", "1.0")
    deploy_ok(board, src1)
    src2 = make_app(tmp_path / "2", "2.0", behaviour="raises_at_start")
    msg, r = deploy_fails(board, src2, max_boots=2)
    assert b"boot: back to slot" not in r["output"]  # printed to nobody, as on a board
    assert msg.startswith("the new version %s failed (failed its trial 2 times: RuntimeError: no pixels)" % built_version(src2))
    # the command line: one line on stderr, status 1
    p = subprocess.run([sys.executable, "-m", "host_tools.link.deploy", "--port", board.port, "--src", src2,
                        "--trial-seconds", "2", "--max-boots", "1"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert p.returncode == 1
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("mancala deploy: error: the new version ") and "back on 1.0+" in p.stderr
    assert_player_data_intact(board.port)
