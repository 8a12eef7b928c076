"""The third newcomer's list (issue 43), items 6, 11, 12, 14 and 15: what the `mancala`
command says after `make play` only, to a missing table, to no command at all and to
make users; `mancala pull` against a board that lists hostile names; `mancala engine`
fed a serial terminal's bare CR line ends."""

import hashlib
import io
import os
import shutil
import subprocess
import sys

import pytest

from host_tools.command import cli, protocol
from host_tools.link import board_games, flash_micropython
from host_tools.runners import mpvm
from mancala.hw.storage import game_text

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
from test_cli_errors import run  # noqa: E402 - (mancala ARGV in this process, stdin in memory)

INTERNAL = ("Traceback", "RemoteTraceback", "multiprocessing", "File \"")


def one_error_line(err, command):
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    for bad in INTERNAL:
        assert bad not in err, err
    assert lines[0].startswith("mancala %s: error: " % command), lines[0]
    return lines[0]


# -- item 6: after `make play` (no MicroPython VM, no OpenSpiel) ---------------------

def test_bench_without_the_vm_is_one_line_saying_make_setup(monkeypatch):
    """`mancala bench` ended in 24 lines of traceback ("MicroPython VM not installed")."""
    monkeypatch.setattr(mpvm, "VM_ENTRY", "/nonexistent/micropython.mjs")
    assert not mpvm.available()
    status, out, err = run(["bench", "--engine-only", "--nodes", "10", "--plain-depth", "1"])
    line = one_error_line(err, "bench")
    assert "`make setup`" in line and "--no-vm" in line, line
    assert status == 1
    assert out == ""  # said before any work, not after the CPython part


def test_match_against_openspiel_without_it_is_one_line(monkeypatch):
    """`mancala match strong openspiel-mcts:100` ended in a 37-line multiprocessing
    traceback ("No module named 'pyspiel'")."""
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel: ModuleNotFoundError
    # one worker: were the check gone, the import would fail here at once, not in a
    # forked worker (which hangs under pytest); it comes before the workers start
    status, out, err = run(["match", "strong", "openspiel-mcts:100", "--games", "2",
                            "--workers", "1", "--quiet"])
    line = one_error_line(err, "match")
    assert "OpenSpiel" in line and "`make setup`" in line, line
    assert status == 1 and out == ""


# -- item 11: `tablebase verify` of a file that is not there -------------------------

def test_tablebase_verify_of_a_missing_file_is_not_damaged(tmp_path):
    """`mancala tablebase verify build/tables/*.tb` with no tables built said
    "damaged: [Errno 2] No such file or directory"."""
    pattern = str(tmp_path / "*.tb")  # the shell hands the pattern over unexpanded
    status, out, err = run(["tablebase", "verify", pattern])
    line = one_error_line(err, "tablebase")
    assert "damaged" not in line and "Errno" not in line, line
    assert pattern in line and "no such file" in line and "make tablebase" in line, line
    assert status == 1 and out == ""
    # a file that is there but is not a table is still damaged (stdout, status 1)
    bad = tmp_path / "kalah-4.tb"
    bad.write_bytes(b"not a table")
    status, out, err = run(["tablebase", "verify", str(bad)])
    assert status == 1 and "damaged" in out and err == ""


# -- item 12: no command; make users' spelling of the flash advice -------------------

def test_mancala_alone_is_a_usage_error():
    status, out, err = run([])
    assert status == 2
    assert out == "" and err.startswith("usage: mancala COMMAND")
    status, out, err = run(["--help"])  # asked for: stdout, 0
    assert status == 0 and out.startswith("usage: mancala COMMAND") and err == ""


def flash(argv, capsys):
    status = flash_micropython.flash_main(argv)
    return status, capsys.readouterr().err


def test_flash_esp32_advises_make_users_port(monkeypatch, capsys, tmp_path):
    """`make flash-esp32 BIN=x` advised --port; a make user sets PORT=."""
    monkeypatch.delenv("PORT", raising=False)
    monkeypatch.setenv("MANCALA_PORT_SPELLING", "make")  # as mk/deploy.mk runs it
    status, err = flash(["esp32", "--bin", "x.bin"], capsys)
    assert status == 1 and "PORT=/dev/ttyUSB0" in err and "--port" not in err, err
    monkeypatch.delenv("MANCALA_PORT_SPELLING")
    status, err = flash(["esp32", "--bin", "x.bin"], capsys)
    assert status == 1 and "--port /dev/ttyUSB0" in err, err


def test_flash_version_advice_says_force_as_the_user_types_it(monkeypatch, capsys, tmp_path):
    """`make flash-pico`'s "or --force" had no make variable: FORCE=1 now."""
    old = tmp_path / "RPI_PICO-20200101-v1.10.0.uf2"
    old.write_bytes(b"\0" * 512)
    nameless = tmp_path / "firmware.uf2"
    nameless.write_bytes(b"\0" * 512)
    binary = tmp_path / "ESP32_GENERIC-20200101-v1.10.0.bin"
    binary.write_bytes(b"\xe9" + b"\0" * 511)
    monkeypatch.setenv("MANCALA_PORT_SPELLING", "make")
    for argv in (["pico", "--uf2", str(old)], ["pico", "--uf2", str(nameless)],
                 ["esp32", "--bin", str(binary), "--port", "/dev/null", "--dry-run"]):
        status, err = flash(argv, capsys)
        assert status == 1 and "FORCE=1" in err and "--force" not in err, (argv, err)
    monkeypatch.delenv("MANCALA_PORT_SPELLING")
    status, err = flash(["pico", "--uf2", str(old)], capsys)
    assert status == 1 and "--force" in err and "FORCE=1" not in err, err


def test_flash_drive_advice_for_make_users(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(flash_micropython.glob, "glob", lambda pattern: [])
    uf2 = tmp_path / "RPI_PICO-20251209-v1.27.0.uf2"
    uf2.write_bytes(b"\0" * 512)
    monkeypatch.setattr(flash_micropython, "uf2_family", lambda data: "rp2040")
    monkeypatch.setenv("MANCALA_PORT_SPELLING", "make")
    status, err = flash(["pico", "--uf2", str(uf2)], capsys)
    assert status == 1 and "DRIVE=" in err and "--drive" not in err, err


@pytest.mark.skipif(shutil.which("make") is None, reason="no make")
@pytest.mark.parametrize("target, args", [
    ("flash-pico", ["UF2=x.uf2"]),
    ("flash-esp32", ["BIN=x.bin", "PORT=/dev/ttyUSB9"]),
])
def test_make_flash_targets_take_force_and_speak_make(target, args):
    def command(*extra):
        p = subprocess.run(["make", "-n", "-C", ROOT, target, *args, *extra],
                           capture_output=True, text=True, timeout=30)
        assert p.returncode == 0, p.stderr
        lines = [x for x in p.stdout.splitlines() if "flash_micropython" in x]
        assert len(lines) == 1, p.stdout
        return lines[0]

    plain, forced = command(), command("FORCE=1")
    assert "MANCALA_PORT_SPELLING=make" in plain
    assert "--force" not in plain and forced.endswith("--force")


# -- item 14: `mancala pull` takes only the names the board writes --------------------

class FakeBoard:
    """A device answering the raw REPL: its listing of /data/games and the files."""

    files = {}
    closed = False

    def __init__(self, port):
        self.t = self

    def raw(self, soft_reset=True):
        pass

    def exec(self, code):
        return "".join("%s %s\n" % (name, hashlib.sha256(data).hexdigest())
                       for name, data in self.files.items())

    def fs_readfile(self, path, chunk_size=512):
        assert path.startswith(board_games.GAMES_DIR + "/")
        return self.files[path[len(board_games.GAMES_DIR) + 1:]]

    def close(self):
        pass


HOSTILE = ["../x.txt", "/tmp/pulled-abs-x.txt", "..", "g1.txt", "g000001.txt",
           "g00000.txt", "g0000a.txt", "sub/g00003.txt", "g00004.txt.txt", "g\u0661\u0662345.txt",
           "../g00005.txt", "g0000\x1b[2J.txt"]


def test_pull_refuses_names_the_board_never_writes(tmp_path, monkeypatch):
    """A device listing `../x.txt` or `/x.txt` (with a valid game record) got the file
    written outside the folder, at an absolute path in the second case."""
    record = game_text("kalah 3 1 6 2").encode()
    abs_target = tmp_path / "abs" / "x.txt"
    abs_target.parent.mkdir()
    hostile = [n.replace("/tmp/pulled-abs-x.txt", str(abs_target)) for n in HOSTILE]
    monkeypatch.setattr(FakeBoard, "files", dict(
        {name: record for name in hostile}, **{"g00001.txt": record, "g123456.txt": record}))
    monkeypatch.setattr(board_games, "Board", FakeBoard)
    dest = tmp_path / "box" / "games"
    out = io.StringIO()
    new, known = board_games.pull_games("/dev/fake", str(dest), out=out)
    assert new == ["g00001.txt", "g123456.txt"] and known == []
    # nothing written but the two games: not beside the folder, not at the absolute path
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert written == ["box/games/g00001.txt", "box/games/g123456.txt"], written
    lines = out.getvalue().splitlines()
    refused = [x for x in lines if "not a game's name" in x]
    assert len(refused) == len(hostile), lines  # one line each
    assert any("'../x.txt'" in x for x in refused)  # the name, quoted
    assert all("\x1b" not in x for x in lines)  # and escaped: no terminal control
    assert lines[-1].endswith("%d refused)" % len(hostile)), lines


def test_pull_survives_a_listing_line_it_cannot_read(tmp_path, monkeypatch, capsys):
    """A listing line that is not `NAME SHA256` (a name with a space, no hash) is
    refused by one line too, never a traceback."""
    record = game_text("kalah 3").encode()

    class Odd(FakeBoard):
        def exec(self, code):
            return ("g00001.txt %s\nno-hash-here\na b %s\n"
                    % (hashlib.sha256(record).hexdigest(), "0" * 64))

    monkeypatch.setattr(FakeBoard, "files", {"g00001.txt": record})
    monkeypatch.setattr(board_games, "Board", Odd)
    status, out, err = run(["pull", "--port", "/dev/fake", "--dest", str(tmp_path / "g")])
    assert status == 0 and err == "", err
    assert os.listdir(tmp_path / "g") == ["g00001.txt"]
    assert out.count("not a game's name") == 2, out


# -- item 15: `mancala engine` and a serial terminal's bare CR -----------------------

def test_engine_reads_lines_ended_by_cr_lf_or_both():
    status, out, err = run(["engine"], stdin=b"position kalah\rgo nodes 10\risready\r")
    lines = out.splitlines()
    assert status == 0 and not any(x.startswith("error") for x in lines), lines
    assert [x for x in lines if x.startswith("bestmove")] and lines[-1] == "readyok", lines
    status, out, _ = run(["engine"], stdin=b"position kalah\r\ngo nodes 10\nisready\r\n")
    assert status == 0 and out.splitlines()[-1] == "readyok"


def test_line_ends_split_across_reads():
    """A CR LF split between two reads ends one line, not two; a CR at the end of a
    read ends its line at once (a terminal waits for the answer)."""
    got = list(cli.split_lines([b"isready\r", b"\nquit\r", b"", b"go\n\r\nx"]))
    assert got == ["isready", "quit", "go", "", "x"]
    assert list(cli.split_lines([b"a\r", b"\n", b"\nb"])) == ["a", "", "b"]
    lines = cli.split_lines(iter([b"isready\r"]))
    assert next(lines) == "isready"  # before any further read
    assert list(cli.split_lines([b"\xff\r\n\xc3\xa9\r"])) == [None, "\u00e9"]


def test_engine_over_a_pipe_takes_bare_cr():
    """The real command line (stdin a pipe: protocol.fd_lines)."""
    r, w = os.pipe()
    os.write(w, b"position kalah moves 3\rgo nodes 10\risready\r")
    os.close(w)
    try:
        assert list(protocol.fd_lines(r)) == ["position kalah moves 3", "go nodes 10", "isready"]
    finally:
        os.close(r)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.path.join(ROOT, "firmware"))
    p = subprocess.run([sys.executable, "-m", "host_tools.command.cli", "engine"],
                       input=b"position kalah\rgo nodes 10\risready\r", capture_output=True,
                       env=env, cwd=ROOT, timeout=60)
    lines = p.stdout.decode().splitlines()
    assert p.returncode == 0 and lines[-1] == "readyok", (lines, p.stderr)
    assert any(x.startswith("bestmove") for x in lines)


def test_engine_doc_says_which_line_ends():
    with open(os.path.join(ROOT, "docs", "ENGINE.md")) as f:
        doc = f.read()
    section = doc[doc.index("## Commands"):doc.index("### On the chip")]
    assert "CR LF" in section and "bare CR" in section
