"""Issue 43, items 7-10: the terminal board (`make play`) as a newcomer met it.

7  the console's lines about a missing endgame table or opening book say that this
   is normal and how to add them (as the page does);
8  a terminal made smaller than 80 x 24 mid-game says so, and the board is drawn again
   when the size changes (SIGWINCH);
9  keys that arrive in one burst are presses in order (a pasted `fgh` sows three
   stones, `j j` is two presses); a key the board does not have gets one line;
10 the puzzles' and lessons' set-up screens show the counts, as a game's do.

The board runs on a clock the test advances (ManualClock); a few tests run the real
simulator on a pseudo-terminal (test_sim_terminal.Pty), for what only a terminal does."""

import fcntl
import io
import os
import re
import struct
import termios
import time

import pytest
from test_sim_terminal import Pty, plain

from host_tools.simulators import sim
from mancala import lessons as L
from mancala import puzzles as PZ
from mancala.hw.clock import ManualClock
from mancala.profiles import load as load_profile

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.fixture
def state(tmp_path):
    return str(tmp_path / "state")


def boot(state, *flags, profile="pico_buttons"):
    """The interactive simulator's board and console, on a clock the test advances."""
    clock = ManualClock(1000)
    console = sim.Console(clock, load_profile(profile))
    args = sim.parse_args(["--state", state, "--profile", profile, *flags])
    b = sim.make_board(args, clock=clock, log=console.log, start_now=True)
    b.run(3000)  # past the boot's blink code
    return b, console


def screen(b, message="", size=None):
    out = io.StringIO()
    sim.draw(b, out, message, size=size)
    return out.getvalue()


def rows(text):
    """The screen's rows as a terminal shows them (no colours, no CR)."""
    return [ANSI.sub("", r).rstrip("\r") for r in text.split("\n")]


def fits(text, cols=sim.WIDTH + 1, lines=sim.HEIGHT):
    r = rows(text)
    assert len(r) <= lines, "\n".join(r)
    for row in r:
        assert len(row) < cols, row  # (a character in the last column wraps some terminals)


# -- 7: the tables and the book that are not there -----------------------------------

def test_a_missing_table_and_book_are_said_to_be_normal(state):
    b, console = boot(state, "--fresh", "--variant", "oware", "--two")
    assert b.mode() == "select"
    text = screen(b, console.lines(b.clock.now()))
    fits(text)
    said = plain(text)
    # both lines are shown (the console's last line used to hide the ones before it),
    # each with what it means; the start line stays as it was
    assert "board console: tables: no /tables/oware.tb; playing on without it (not an error: " \
        "a pico-buttons board carries no oware endgame table" in said, said
    assert "board console: book: no /tables/oware.book; playing on without it (not an error: " \
        "only kalah has an opening book" in said, said
    assert "board console: start: pico-buttons; engine" in said
    b.run(sim.MESSAGE_MS)
    assert "board console" not in plain(screen(b, console.lines(b.clock.now())))


def test_the_notes_say_how_to_add_what_a_board_would_carry():
    pico = load_profile("pico_buttons")
    note = sim.console_note("tables: no /tables/kalah.tb; playing on without it", pico)
    assert note.startswith("not an error: ") and "`make tablebase`" in note and \
        "`make deploy`" in note and "`make play`" in note, note
    note = sim.console_note("book: no /tables/kalah.book; playing on without it", pico)
    assert note.startswith("not an error: ") and "`make deploy`" in note, note
    note = sim.console_note("tables: no /tables/oware.tb; playing on without it",
                            load_profile("pico2_buttons"))  # the Pico 2 carries oware's
    assert "`make tablebase`" in note, note
    # a damaged table, the start line and the memory lines are what they say: no note
    for line in ("tables: /tables/kalah.tb: bad header; playing on without it",
                 "start: pico-buttons; engine bytecode (the PC runs no machine code), table 2**12",
                 "memory: no room for the endgame table: playing without it"):
        assert sim.console_note(line, pico) == "", line


def test_the_real_terminal_shows_the_notes(state):
    p = Pty("--state", state, "--fresh", "--variant", "oware", "--two")
    try:
        assert p.wait_for("only kalah has an opening book"), p.out[-3000:]
        text = plain(p.out.decode("utf-8", "replace"))
        assert "carries no oware endgame table" in text, text[-3000:]
        p.send(b"\x1b")
        assert p.exit_status() == 0
    finally:
        p.close()


# -- 8: a terminal too small, a size that changes --------------------------------------

def test_a_terminal_too_small_is_said_instead_of_a_board_in_fragments(state):
    b, console = boot(state, "--fresh", "--variant", "kalah", "--two")
    for cols, lines in ((60, 24), (40, 30), (120, 20)):
        text = screen(b, size=(cols, lines))
        fits(text, cols, lines)
        said = " ".join(r.strip() for r in rows(text))
        assert "this terminal is %d x %d" % (cols, lines) in said, said
        assert "needs 80 x 24" in said and "[a] S1" not in said, said
    text = screen(b, size=(80, 24))  # the least that fits: the board
    fits(text)
    assert "[a] S1 4" in plain(text) and "needs 80 x 24" not in text


def winsize(p, lines, cols):
    """Resize the pseudo-terminal (its foreground process gets SIGWINCH)."""
    fcntl.ioctl(p.fd, termios.TIOCSWINSZ, struct.pack("HHHH", lines, cols, 0, 0))


def wait_after(p, mark, text, seconds=20):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        p.read(0.1)
        if text.encode() in p.out[mark:]:
            return True
    return False


def test_resizing_mid_game_redraws_and_says_when_too_small(state):
    p = Pty("--state", state, "--fresh", "--variant", "kalah", "--two")
    try:
        assert p.wait_for("South to move"), p.out[-2000:]
        mark = len(p.out)
        winsize(p, 40, 60)
        assert wait_after(p, mark, "needs 80 x 24"), p.out[mark:]
        assert b"this terminal is 60 x 40" in p.out[mark:]
        mark = len(p.out)
        winsize(p, 30, 100)  # large enough again: the board at once, nothing pressed
        assert wait_after(p, mark, "South to move"), p.out[mark:]
        p.send(b"\x1b")
        assert p.exit_status() == 0
    finally:
        p.close()


def test_the_player_guides_give_the_terminals_minimum():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for name, want in (("PLAYER_GUIDE.md", "at least 80 columns by 24 lines"),
                       ("PLAYER_GUIDE.ru.md", "не меньше 80 столбцов и 24 строк")):
        with open(os.path.join(root, "docs", name), encoding="utf-8") as f:
            text = " ".join(f.read().split())
        i = text.index("(`make play`)")  # the simulator's section
        assert want in text[i:i + 600], name


# -- 9: keys in one burst, keys the board does not have --------------------------------

def test_parse_keys_names_the_keys_the_board_lacks():
    assert sim.parse_keys(b"x!\x1bOP\x1b[15~\x1b[A \r\t\x7f") == \
        ["x", "!", "F1", "F5", "Up", "space", "Enter", "Tab", "Backspace"]
    assert sim.parse_keys(b"\x1b[<0;3;4Ma") == ["a"]  # a mouse report is no key
    assert sim.parse_keys("ф".encode()) == ["ф"]
    assert "quit" not in sim.parse_keys(b"\x1b[A\x1bOP\x1b[1;5C")


def run_keys(b, keys, ms):
    """Let `ms` of board time pass, the keys served between the loop's turns."""
    for _ in range(ms // 20):
        b.run(20)
        keys.step(b.clock.now())


def test_a_burst_is_presses_in_order(state):
    b, console = boot(state, "--fresh", "--variant", "kalah", "--two", "--coaching", "off")
    keys = sim.Keys(b, console)
    keys.feed(["s"], b.clock.now())  # S2: four stones, for S3 S4 S5 S6
    run_keys(b, keys, 400)
    assert b.mode() == "sow"
    keys.feed(list("dfgh"), b.clock.now())  # pasted: one burst
    run_keys(b, keys, 1000)
    assert b.until(("select",), 3000) and b.app.game.side == 1, b.mode()
    assert b.app.game.pos[:7] == bytearray([4, 0, 5, 5, 5, 5, 0])


def test_the_same_key_twice_is_two_presses(state):
    b, console = boot(state, "--fresh", "--variant", "kalah", "--two")
    seen = []
    press, release = b.press, b.release
    b.press = lambda i: (seen.append((b.clock.now(), "down", i)), press(i))
    b.release = lambda i: (seen.append((b.clock.now(), "up", i)), release(i))
    keys = sim.Keys(b, console)
    keys.feed(["j", "j"], b.clock.now())
    run_keys(b, keys, 1000)
    assert [(e[1], e[2]) for e in seen] == [("down", 6), ("up", 6), ("down", 6), ("up", 6)]
    assert seen[2][0] - seen[1][0] >= 50  # up long enough to be two presses


def test_chord_keys_are_still_chords(state):
    b, console = boot(state, "--fresh", "--variant", "kalah", "--two")
    seen = []
    press = b.press
    b.press = lambda i: (seen.append((b.clock.now(), i)), press(i))
    keys = sim.Keys(b, console)
    keys.feed(["a", "u"], b.clock.now())  # a move, then the takeback (S1 + S6 together)
    run_keys(b, keys, 400)
    assert [i for _, i in seen] == [0, 0, 5] and seen[1][0] == seen[2][0] > seen[0][0]
    assert b.mode() == "select" and b.app.game.ply == 0  # sowing S1 taken back
    keys.feed(["m"], b.clock.now())  # both stores held: the menu
    run_keys(b, keys, 3400)
    assert b.mode() == "menu"


def test_an_unknown_key_gets_one_line_naming_it(state):
    b, console = boot(state, "--fresh", "--variant", "kalah", "--two")
    keys = sim.Keys(b, console)
    keys.feed(["x", "!", "F1"], b.clock.now())
    run_keys(b, keys, 200)
    keys.feed(["x", "ф"], b.clock.now())  # again: the same line, one more key named
    run_keys(b, keys, 200)
    assert b.mode() == "select" and b.app.game.ply == 0
    said = [t for p, t in console.lines(b.clock.now()) if not t.startswith(("start:", "tables:",
                                                                           "book:"))]
    assert len(said) == 1, said
    assert said[0].startswith("x ! F1 ф: not keys of this board"), said
    assert "Latin" in said[0]  # a Cyrillic layout's letters
    text = screen(b, console.lines(b.clock.now()))
    fits(text)
    assert "x ! F1 ф: not keys of this board" in plain(text)


def test_a_key_held_down_queues_a_bounded_number_of_presses(state):
    b, console = boot(state, "--fresh", "--variant", "kalah", "--two")
    keys = sim.Keys(b, console)
    keys.feed(["a"] * (keys.MOST + 8), b.clock.now())  # autorepeat
    assert len(keys.queue) == keys.MOST - 1 and keys.down is not None
    said = [t for _, t in console.lines(b.clock.now()) if t.startswith("8 keys left out")]
    assert said, console.lines(b.clock.now())


def test_the_real_terminal_plays_a_pasted_burst_and_names_unknown_keys(state):
    p = Pty("--state", state, "--fresh", "--variant", "kalah", "--two", "--coaching", "off")
    try:
        assert p.wait_for("South to move"), p.out[-2000:]
        p.send(b"s")
        assert p.wait_for("mode: sow"), p.out[-2000:]
        p.send(b"dfgh")  # one write: one burst
        assert p.wait_for("North to move"), p.out[-2000:]
        p.send(b"x\x1bOP")
        assert p.wait_for("x F1: not keys of this board"), p.out[-2000:]
        p.send(b"\x1b")
        assert p.exit_status() == 0
    finally:
        p.close()


# -- 10: the counts on the set-up screens ----------------------------------------------

def labels(text):
    """{pit name: the label's count} read off the drawn board."""
    return {m.group(1): int(m.group(2)) for m in
            re.finditer(r"\[.\] ([SN][1-6S]) (\d+)", plain(text))}


@pytest.mark.parametrize("choice,task", [(2, lambda: PZ.read("kalah", 1)),
                                         (3, lambda: L.get("kalah", 1))])
def test_puzzle_and_lesson_set_up_screens_show_the_counts(state, choice, task):
    b, console = boot(state, "--fresh")
    for pit in ("SS", "SS", "N%d" % choice, "NS"):  # the play item, puzzles / the course
        b.tap(pit)
    assert b.mode() in ("puzzle", "course"), b.mode()
    want = list(task().counts)
    got = labels(screen(b))
    assert [got[n] for n in sim.PIT_NAMES] == want, got
    for i in range(14):  # confirmed pit by pit: the counts stay
        if want[i]:
            b.tap(sim.PIT_NAMES[i])
    got = labels(screen(b))
    assert [got[n] for n in sim.PIT_NAMES] == want, got
    assert "your move" in plain(screen(b))
    from mancala.modes import MODES

    pit = next(k for k in range(6) if MODES[b.app.mode].offered() >> k & 1 and want[k])
    b.tap(sim.PIT_NAMES[pit])  # sowing: the stones are in the hand, the pit shows 0
    got = labels(screen(b))
    assert got[sim.PIT_NAMES[pit]] == 0 and sum(got.values()) == sum(want) - want[pit], got
