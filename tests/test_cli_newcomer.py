"""The second newcomer's list (issue 26): what the `mancala` command says to bad or
long requests."""

import os
import signal
import subprocess
import sys

from host_tools.command import cli, game_analysis
from host_tools.generators import puzzles

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_puzzle_numbers_are_bounded_by_the_set(capsys):
    """`puzzles show kalah 0` said "must be 1..10000" with 40 puzzles in the set."""
    assert cli.run_command("puzzles", puzzles.main, ["show", "kalah", "0"]) == 2
    err = capsys.readouterr().err
    with open(puzzles.data_path("kalah")) as f:
        total = sum(1 for line in f if line.strip() and not line.startswith("#"))
    assert "kalah has %d puzzles: the number must be 1..%d, got 0" % (total, total) in err
    assert cli.run_command("puzzles", puzzles.main,
                           ["show", "kalah", str(total + 1)]) == 2
    assert cli.run_command("puzzles", puzzles.main, ["show", "kalah", str(total)]) == 0


def test_analyse_checks_the_report_folder_before_analysing(capsys, monkeypatch):
    """--html into a folder that is not there failed only after the analysis (48 s)."""
    def analysed(*args):
        raise AssertionError("analysed before the report's folder was checked")

    monkeypatch.setattr(game_analysis, "analyse_record", analysed)
    status = cli.run_command("analyse", game_analysis.analyse_main,
                             ["kalah", "3", "1", "--html", "/nonexistent/x.html"])
    assert status == 1
    assert "/nonexistent: no such folder, or not writable" in capsys.readouterr().err


def test_deep_perft_shows_progress(capsys, monkeypatch):
    """`perft kalah 12` ran minutes with nothing on the screen."""
    monkeypatch.setattr(cli, "PERFT_PROGRESS_DEPTH", 3)
    assert cli.cmd_perft(["kalah", "3"]) == 0
    out, err = capsys.readouterr()
    assert out == "185\n"  # the count is still the last (and only) line of stdout
    lines = err.splitlines()
    assert len(lines) == 6 and lines[-1].startswith("perft: 6 of 6 first moves counted")


def interruptible():
    """Ctrl-C's signal as a terminal gives it, in the child (a suite started in the
    background of a script inherits SIGINT ignored: Python then never interrupts)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_in_a_match_is_one_line():
    """Ctrl-C (the terminal's: the whole process group) during a two-worker match
    printed each worker's traceback ("Process ForkPoolWorker-1:")."""
    p = subprocess.Popen([sys.executable, "-m", "host_tools.command.cli", "match", "nodes:300",
                          "nodes:300", "--games", "40", "--workers", "2"], cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                         preexec_fn=interruptible)
    for _ in range(2):  # the progress bar's second line: a game is done, the workers work
        assert p.stderr.readline().startswith(b"[")
    os.killpg(p.pid, signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert b"ForkPoolWorker" not in err and b"Traceback" not in err, err
    assert err.endswith(b"mancala match: interrupted\n"), err


def test_one_master_the_cli_plays_the_boards_book(capsys):
    """`best --level master` and the protocol's Master searched without the opening
    book the board plays (kalah's start: 6, which analyse grades an inaccuracy; the
    book says 3)."""
    from host_tools.command.analysis import best_main
    from host_tools.command.protocol import Protocol

    assert best_main(["kalah", "--level", "master"]) == 0
    assert capsys.readouterr().out == "bestmove 3 score 9 depth 0 nodes 0 book\n"
    assert best_main(["kalah", "--level", "master", "--no-book"]) == 0
    searched = capsys.readouterr().out.split()
    assert searched[-1] != "book" and int(searched[searched.index("nodes") + 1]) > 0
    import io

    out = io.StringIO()
    proto = Protocol(out)
    for line in ("position kalah", "go", "go nodes 300", "position oware", "go nodes 50",
                 "position kalah moves 3", "hint"):
        proto.handle(line)
    lines = out.getvalue().splitlines()
    assert lines[:2] == ["info depth 0 score 9 nodes 0 book", "bestmove 3"]
    # a node budget is a plain search, never the book; a new variant opens its own
    assert "book" not in " ".join(lines[2:])
    assert lines[-1].startswith("hint ")


def test_analysis_and_report_say_their_budget_against_the_coach(tmp_path, capsys):
    """The report said "the default budget" and `--help` "25x the board's"; the coach
    and the report then disagreed with no word why.  Since issue 43 the default is the
    board's coach's own budget (a Pico's: the same grades), and another says how far."""
    from mancala.engine import NATIVE_BUDGETS

    coach = NATIVE_BUDGETS["armv6m"][1]["kalah"]
    html = tmp_path / "r.html"
    assert game_analysis.analyse_main(["kalah", "3", "1", "6", "--nodes", "600", "--html",
                                       str(html)]) == 0
    note = ("graded with 600 nodes a move (%gx the board's coach, which grades with %d"
            % (round(600 / coach, 2), coach))
    assert note in capsys.readouterr().out
    import html as markup

    assert note in markup.unescape(html.read_text()).replace("\n", " ")
    assert game_analysis.default_analyse_nodes() == coach
    assert game_analysis.budget_note(coach).startswith(
        "graded with %d nodes a move, as the board's coach grades" % coach)


def test_simulator_words(monkeypatch):
    """Item 10: "the move S3 was blunder", "stone(s)", nothing said when `i` finds no
    hint left."""
    import sys as _sys

    _sys.path.insert(0, os.path.join(ROOT, "tests"))
    from board_helpers import board, start

    from host_tools.simulators import sim
    from mancala import app as A

    b = board(variant="kalah", opponent=0, coaching=1)
    start(b)
    b.app.meta["hints"] = 0
    text = "\n".join(sim.explain(b))
    assert "no hints left in this game (the menu's S5 sets how many a game has)" in text
    b.app.before = bytearray(b.app.game.pos)
    b.app.sow_pit = 2
    for grade, words in (((3, 1, -1), "was an inaccuracy (1 stone lost)"),
                         ((4, 3, -1), "was a mistake (3 stones lost)"),
                         ((0, 0, -1), "was the best move (a key goes on)")):
        b.app.grade = grade
        monkeypatch.setattr(b.app, "mode", A.GRADE)
        text = "\n".join(sim.explain(b))
        assert "coach: the move S3 " + words in text, text
    assert "stone(s)" not in open(sim.__file__).read()


def test_simulator_variants_are_the_menus():
    """--variant kalah5 was listed, and started 4-seed kalah without a word."""
    import pytest

    from host_tools.simulators import sim
    from mancala.modes.menu import VARIANT_CHOICES

    for v in VARIANT_CHOICES:
        assert sim.parse_args(["--variant", v]).variant == v
    from host_tools.command.cli import UsageError

    with pytest.raises(UsageError, match="invalid choice: 'kalah5'"):
        sim.parse_args(["--variant", "kalah5"])


def test_make_play_installs_only_what_playing_needs():
    """Item 11: `make play` installed the developers' world (a 535 MB .venv with
    OpenSpiel, SciPy, mypy, Selenium) and needed node/npm, which the terminal
    simulator does not use.  (`make -n -B`: what make would run from nothing.)"""
    play = subprocess.run(["make", "-n", "-B", "play"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout
    assert "pip install --quiet -e .\n" in play and "python -m host_tools.simulators.sim" in play
    assert "[dev]" not in play and "npm" not in play
    test = subprocess.run(["make", "-n", "-B", "test"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout
    assert "-e '.[dev]'" in test and "npm ci" in test


def test_play_web_busy_port_names_both_spellings(capsys):
    """`make play-web` said "try --port 0" where make takes WEB_PORT=0."""
    import socket

    from host_tools.simulators import web_serve

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        assert web_serve.main(["--port", str(s.getsockname()[1])]) == 1
    err = capsys.readouterr().err
    assert err.startswith("mancala play-web: error: cannot listen")
    assert "make play-web WEB_PORT=0, or --port 0" in err


def test_terminal_screens_fit_80_by_24():
    """Item 6: the simulator needed 86+ columns and garbled in 80 x 24 without a word;
    the menu's line was cut even at 120.  Every screen of a game, the menu and the
    coach's pause, for every build, in 79 columns and 24 rows."""
    import io
    import re
    import sys as _sys

    _sys.path.insert(0, os.path.join(ROOT, "tests"))
    from board_helpers import board, start
    from test_board_play import BlunderEngine

    from host_tools.fakes.board import index
    from host_tools.simulators import sim

    ansi = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

    def check(b):
        out = io.StringIO()
        sim.draw(b, out, "a console line long enough to need a second line under the "
                         "board, as the tables' message does on a board without them")
        lines = ansi.sub("", out.getvalue()).replace("\r", "").split("\n")
        assert len(lines) <= 24, "\n".join(lines)
        wide = [ln for ln in lines if len(ln) > 79]
        assert not wide, wide
        return "\n".join(lines)

    for profile in ("pico_buttons", "pico_hall", "esp32", "pico_cheap"):
        b = board(profile=profile, variant="kalah", opponent=1, coaching=1,
                  engine_cls=BlunderEngine)
        assert b.until(("menu",), 5000)
        text = check(b)
        assert "variant: y=ranok" in text  # the menu's values are all there
        start(b)
        check(b)
        b.play_move(index("S2"))
        assert b.until(("blunder",), 5000)
        assert "the red pit" in check(b)


def test_the_terminal_simulator_keeps_the_scrollback():
    """It drew every frame into the scrollback (99 boards in 40 s): now the
    alternate screen, left again at the end."""
    src = open(os.path.join(ROOT, "host_tools", "simulators", "sim.py")).read()
    body = src[src.index("def interactive("):src.index("def _profile_name(")]
    assert "\\x1b[?1049h" in body and "\\x1b[?1049l" in body
    assert body.index("\\x1b[?1049h") < body.index("app.run()") < body.index("\\x1b[?1049l")


def test_the_page_plays_the_boards_book():
    """Item 4: the browser board had neither book nor tables ("book: no
    /tables/kalah.book" on every page).  The bundle carries the committed books as
    the board's /tables/ has them; the endgame tables (built, not committed) are
    still said missing, as on a board that was not sent them."""
    import base64
    import json

    from host_tools.simulators import web_serve
    from host_tools.simulators.web.webboard import WebBoard

    bundle = web_serve.python_bundle()
    with open(os.path.join(ROOT, "firmware", "tables", "kalah.book"), "rb") as f:
        book = f.read()
    text = bundle["/lib/tables/kalah.book"]
    assert text.startswith("base64:") and base64.b64decode(text[7:]) == book
    wb = WebBoard("pico_buttons", "", 1, json.dumps({"variant": "kalah", "opponent": 4}))
    for _ in range(300):
        wb.step(20)
    assert not any("book" in line for line in wb.lines), wb.lines
    assert wb.board.app.engine.book is not None
    assert "/tables/kalah.book" not in json.loads(wb.files_json())  # not the player's save
