"""Issue 12, items 10-13: every command, option and protocol verb of `mancala` fed
malformed values of each kind -- missing, non-numeric, negative, zero, huge, an
unknown name, bytes that are not UTF-8 -- answers one line naming the problem and
a non-zero exit status; never a traceback, a Python-internal message, a silent
default or a nonsense result.

The table runs in-process (`host_tools.command.cli.main`, as the installed `mancala`
calls it; a raised exception fails the test) to stay fast; a few cases run the real
command line as a subprocess, non-UTF-8 argv bytes among them."""

import io
import json
import os
import subprocess
import sys

import pytest

from host_tools.command import cli
from host_tools.simulators import sim

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BAD = os.fsdecode(b"\xff\xfe")  # a non-UTF-8 argument as Python hands it over
BAD_LINE = b"\xff\xfe go\n"
HUGE = "99999999999999999999999"
OK_POS = "kalah 4,4,4,4,4,4,0,4,4,4,4,4,4,0 S"
INTERNAL = ("Traceback", "invalid literal", "not in tuple", "object has no attribute",
            "unsupported operand", "NoneType", "list index out of range")


def run(argv, stdin=b""):
    """(status, stdout, stderr) of `mancala ARGV` with `stdin` bytes."""
    class In:
        buffer = io.BytesIO(stdin)

        def isatty(self):
            return False

        def __iter__(self):
            return iter(io.TextIOWrapper(io.BytesIO(stdin), "utf-8"))

        def read(self):
            return stdin.decode("utf-8")

    out, err = io.StringIO(), io.StringIO()
    old = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = In(), out, err
    try:
        status = cli.main(list(argv))
    finally:
        sys.stdin, sys.stdout, sys.stderr = old
    return status, out.getvalue(), err.getvalue()


# (argv, fragment of the one error line); each must exit with status 2 (bad input)
ARG_CASES = [
    # the rules commands
    (["show"], "the following arguments are required: text"),
    (["show", "mancala"], "unknown variant 'mancala'"),
    (["show", BAD], "unknown variant '\\udcff\\udcfe'"),
    (["show", "kalah", "x,4,4,4,4,4,0,4,4,4,4,4,4,0", "S"], "count of S1 is not a number"),
    (["show", "kalah", "4,4,4,4,4,-4,8,4,4,4,4,4,4,0", "S"], "count of S6 is negative"),
    (["show", "kalah", "0,0,0,0,0,0,0,0,0,0,0,0,0,0", "S"], "add up to 0 stones"),
    (["show", "kalah", HUGE + ",4,4,4,4,4,0,4,4,4,4,4,4,0", "S"], "more than the 48"),
    (["legal"], "required: text"),
    (["legal", "oware", "1"] + ["1"] * 0 + ["x"], "'x' is not a pit number"),
    (["legal", BAD], "unknown variant"),
    (["play"], "required: text"),
    (["play", "kalah", "x"], "'x' is not a pit number 1..6"),
    (["play", "kalah", "-1"], "'-1' is not a pit number 1..6"),
    (["play", "kalah", "0"], "'0' is not a pit number 1..6"),
    (["play", "kalah", HUGE], "is not a pit number 1..6"),
    (["play", "kalahx", "1"], "unknown variant 'kalahx'"),
    (["play", "kalah", BAD], "is not a pit number 1..6"),
    (["play", "kalah", "3", "--json", "--record", "--bogus"], "unrecognized arguments: --bogus"),
    (["perft"], "required: text"),
    (["perft", "kalah"], "a position or variant and a depth"),
    (["perft", "kalah", "x"], "depth must be a whole number"),
    (["perft", "kalah", "-1"], "depth must be 0..12, got -1"),
    (["perft", "kalah", HUGE], "depth must be 0..12"),
    (["perft", "kalah", BAD], "depth must be a whole number"),
    (["perft", "nope", "3"], "unknown variant 'nope'"),
    # best
    (["best"], "required: position"),
    (["best", "nope"], "unknown variant 'nope'"),
    (["best", BAD], "unknown variant"),
    (["best", "kalah", "--nodes"], "expected one argument"),
    (["best", "kalah", "--nodes", "abc"], "--nodes must be a whole number, got 'abc'"),
    (["best", "kalah", "--nodes", "-5"], "--nodes must be 1..10000000, got -5"),
    (["best", "kalah", "--nodes", "0"], "--nodes must be 1..10000000, got 0"),
    (["best", "kalah", "--nodes", HUGE], "--nodes must be 1..10000000"),
    (["best", "kalah", "--nodes", BAD], "--nodes must be a whole number"),
    (["best", "kalah", "--level", "grandmaster"], "invalid choice: 'grandmaster'"),
    (["best", "kalah", "--level"], "expected one argument"),
    (["best", "kalah", "--seed", "abc"], "--seed must be a whole number"),
    (["best", "kalah", "--seed", "-1"], "--seed must be 0..1073741823"),
    (["best", "kalah", "--seed", HUGE], "--seed must be 0..1073741823"),
    (["best", "kalah 0,0,0,0,0,1,0,0,0,0,0,0,1,0 S 6"], "the game is over"),
    (["best", "kalah 3", "oware 9"], "'9' is not a pit number"),
    # engine options
    (["engine", "--seed", "x"], "--seed must be a whole number"),
    (["engine", "--seed", HUGE], "--seed must be 0..1073741823"),
    (["engine", "--bogus"], "unrecognized arguments"),
    # match
    (["match"], "required: a, b"),
    (["match", "master"], "required: b"),
    (["match", "master", "grandmaster"], "unknown player 'grandmaster'"),
    (["match", BAD, "master"], "unknown player"),
    (["match", "nodes:abc", "master"], "must be a whole number"),
    (["match", "nodes:-5", "master"], "nodes of player nodes:-5 must be 1..10000000"),
    (["match", "nodes:0", "master"], "must be 1..10000000, got 0"),
    (["match", "nodes:" + HUGE, "master"], "must be 1..10000000"),
    (["match", "-5", "master"], "must be 1..10000000"),
    (["match", "openspiel-mcts:abc", "master"], "simulations of openspiel-mcts:abc must be a whole"),
    (["match", "openspiel-mcts:0", "master"], "must be 1..1000000, got 0"),
    (["match", "openspiel-mcts:" + HUGE, "master"], "must be 1..1000000"),
    (["match", "openspiel-mcts:10", "master", "--variant", "ranok"], "plays kalah (4 seeds) and oware"),
    (["match", "a", "b", "--variant"], "expected one argument"),
    (["match", "master", "amateur", "--variant", "chess"], "--variant: unknown variant 'chess'"),
    (["match", "master", "amateur", "--variant", BAD], "unknown variant"),
    (["match", "master", "amateur", "--games"], "expected one argument"),
    (["match", "master", "amateur", "--games", "abc"], "--games must be a whole number"),
    (["match", "master", "amateur", "--games", "-1"], "--games must be 1..10000, got -1"),
    (["match", "master", "amateur", "--games", "0"], "--games must be 1..10000, got 0"),
    (["match", "master", "amateur", "--games", HUGE], "--games must be 1..10000"),
    (["match", "master", "amateur", "--workers", "0"], "--workers must be 1..64, got 0"),
    (["match", "master", "amateur", "--workers", "-2"], "--workers must be 1..64"),
    (["match", "master", "amateur", "--workers", HUGE], "--workers must be 1..64"),
    (["match", "master", "amateur", "--workers", "two"], "--workers must be a whole number"),
    (["match", "master", "amateur", "--opening-plies", "-1"], "--opening-plies must be 0..60"),
    (["match", "master", "amateur", "--opening-plies", HUGE], "--opening-plies must be 0..60"),
    (["match", "master", "amateur", "--opening-plies", "x"], "must be a whole number"),
    (["match", "master", "amateur", "--seed", "-1"], "--seed must be 0..1073741823"),
    (["match", "master", "amateur", "--first", "-1"], "--first must be 0..1000000"),
    (["match", "master", "amateur", "--first", HUGE], "--first must be 0..1000000"),
    (["match", "master", "amateur", "--log", "/nonexistent/dir/log.txt"],
     "--log /nonexistent/dir/log.txt: No such file or directory"),
    (["match", "master", "amateur", "--log"], "expected one argument"),
    # bench
    # endgame tables
    (["tablebase"], "the following arguments are required: cmd"),
    (["tablebase", "bogus"], "invalid choice: 'bogus'"),
    (["tablebase", "build", "kalahx"], "unknown variant 'kalahx'"),
    (["tablebase", "build", BAD], "unknown variant '\\udcff\\udcfe'"),
    (["tablebase", "build", "--seeds"], "expected one argument"),
    (["tablebase", "build", "--seeds", "abc"], "--seeds must be a whole number"),
    (["tablebase", "build", "--seeds", "-1"], "--seeds must be 0..16, got -1"),
    (["tablebase", "build", "--seeds", HUGE], "--seeds must be 0..16"),
    (["tablebase", "verify"], "required: files"),
    (["tablebase", "probe"], "required: position"),
    (["tablebase", "probe", "kalahx"], "unknown variant 'kalahx'"),
    (["tablebase", "perfect", "nim"], "unknown variant 'nim'"),
    (["tablebase", "perfect", "kalah", "--games", "0"], "--games must be 1..10000, got 0"),
    (["tablebase", "bench", "--nodes", "x"], "--nodes must be a whole number"),
    (["bench", "--nodes"], "expected one argument"),
    (["bench", "--nodes", "abc"], "--nodes must be a whole number"),
    (["bench", "--nodes", "-1"], "--nodes must be 1..100000"),
    (["bench", "--nodes", "0"], "--nodes must be 1..100000, got 0"),
    (["bench", "--nodes", HUGE], "--nodes must be 1..100000"),
    (["bench", "--plain-depth", "0"], "--plain-depth must be 1..8"),
    (["bench", "--plain-depth", HUGE], "--plain-depth must be 1..8"),
    (["bench", "--plain-depth", BAD], "--plain-depth must be a whole number"),
    # sim
    (["sim", "--headless", "-", "--profile", "pico_nonsense"], "unknown profile 'pico_nonsense'"),
    (["sim", "--headless", "-", "--profile"], "expected one argument"),
    (["sim", "--headless", "-", "--variant", "chess"], "invalid choice: 'chess'"),
    (["sim", "--headless", "-", "--level", "god"], "invalid choice: 'god'"),
    (["sim", "--headless", "-", "--seed", "x"], "not a whole number"),
    (["sim", "--headless", "-", "--seed", "-1"], "must be 0..1073741823"),
    (["sim", "--headless", "-", "--seed", HUGE], "must be 0..1073741823"),
    (["sim", "--headless", "-", "--coaching", "maybe"], "invalid choice: 'maybe'"),
    (["sim", "--headless", "/nonexistent/script.txt"], "cannot read /nonexistent/script.txt"),
    (["sim", "--headless", "-", "--state", "/proc/version/x"], "--state /proc/version/x"),
    (["sim"], "needs a terminal"),
    # analyse
    (["analyse"], "required: record"),
    (["analyse", "nope", "1"], "unknown variant 'nope'"),
    (["analyse", "kalah", "9"], "'9' is not a pit number"),
    (["analyse", BAD], "unknown variant"),
    (["analyse", "kalah", "3", "--nodes", "abc"], "--nodes must be a whole number"),
    (["analyse", "kalah", "3", "--nodes", "-1"], "--nodes must be 1..10000000"),
    (["analyse", "kalah", "3", "--nodes", "0"], "--nodes must be 1..10000000, got 0"),
    (["analyse", "kalah", "3", "--nodes", HUGE], "--nodes must be 1..10000000"),
    (["analyse", "kalah", "3", "--nodes"], "expected one argument"),
    # pull (its board errors are exit status 1, below)
    (["pull", "--dest"], "expected one argument"),
    (["pull", "--bogus"], "unrecognized arguments"),
    # the command itself
    (["frobnicate"], "unknown command 'frobnicate'"),
    ([BAD], "unknown command '\\udcff\\udcfe'"),
]


def one_line(text):
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    for bad in INTERNAL:
        assert bad not in text, text
    return lines[0]


@pytest.mark.parametrize("argv, fragment", ARG_CASES,
                         ids=["%d-%s" % (i, " ".join(c[0])[:40]) for i, c in enumerate(ARG_CASES)])
def test_bad_arguments_get_one_line_and_status_2(argv, fragment):
    status, out, err = run(argv)
    line = one_line(err)
    assert status == 2, (status, err)
    assert line.startswith("mancala"), line
    assert fragment in line, line


# Failures of the world outside (files, boards): one line too, exit status 1.
OUTSIDE_CASES = [
    (["analyse", "/nonexistent/g00001.txt"], "/nonexistent/g00001.txt: No such file"),
    (["pull", "--port", "/nonexistent/ttyACM9"], "no board found at /nonexistent/ttyACM9"),
]


@pytest.mark.parametrize("argv, fragment", OUTSIDE_CASES)
def test_outside_failures_get_one_line_and_status_1(argv, fragment):
    status, out, err = run(argv)
    line = one_line(err)
    assert status == 1 and fragment in line, (status, line)


def test_analyse_of_a_file_that_is_not_text(tmp_path):
    f = tmp_path / "g.txt"
    f.write_bytes(b"kalah \xff\xfe 3\n")
    status, out, err = run(["analyse", str(f)])
    assert status == 2 and "not UTF-8 text" in one_line(err)
    status, out, err = run(["analyse", "-"], stdin=b"\xff\n")
    assert status == 2 and "stdin is not a game record" in one_line(err)


# -- the line protocols: `mancala engine`, `mancala play -`, the headless simulator --

ENGINE_CASES = [
    ("position", "position needs a variant"),
    ("position chess", "unknown variant 'chess'"),
    ("position kalah 4,4 S", "expected 14 counts"),
    ("position kalah moves x", "move 1: 'x' is not a pit number"),
    ("position kalah moves -1", "move 1: '-1' is not a pit number"),
    ("position kalah moves 0", "move 1: '0' is not a pit number"),
    ("position kalah moves " + HUGE, "is not a pit number"),
    ("position kalah moves 3 3", "move 2: S3 is empty" if False else "move 2"),
    ("go level", "go level needs a value"),
    ("go level grandmaster", "unknown level 'grandmaster'"),
    ("go nodes", "go nodes needs a value"),
    ("go nodes abc", "go nodes must be a whole number, got 'abc'"),
    ("go nodes -5", "go nodes must be 1..10000000, got -5"),
    ("go nodes 0", "go nodes must be 1..10000000, got 0"),
    ("go nodes " + HUGE, "go nodes must be 1..10000000"),
    ("go movetime", "go movetime needs a value"),
    ("go movetime abc", "go movetime must be a whole number"),
    ("go movetime -1", "go movetime must be 1..600000"),
    ("go movetime 0", "go movetime must be 1..600000, got 0"),
    ("go movetime " + HUGE, "go movetime must be 1..600000"),
    ("go depth 5", "unknown go option 'depth'"),
    ("grade", "grade takes a move"),
    ("grade x", "'x' is not a pit number"),
    ("grade -1", "'-1' is not a pit number"),
    ("grade 0", "'0' is not a pit number"),
    ("grade " + HUGE, "is not a pit number"),
    ("grade 3 nodes", "grade takes a move and optionally nodes N"),
    ("grade 3 nodes abc", "grade nodes must be a whole number"),
    ("grade 3 nodes 0", "grade nodes must be 1..10000000, got 0"),
    ("grade 3 nodes -4", "grade nodes must be 1..10000000"),
    ("grade 3 nodes " + HUGE, "grade nodes must be 1..10000000"),
    ("grade 3 depth 5", "grade takes a move and optionally nodes N"),
    ("hint grandmaster", "hint takes a level"),
    ("hint master strong", "hint takes a level"),
    ("isready now", "isready takes no arguments"),
    ("stop 3", "stop takes no arguments"),
    ("quit now", "quit takes no arguments"),
    ("frobnicate", "unknown command 'frobnicate'"),
]


@pytest.mark.parametrize("line, fragment", ENGINE_CASES)
def test_engine_protocol_errors_are_one_line(line, fragment):
    status, out, err = run(["engine"], stdin=(line + "\nisready\n").encode())
    lines = out.splitlines()
    errors = [x for x in lines if x.startswith("error")]
    assert len(errors) == 1 and fragment in errors[0], lines
    assert lines[-1] == "readyok"  # it goes on
    assert status == 1 and not err


def test_engine_protocol_non_utf8_line():
    status, out, err = run(["engine"], stdin=BAD_LINE + b"isready\n")
    assert out.splitlines() == ["error the line is not UTF-8 text", "readyok"]
    assert status == 1


def test_engine_protocol_good_session_exits_0():
    status, out, err = run(["engine"], stdin=b"position kalah moves 3\ngo nodes 200\nquit\n")
    assert status == 0 and out.splitlines()[-1].startswith("bestmove ")


def test_engine_hint_when_the_game_is_over():
    status, out, _ = run(["engine"], stdin=b"position kalah 0,0,0,0,0,0,24,0,0,0,0,0,0,24 S\n"
                                             b"hint\n")
    assert out.splitlines() == ["error the game is over: no hint"] and status == 1


def test_play_stdin_answers_every_line_even_blank_and_not_utf8():
    data = b"kalah 3\n\n" + b"\xff\xfe\n" + b"kalah \x1b[2J 3\n" + b"oware 1\n"
    status, out, _ = run(["play", "-"], stdin=data)
    lines = out.splitlines()
    assert len(lines) == 5, lines
    assert lines[0] == "kalah 4,4,0,5,5,5,1,4,4,4,4,4,4,0 S"
    assert lines[1].startswith("error: empty record")
    assert lines[2] == "error: the line is not UTF-8 text"
    assert lines[3].startswith("error: ") and "\x1b" not in lines[3] and "\\x1b" in lines[3]
    assert lines[4].startswith("oware ")
    assert status == 1
    status, out, _ = run(["play", "--json", "-"], stdin=b"\xff\n")
    assert json.loads(out) == {"error": "the line is not UTF-8 text"}


SIM_CASES = [
    ("tap", "tap takes 1..2 argument(s), got 0"),
    ("tap X9", "unknown pit 'X9'"),
    ("tap S1 abc", "MS must be a whole number of milliseconds, got 'abc'"),
    ("tap S1 -5", "MS must be a whole number of milliseconds, got '-5'"),
    ("tap S1 0", "MS must be 1..600000, got 0"),
    ("tap S1 " + HUGE, "MS must be 1..600000"),
    ("press", "press takes 1 argument(s), got 0"),
    ("press Q1", "unknown pit 'Q1'"),
    ("release", "release takes 1 argument(s)"),
    ("hold", "hold takes 1..2 argument(s)"),
    ("hold S1 99999999999999999999", "MS must be 1..600000"),
    ("hold S1 0", "MS must be 1..600000, got 0"),
    ("hold S1 x", "MS must be a whole number"),
    ("chord", "chord takes two or more pits, got 0"),
    ("chord S1", "chord takes two or more pits, got 1"),
    ("chord S1 S6 0", "MS must be 1..600000, got 0"),
    ("chord S1 S6 " + HUGE, "MS must be 1..600000"),
    ("chord S1 Z6", "unknown pit 'Z6'"),
    ("wait", "wait takes 1 argument(s), got 0"),
    ("wait abc", "MS must be a whole number"),
    ("wait -1", "MS must be a whole number"),
    ("wait 0", "MS must be 1..600000, got 0"),
    ("wait " + HUGE, "MS must be 1..600000"),
    ("until", "until takes 1..2 argument(s), got 0"),
    ("until nirvana", "unknown mode 'nirvana'"),
    ("until over 0", "MS must be 1..600000, got 0"),
    ("until over " + HUGE, "MS must be 1..600000"),
    ("until over 500", "not in over after 500 ms (mode: menu)"),
    ("sow", "nothing to sow (mode: menu)"),
    ("jump S1", "unknown command 'jump'"),
]


def run_sim(script_bytes):
    return run(["sim", "--headless", "-"], stdin=b"wait 100\n" + script_bytes + b"\nwait 100\n")


@pytest.mark.parametrize("line, fragment", SIM_CASES)
def test_headless_sim_errors_are_one_line_and_exit_1(line, fragment):
    status, out, err = run_sim(line.encode())
    errors = [json.loads(x) for x in out.splitlines() if '"error"' in x]
    assert len(errors) == 1, out[-2000:]
    assert errors[0]["line"] == 2 and fragment in errors[0]["error"], errors
    assert status == 1 and "Traceback" not in err


def test_headless_sim_non_utf8_line_and_good_script():
    status, out, err = run_sim(BAD_LINE)
    errors = [json.loads(x) for x in out.splitlines() if '"error"' in x]
    assert errors == [{"error": "line 2: not UTF-8 text", "line": 2}] and status == 1
    status, out, err = run_sim(b"tap NS\nuntil select 2000\n")
    assert status == 0 and '"error"' not in out


def test_headless_hold_is_bounded():
    """`hold S1 99999999999999999999` used to write 271 MB of frames (it is refused
    now: SIM_CASES).  What a hold writes grows with its length, not more: a minute
    held writes under 3 MB (230 KB measured), so the longest allowed, ten minutes,
    under 30 MB (make test-long runs that one: 8 s)."""
    status, out, _ = run_sim(b"hold S1 60000")
    assert status == 0 and 1000 < len(out) < 3 * 10 ** 6


@pytest.mark.long
def test_the_longest_headless_hold_is_bounded():
    status, out, _ = run_sim(b"hold S1 %d" % sim.MAX_MS)
    assert status == 0 and len(out) < 30 * 10 ** 6


# -- values that are not errors: a zero that means something ------------------------

def test_zeros_that_mean_something_still_work():
    assert run(["perft", "kalah", "0"])[1].strip() == "1"
    status, out, _ = run(["best", "kalah", "--nodes", "50", "--seed", "0"])
    assert status == 0 and out.startswith("bestmove ")
    status, out, err = run(["match", "nodes:5", "nodes:5", "--games", "2", "--workers", "1",
                            "--opening-plies", "0", "--first", "0", "--seed", "0", "--quiet"])
    assert status == 0 and "2 points" not in err and "kalah: nodes:5 vs nodes:5" in out


# -- item 11 ------------------------------------------------------------------------

def test_best_takes_records_and_several_positions():
    status, out, err = run(["best", "kalah 3", OK_POS, "oware", "--nodes", "300"])
    lines = out.splitlines()
    assert status == 0 and len(lines) == 3 and all(x.startswith("bestmove ") for x in lines)
    status, out, _ = run(["best", "kalah", "3", "1", "--nodes", "300"])  # one record as words
    assert status == 0 and len(out.splitlines()) == 1
    status, out, _ = run(["best", "-", "--nodes", "200"], stdin=b"kalah 3\nmangala 1 2\n")
    assert status == 0 and len(out.splitlines()) == 2


def test_analyse_takes_a_record_on_the_command_line(tmp_path):
    status, out, err = run(["analyse", "kalah", "3", "1", "--nodes", "300"])
    assert status == 0, err
    assert out.splitlines()[0].startswith("ply side move")
    f = tmp_path / "g.txt"
    f.write_text("kalah 3 1\n")
    assert run(["analyse", str(f), "--nodes", "300"])[1] == out


def test_movetime_is_the_search_time():
    """`go movetime MS` searched Master's node budget whatever MS said."""
    from host_tools.command.protocol import Protocol
    from mancala.engine import level_nodes
    from mancala.rules import get_rules

    class Clock:  # one ms per call: the search length in clock reads, not seconds
        t = 0

        def __call__(self):
            self.t += 1
            return self.t

    results = []
    for ms in (20, 400):
        out = io.StringIO()
        proto = Protocol(out, clock=Clock())
        proto.handle("position kalah")
        proto.handle("go movetime %d" % ms)
        last = [x for x in out.getvalue().splitlines() if x.startswith("info")][-1]
        results.append(int(last.split()[last.split().index("nodes") + 1]))
    assert results[0] < results[1]
    assert results[1] > 4 * level_nodes(get_rules("kalah"), 3), results


def test_every_command_has_the_same_error_prefix():
    prefixes = set()
    for argv in (["show", "x"], ["best", "x"], ["match", "x", "y"], ["analyse", "x", "1"],
                 ["sim", "--headless", "-", "--seed", "x"], ["perft", "x", "1"],
                 ["pull", "--port", "/nonexistent/p"]):
        err = run(argv)[2]
        prefixes.add(err.split(":", 2)[1].strip() + ":" if err.startswith("mancala") else err)
    assert prefixes == {"error:"}, prefixes


# -- item 12: the headless simulator's exit status is documented --------------------

def test_headless_sim_documents_its_errors_and_exit_status():
    from host_tools.simulators import sim

    doc = sim.__doc__
    assert '{"error": "line N: ...", "line": N}' in doc and "exit status is then 1" in doc


# -- item 13: set-up and the progress bar --------------------------------------------

def test_match_progress_lines_are_whole_lines_when_not_a_terminal():
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.path.join(ROOT, "firmware"))
    p = subprocess.run([sys.executable, "-m", "host_tools.command.cli", "match", "nodes:5", "nodes:5",
                        "--games", "2", "--workers", "1"], capture_output=True, text=True,
                       env=env, cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "\r" not in p.stderr and p.stderr.endswith("\n")
    assert len(p.stderr.splitlines()) == 3  # 0/2, 1/2, 2/2


def _build_editable(tmp_path, backend):
    """Build the editable wheel of a copy of the project with `backend`; its stderr."""
    import shutil

    import tomllib

    proj = tmp_path / backend.replace(".", "_")
    for d in ("host_tools", "mk", "firmware/mancala"):
        shutil.copytree(os.path.join(ROOT, d), proj / d,
                        ignore=shutil.ignore_patterns("__pycache__", "*.mk"))
    shutil.copy(os.path.join(ROOT, "pyproject.toml"), proj)
    with open(proj / "pyproject.toml", "rb") as f:
        paths = tomllib.load(f)["build-system"].get("backend-path", [])
    code = ("import sys; sys.path[:0] = %r; import %s as b; "
            "print(b.build_editable(%r))" % ([str(proj / p) for p in paths], backend,
                                             str(tmp_path / "wheels")))
    p = subprocess.run([sys.executable, "-c", code], cwd=proj, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.strip().endswith(".whl")
    return p.stderr


def test_editable_install_prints_no_setuptools_notice_box(tmp_path):
    """`make setup` (pip install -e .) printed setuptools' "Editable installation"
    box; the project's backend (pyproject.toml) builds the same without it."""
    import tomllib

    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        backend = tomllib.load(f)["build-system"]["build-backend"]
    plain = _build_editable(tmp_path, "setuptools.build_meta")
    assert "careful with folders" in plain  # what the test looks for is really there
    ours = _build_editable(tmp_path, backend)
    assert "careful with folders" not in ours and "Editable installation." not in ours


# -- the real command line: argv bytes that are not UTF-8 ----------------------------

def test_real_command_line_non_utf8_argv():
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.path.join(ROOT, "firmware"))
    p = subprocess.run([sys.executable.encode(), b"-m", b"host_tools.command.cli", b"best", b"\xff",
                        b"--nodes", b"10"], capture_output=True, env=env, cwd=ROOT, timeout=60)
    err = p.stderr.decode("utf-8", "replace")
    assert p.returncode == 2 and one_line(err).startswith("mancala best: error: unknown variant")
