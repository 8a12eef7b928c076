"""Issue 12, items 6-9: the terminal simulator (`make play`) as a newcomer meets it.
The interactive simulator runs on a pseudo-terminal here (the pty module: nothing
to install); host_tools/simulators/sim_screens.py captures its screens with tmux."""

import io
import os
import re
import select
import signal
import subprocess
import sys
import termios
import time

import pytest
from board_helpers import board, start, to_select
from test_board_play import BlunderEngine

from host_tools.fakes.board import index
from host_tools.simulators import sim
from mancala.hw.clock import ManualClock

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def screen(b):
    out = io.StringIO()
    sim.draw(b, out)
    return out.getvalue()


def plain(text):
    """The screen's text, a wrapped line under the board joined again (the lines
    fit 79 columns: its next line goes on after three spaces)."""
    return re.sub(r"\r?\n   (?=\S)", " ", ANSI.sub("", text))


def headless_board(*flags):
    args = sim.parse_args(["--headless", "-", *flags])
    b = sim.make_board(args, clock=ManualClock(1000))
    b.run(200)
    return b


# -- 6: arrow and function keys do not quit -----------------------------------------

def test_escape_sequences_are_not_esc():
    # each is one key (named: the board does not have it, issue 43 item 9), never Esc
    assert sim.parse_keys(b"\x1b[A\x1b[B\x1bOP\x1b[15~\x1b[1;5C") == \
        ["Up", "Down", "F1", "F5", "Right"]
    assert sim.parse_keys(b"s\x1b[Dd") == ["s", "Left", "d"]
    assert sim.parse_keys(b"\x1b") == ["quit"]
    assert sim.parse_keys(b"\x03") == ["quit"]
    assert sim.parse_keys(b"A\x1b[<0;3;4M") == ["A"]  # a mouse report is dropped whole


class Pty:
    """`python -m host_tools.simulators.sim ARGS` on a pseudo-terminal."""

    def __init__(self, *args, rows=40, cols=120):
        import fcntl
        import pty
        import struct

        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the simulator
            os.chdir(ROOT)
            os.execv(sys.executable, [sys.executable, "-m", "host_tools.simulators.sim", *args])
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.out = b""

    def read(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if select.select([self.fd], [], [], 0.05)[0]:
                try:
                    self.out += os.read(self.fd, 65536)
                except OSError:
                    break
        return self.out

    def wait_for(self, text, seconds=30):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.read(0.2)
            if text.encode() in self.out:
                return True
        return False

    def send(self, data):
        os.write(self.fd, data)

    def alive(self):
        return os.waitpid(self.pid, os.WNOHANG) == (0, 0)

    def exit_status(self, seconds=10):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.read(0.1)
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        raise AssertionError("the simulator did not end")

    def close(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(self.fd)


@pytest.fixture
def state(tmp_path):
    return str(tmp_path / "state")


def test_arrow_keys_in_the_real_terminal_do_not_quit(state):
    p = Pty("--state", state, "--fresh")
    try:
        assert p.wait_for("mode: menu"), p.out[-2000:]
        for seq in (b"\x1b[A", b"\x1b[B", b"\x1bOP", b"\x1b[15~"):
            p.send(seq)
            p.read(0.3)
        p.send(b"s")  # still there, still taking keys: the menu item "opponent"
        assert p.wait_for(">s opponent", 10), p.out[-2000:]
        assert p.alive()
        p.send(b"\x1b")  # Esc alone still quits
        assert p.exit_status() == 0
    finally:
        p.close()


def test_sigterm_gives_the_terminal_back(state):
    p = Pty("--state", state, "--fresh")
    try:
        assert p.wait_for("mode: menu"), p.out[-2000:]
        assert not termios.tcgetattr(p.fd)[3] & termios.ECHO  # cbreak while it runs
        os.kill(p.pid, signal.SIGTERM)
        assert p.exit_status() == 0
        assert termios.tcgetattr(p.fd)[3] & termios.ECHO  # echo is back
    finally:
        p.close()


# -- 7: the screen says what the mode wants -----------------------------------------

def test_menu_screen_lists_its_items_and_values():
    b = headless_board("--variant", "oware")
    assert b.mode() == "menu"
    text = plain(screen(b))
    assert "MENU" in text and "` starts a new game" in text
    for label in ("variant: oware", "opponent: amateur", "who starts: South", "coaching: on",
                  "hints: 3", "brightness: low", "sowing: guided"):
        assert label in text, text
    assert "y=ranok" in text and "e=oware*" in text  # the variant item's values, N keys


def test_screens_say_what_each_mode_wants():
    b = board(variant="kalah", opponent=1, coaching=1, engine_cls=BlunderEngine)
    start(b)
    text = plain(screen(b))
    assert "South to move: press a glowing pit's key (a s d f g h)" in text
    b.tap("S2")
    text = plain(screen(b))
    assert "drop one stone into the white pit S3 (d) and press its key" in text
    b.sow()
    assert b.until(("blunder",), 5000)
    text = plain(screen(b))
    assert "blunder (9 stones), the red pit N3 is the threat: your store (j) takes the move " \
           "back, any pit keeps it" in text, text
    b.tap("S5")  # keep it
    assert b.until(("show",), 20000)
    text = plain(screen(b))
    assert re.search(r"the computer plays N\d \([qwerty]\): take the blinking pit's stones "
                     r"and press its key", text), text


def test_game_over_screen_says_who_won():
    b = board(variant="kalah", opponent=0)
    from mancala.game import Game
    from mancala.notation import format_record, parse_record

    start(b)
    g = parse_record("kalah 0,0,0,0,0,1,30,0,0,0,0,0,1,16 S")
    b.app.game = Game(g.rules, g.pos)
    b.app.refresh()
    b.app.set_mode(b.app.turn_mode())
    b.play_move(index("S6"))
    assert b.until(("over",), 5000), format_record(b.app.game)
    text = plain(screen(b))
    assert "game over: South wins, 31-17; any pit for the menu" in text, text


def test_a_console_message_is_labelled_and_not_the_mode_line():
    b = headless_board()
    text = plain(screen(b))
    assert "board console:" not in text
    out = io.StringIO()
    sim.draw(b, out, "sensor 3 is stuck")
    assert "board console: sensor 3 is stuck" in plain(out.getvalue())


# -- 8: labels are counts, glows are visible, one-LED dots under their pits ---------

def test_labels_are_the_stones_not_the_glows():
    """The old labels decoded the LEDs: "?" on a blinking pit, a glow read as a count."""
    b = board(variant="kalah", opponent=1, coaching=1, engine_cls=BlunderEngine)
    start(b)
    b.play_move(index("S2"))
    assert b.until(("blunder",), 5000)
    for _ in range(4):  # both phases of the blinks
        b.run(b.app.BLINK_MS)
        text = plain(screen(b))
        assert "?" not in text, text
        assert re.search(r"\[j\] SS %d\b" % b.app.game.pos[6], text), text
    b.tap("S5")  # keep it: the computer moves, its pit blinks
    assert b.until(("show",), 20000)
    pit = b.app.sow_side * 7 + b.app.sow_pit
    for _ in range(4):
        b.run(b.app.BLINK_MS)
        text = plain(screen(b))
        assert "?" not in text, text
        assert "%s %d" % (("S1 S2 S3 S4 S5 S6 SS N1 N2 N3 N4 N5 N6 NS".split())[pit],
                          b.app.game.pos[pit]) in text, text
    b.sow()
    to_select(b)
    b.tap("S1")
    assert b.mode() == "sow"
    text = plain(screen(b))
    assert "[a] S1 0" in text  # the hand holds S1's stones


def test_dim_glows_are_visible_on_a_dark_terminal():
    b = headless_board("--variant", "kalah", "--two")
    b.tap("NS")
    assert b.mode() == "select"
    text = screen(b)
    colours = [tuple(int(x) for x in m.groups()) for m in
               re.finditer(r"\x1b\[38;2;(\d+);(\d+);(\d+)m\u25cb", text)]
    assert colours, "no glow drawn"
    assert min(max(c) for c in colours) >= 120, colours


def test_one_led_dots_sit_under_their_pits():
    b = headless_board("--profile", "pico_cheap", "--variant", "kalah", "--two")
    b.tap("NS")
    rows = plain(screen(b)).split("\n")
    for k, row in enumerate(rows):
        if "[q]" in row or "[a]" in row:
            labels = [m.start() for m in re.finditer(r"\[[a-z]\]", row)]
            dots = [i for i, c in enumerate(rows[k + 1]) if c in "\u25cf\u25cb\u00b7"]
            assert dots == labels, (row, rows[k + 1])


# -- 9: flags, --help, the terminal after kill -9 -----------------------------------

def test_flags_for_a_new_game_are_refused_while_a_game_is_in_progress(state):
    def sim_run(*flags):
        return subprocess.run([sys.executable, "-m", "host_tools.simulators.sim", "--headless", "-",
                               "--state", state, *flags], input="wait 100\ntap NS\nwait 100\n",
                              capture_output=True, text=True, cwd=ROOT, timeout=60)

    assert sim_run("--variant", "kalah", "--two").returncode == 0  # a kalah game starts
    p = sim_run("--variant", "oware")
    assert p.returncode == 2
    assert "a game is in progress" in p.stderr and "--variant oware (the game is kalah)" in \
        p.stderr and "--fresh" in p.stderr and len(p.stderr.strip().splitlines()) == 1
    p = sim_run("--level", "master")
    assert p.returncode == 2 and "--level master (the game is against a person)" in p.stderr
    assert sim_run("--variant", "kalah").returncode == 0  # the same: no clash
    assert sim_run("--variant", "oware", "--fresh").returncode == 0


def test_help_tells_the_truth():
    p = subprocess.run([sys.executable, "-m", "host_tools.simulators.sim", "--help"], capture_output=True,
                       text=True, cwd=ROOT, timeout=60)
    text = p.stdout
    assert "computer (amateur)" in text and "(strong)" not in text
    assert text.count("pico_buttons_hall") <= 1 and "pico-buttons" not in text
    assert "stty sane" in text
