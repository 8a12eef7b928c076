"""`mancala online` (host_tools/command/online.py): the PC offers a game, a board (a
unix-port process running the firmware's session: host_tools/online/mpboard.py) joins
with the code the PC printed, they play to the end through a real Mosquitto, the PC
leaving with Ctrl-C halfway and taking the game up again with `resume`; and each error
(no broker, a bad code, no game under a code, a bad HOST:PORT) is one line and a
non-zero exit."""

import os
import queue
import signal
import subprocess
import sys
import threading
import time

import pytest

from host_tools.online import broker as broker_mod
from host_tools.online.boards import BoardProcess
from mancala.hw.storage import game_record
from mancala.notation import parse_record

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def broker():
    if not broker_mod.available():
        if os.environ.get("CI"):
            pytest.fail("CI must run the online tests: mosquitto not installed")
        pytest.skip("mosquitto not installed: make online-deps (apt-get install mosquitto)")
    with broker_mod.Broker() as b:
        yield b


class Pc:
    """`mancala online ...` as a process: its stdout's lines as they come, stdin to type."""

    def __init__(self, *args):
        self.proc = subprocess.Popen([sys.executable, "-m", "host_tools.command.cli", "online", *args],
                                     cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        self.lines = []
        self.q = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.q.put(line.rstrip("\n"))
        self.q.put(None)

    def next(self, timeout):
        try:
            line = self.q.get(timeout=timeout)
        except queue.Empty:
            return False
        if line is not None:
            self.lines.append(line)
        return line

    def wait_line(self, start, timeout=10):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            line = self.next(end - time.monotonic())
            if line is None:
                break
            if line and line.startswith(start):
                return line
        raise AssertionError("no line %r from the PC: %s; stderr %s" % (start, self.lines[-10:], self.stderr()))

    def type(self, text):
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def stderr(self):
        return self.proc.stderr.read() if self.proc.poll() is not None else ""

    def finish(self, timeout=10):
        rc = self.proc.wait(timeout=timeout)
        while self.next(0.2) not in (None, False):
            pass
        return rc


def _pits(line):
    return [int(w) for w in line.rsplit(":", 1)[1].split() if w.isdigit()]


def _play_until(pc, stop, typed):
    """Answer each prompt of the PC with a legal pit until a line starting with `stop`;
    a word it does not know at the first prompt, and an empty pit at the first prompt
    that has one, each before the legal pit."""
    end = time.monotonic() + 20
    while time.monotonic() < end:
        line = pc.next(end - time.monotonic())
        assert line is not None, "the PC ended: %s %s" % (pc.lines[-10:], pc.stderr())
        if line is False:
            continue
        if line.startswith(stop):
            return line
        if line.startswith("your move"):
            pits = _pits(line)
            if "nine" not in typed:
                pc.type("nine")
                typed["nine"] = True
            wrong = [k for k in range(1, 7) if k not in pits]
            if wrong and "wrong" not in typed:
                pc.type(str(wrong[0]))
                typed["wrong"] = wrong[0]
            typed["n"] = typed.get("n", 0) + 1
            pc.type(str(pits[typed["n"] % len(pits)]))
    raise AssertionError("no %r: %s" % (stop, pc.lines[-10:]))


def test_the_pc_creates_a_board_joins_they_finish_and_ctrl_c_resumes(board_lib, broker, tmp_path):
    t0 = time.monotonic()
    data = str(tmp_path / "pc")
    # (meanwhile, a join under a code no one offers: it is told after the lookup's 5 s)
    nobody = Pc("join", "666666", "--broker", "127.0.0.1:%d" % broker.port, "--data", str(tmp_path / "x"))
    pc = Pc("create", "--broker", "127.0.0.1:%d" % broker.port, "--data", data)
    code = pc.wait_line("code: ").split()[1]
    board = BoardProcess(board_lib, str(tmp_path / "b"), "b", broker.port, code=code, seed=2,
                         sleep_ms=1, linger_ms=150)
    try:
        pc.wait_line("paired")
        typed = {}
        _play_until(pc, "you played pit", typed)
        pc.proc.send_signal(signal.SIGINT)  # Ctrl-C: left, the game kept
        pc.wait_line("left; the game is kept")
        assert pc.finish() == 0
        first = "\n".join(pc.lines)
        assert os.path.exists(os.path.join(data, "online_game.json"))
        assert board.wait_for("ev", lambda m: m["ev"] == "peer" and m["text"] == "away", timeout=5)
        pc = Pc("resume", "--data", data)  # the broker from pc.json
        assert pc.wait_line("resuming game").split()[2]
        _play_until(pc, "game over", typed)
        kept = pc.wait_line("the game is kept in")
        assert pc.finish() == 0, pc.stderr()
        done = board.wait_for("done", timeout=10)
        board.wait()
        rc = nobody.finish(timeout=10)
    finally:
        for p in (pc, nobody):
            if p.proc.poll() is None:
                p.proc.kill()
        if board.proc.poll() is None:
            board.kill()
    path = kept.split()[5].rstrip(":")
    with open(path, "rb") as f:
        record, ok = game_record(f.read())
    assert record == done["done"] and parse_record(record).over  # the board's record, the same
    assert not os.path.exists(os.path.join(data, "online_game.json"))  # left at the end
    assert "the other side is here" in first
    # what was typed wrong was said, one line each, and played nothing
    assert "not understood: 'nine'" in first
    said = "\n".join(first.splitlines() + pc.lines)
    assert "wrong" in typed and "not played: " in said
    err = nobody.stderr()
    assert rc == 1 and err.strip() == "mancala online: error: no game with the code 666666", err
    print("PC against a board: %d plies in %.1f s" % (len(record.split()) - 1, time.monotonic() - t0))


# -- the errors: one line each, a non-zero exit ----------------------------------------------


def _run(capsys, *argv):
    from host_tools.command.cli import main

    rc = main(["online", *argv])
    out, err = capsys.readouterr()
    return rc, out, err.strip().splitlines()


def test_no_broker_reachable_is_one_line_and_nothing_is_kept(capsys, tmp_path):
    from host_tools.online.broker import free_port

    port = free_port()  # (nothing listens there)
    t0 = time.monotonic()
    rc, out, err = _run(capsys, "create", "--broker", "127.0.0.1:%d" % port, "--data", str(tmp_path))
    assert rc == 1 and len(err) == 1, err
    assert err[0] == "mancala online: error: cannot reach the broker 127.0.0.1:%d: the broker " \
                     "127.0.0.1:%d refused the connection" % (port, port)
    assert time.monotonic() - t0 < 3
    assert not os.path.exists(tmp_path / "online_game.json")  # no half-made game to resume
    rc, out, err = _run(capsys, "resume", "--data", str(tmp_path))
    assert rc == 1 and len(err) == 1 and "no online game is kept in" in err[0]


@pytest.mark.parametrize("argv, says", [
    (("join", "12345", "--broker", "127.0.0.1"), "the code '12345' is not six digits 1..6"),
    (("join", "123457", "--broker", "127.0.0.1"), "the code '123457' is not six digits 1..6"),
    (("create", "--broker", "127.0.0.1:99999"), "the broker's port 99999 is out of range"),
    (("create", "--broker", "no host:1883"), "is not HOST:PORT"),
    (("create", "--broker", "127.0.0.1:x"), "the broker's port 'x' is not a number"),
    (("join", "123456"), "the following arguments are required: --broker"),
    (("create", "--broker", "127.0.0.1", "--variant", "chess"), "chess"),
    (("play",), "unknown subcommand 'play'"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, tmp_path, argv, says):
    rc, out, err = _run(capsys, *argv, "--data", str(tmp_path))
    assert rc == 2 and len(err) == 1, err
    assert err[0].startswith("mancala online: error: ") and says in err[0], err


def test_a_game_under_way_is_not_overwritten(capsys, tmp_path):
    from host_tools.command import online

    storage = online.storage_in(str(tmp_path))
    storage.save("online_game.json", {"v": 1, "phase": "playing", "side": "b", "g": "0123456789abcdef"})
    rc, out, err = _run(capsys, "join", "123456", "--broker", "127.0.0.1:1", "--data", str(tmp_path))
    assert rc == 1 and len(err) == 1 and "a game is under way here (game 0123456789abcdef, side b)" in err[0]
    rc, out, err = _run(capsys, "leave", "--data", str(tmp_path))
    assert rc == 0 and "gave up game 0123456789abcdef" in out
    assert online.saved_game(str(tmp_path)) is None
