"""The simulated board in the terminal: the firmware's own main loop on fake pins.

  make play                      pico_buttons, kalah, against the computer (amateur)
  make play ARGS="--variant oware --level master --profile esp32"
  python -m host_tools.simulators.sim --headless script.txt     (or - for stdin)

Interactive keys (the board seen from South):
      q w e r t y   = N6 N5 N4 N3 N2 N1        ` = North store (left)
      a s d f g h   = S1 S2 S3 S4 S5 S6        j = South store (right)
  a capital letter holds that pit 1.5 s;  u = take back (S1+S6),  i = hint (S3+S4),
  U / I = the same on the North row;  o = both stores (ranok: agree),
  m = hold both stores (menu / new game);  Esc (alone) or Ctrl-C quits.
  z = let the quiet time pass now (the board dims; again: dark; any pit wakes it);
  with --battery MV (the battery option, hardware/battery.md): - / + lower / raise
  the simulated cell by 50 mV, p plugs USB in or out.
  The line under the board says what the board waits for.  Keys typed fast or pasted
  are pressed one after another (the chords are u U i I o m); a key the board does
  not have is named in a line.  The terminal needs 80 x 24 at least: a smaller one
  is told so, and the board is drawn again when the window's size changes.
  "tables: no ..." and "book: no ..." on the board's console are normal (the line says
  why and how to add them: `make tablebase`, `make deploy`).
  The game is kept in sim_state/: the next `make play` goes on with it.  --variant,
  --level and --two ask for a new game and start it at once (no menu); while another
  game, puzzle or lesson is under way they are refused with a word, and --fresh
  drops that (the puzzles' progress is kept).  --fresh alone: the menu, with the
  settings forgotten.  If the simulator is killed (kill -9) the terminal is left
  without echo: type `stty sane` (or `reset`) and Enter.

Headless script, one command per line ('#' comments); it starts where the board
boots (the menu, or with --state the game saved there) and presses the keys itself:
  tap PIT [MS] | press PIT | release PIT | hold PIT [MS] | chord PIT PIT.. [MS]
  wait MS | until MODE[,MODE..] [MS] | sow (carry out the guided sowing) | quit
  battery MV (the simulated cell, with --battery; 4700: on USB)
PITs: S1..S6 SS N1..N6 NS; MS: 1..600000 (board time); MODEs: boot menu select sow
think show anim grade blunder over sensor_test led_test error.
Out: one JSON line per LED frame ({"frame", "t", "mode", "counts", "bg"}), the counts
decoded from the pixel buffer through the profile's layout.  A command that cannot
run, or an `until` that times out, writes {"error": "line N: ...", "line": N} and the
script goes on; the exit status is then 1 (0: every command ran; 2: bad options).
"""

import argparse
import json
import os
import re
import select
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if os.path.join(ROOT, "firmware") not in sys.path:  # this checkout's firmware, not another's
    sys.path.insert(0, os.path.join(ROOT, "firmware"))
KEYS_S = "asdfgh"
KEYS_N = "ytrewq"  # N1..N6 (N1 is on the right, facing S6)
LEVEL_NAMES = ("person", "beginner", "amateur", "strong", "master")
PIT_NAMES = ("S1", "S2", "S3", "S4", "S5", "S6", "SS", "N1", "N2", "N3", "N4", "N5", "N6", "NS")
PIT_KEYS = tuple(KEYS_S) + ("j",) + tuple(KEYS_N) + ("`",)
MAX_MS = 600000  # the longest press, wait or until of a headless script (10 board minutes)
HEADLESS_MODES = ("boot", "menu", "select", "sow", "think", "show", "anim", "grade", "blunder",
                  "over", "sensor_test", "led_test", "error", "puzzle", "course")


class SimError(Exception):
    """Bad options or a saved game they do not fit: one line, exit status 2."""


def _modules():
    from host_tools.fakes import machine, neopixel

    return machine, neopixel


def _settings(fs, args):
    """Write the flags into settings.json, as if chosen in the menu."""
    from mancala.hw import storage as S

    st = S.Storage(fs)
    status, s = st.load("settings.json")
    s = s if status == S.OK else {}
    from mancala.app import DEFAULTS

    for k, v in DEFAULTS.items():
        s.setdefault(k, v)
    if args.variant:
        s["variant"] = args.variant
    if args.level:
        s["opponent"] = LEVEL_NAMES.index(args.level)
    if args.two:
        s["opponent"] = 0
    if args.quick:
        s["quick"] = 1
    if args.coaching is not None:
        s["coaching"] = 1 if args.coaching == "on" else 0
    st.save("settings.json", s)


def _under_way(fs):
    """What the saved /data holds under way: ("game", Game, level), ("puzzle" or
    "course", variant, number), or None (nothing, or a finished game)."""
    from mancala import puzzles as PZ
    from mancala.hw import storage as S
    from mancala.notation import parse_record

    st = S.Storage(fs)
    status, s = st.load("settings.json")
    if status == S.OK and isinstance(s, dict) and s.get("play"):  # the board resumes it
        prog = PZ.load_progress(st)
        if prog.get("mode") in ("puzzle", "course"):
            return prog["mode"], str(prog.get("variant")), prog.get("number", 0)
    status, g = st.load("game.json")
    if status != S.OK:
        return None
    try:
        game = parse_record(g["record"])
        level = int(g["level"])
    except Exception:  # noqa: BLE001 - the board itself reports a damaged file
        return None
    return None if game.over else ("game", game, level)


def _wanted_level(args):
    return 0 if args.two else LEVEL_NAMES.index(args.level) if args.level else None


def check_saved_game(fs, args):
    """--variant/--level/--two choose a new game: refuse them (one line) when a
    different game, puzzle or lesson is under way, instead of silently playing the
    saved one (or switching a kalah puzzle under way to oware)."""
    what = _under_way(fs)
    if what is None:
        return
    clash = []
    want = _wanted_level(args)
    if what[0] == "game":
        game, level = what[1], what[2]
        if args.variant and args.variant != game.rules.id:
            clash.append("--variant %s (the game is %s)" % (args.variant, game.rules.id))
        if want is not None and want != level:
            clash.append("%s (the game is against %s)" % (
                "--two" if args.two else "--level " + args.level,
                "a person" if level == 0 else "the computer at " + LEVEL_NAMES[level]))
        under_way = "a game is in progress (%d moves)" % game.ply
    else:
        from mancala.modes.trainer import base_variant

        kind, variant, number = what
        if args.variant and base_variant(args.variant) != variant:
            clash.append("--variant %s (the %s is %s)" % (args.variant, kind, variant))
        if want is not None:  # a puzzle has no opponent: the flag means "play a game"
            clash.append("--two" if args.two else "--level " + args.level)
        under_way = "a %s %s is under way (%s %d)" % (
            variant, "puzzle" if kind == "puzzle" else "lesson of the course",
            "puzzle" if kind == "puzzle" else "lesson", number)
    if clash:
        raise SimError("%s: %s; %s %s to a new game: add --fresh to start one (%s), or "
                       "leave %s out to go on" % (
                           args.state, under_way, ", ".join(clash),
                           "apply" if len(clash) > 1 else "applies",
                           "the game under way is dropped" if what[0] == "game" else
                           "the puzzles' and lessons' progress is kept",
                           "them" if len(clash) > 1 else "it"))


def wants_new_game(args):
    """--variant, --level or --two: the person asked for that game."""
    return bool(args.variant or args.level or args.two)


def start_new_game(fs, args):
    """Start the game the flags ask for at once, as the menu's North store would:
    the board boots into it (a game.json as the menu's new game saves it), not into
    the menu where one more key had to be found."""
    import random

    from mancala.game import Game
    from mancala.hw import storage as S
    from mancala.notation import format_record
    from mancala.rules import get_rules

    st = S.Storage(fs)
    s = st.load("settings.json")[1]  # (_settings wrote it: the flags and the defaults)
    rules = get_rules(s["variant"])
    side = s["starter"] if s["starter"] < 2 else random.randrange(2)  # "by lot"
    opp = s["opponent"]
    number = st.next_game_number(0)
    st.save("game.json", {"record": format_record(Game(rules, rules.start(side))),
                          "number": number, "human": 3 if opp == 0 else 1, "level": opp,
                          "hints": s["hints"]})
    if s.get("play"):  # a game, not the puzzles: what the flags asked for
        s["play"] = 0
        st.save("settings.json", s)


def make_board(args, clock=None, log=None, start_now=False):
    """The board on fake pins with args' settings.  start_now (the interactive
    simulator): --variant/--level/--two with nothing under way start that game at
    once (a script presses the keys itself, from the board's boot)."""
    from host_tools.fakes.board import SimBoard
    from host_tools.fakes.memfs import MemFs
    from mancala.hw.storage import OsFs

    machine, neopixel = _modules()
    if args.state:
        try:
            os.makedirs(args.state, exist_ok=True)
        except OSError as e:
            raise SimError("--state %s: %s" % (args.state, e.strerror)) from None
        if args.fresh:
            for sub in ("data/game.json", "data/settings.json"):
                p = os.path.join(args.state, sub)
                if os.path.exists(p):
                    os.remove(p)
        fs = OsFs(args.state)
        check_saved_game(fs, args)
    else:
        fs = MemFs()
    _settings(fs, args)
    if start_now and wants_new_game(args) and _under_way(fs) is None:
        start_new_game(fs, args)
    profile = args.profile
    mv = getattr(args, "battery", None)
    if mv is not None:  # the battery option (hardware/battery.md) on this Pico build
        from host_tools.generators.battery_budget import with_battery
        from mancala.profiles import load

        profile = load(args.profile)
        if profile["mcu"] != "rp2040":
            raise SimError("--battery: only the Pico builds have the battery option "
                           "(an ESP32 board has no VSYS to read)")
        profile = with_battery(profile)
    # the deployed board's engine: its chip's Master and coach (engine.NATIVE_BUDGETS)
    b = SimBoard(profile, machine, neopixel, fs=fs, clock=clock, seed=args.seed,
                 strict=args.strict, log=log, native=True)
    # a think in loop turns, as the page's: the budget ends it, as on the board (the
    # long slices' in-slice pit reads, each charged a turn's 2.4 ms, would take a third
    # of the think at the kernels' rate, the register watch that spares the board them
    # being the kernel's alone)
    b.app.LONG_SLICE_MS = b.app.FRAME_MS
    # ... and Master's think ends by its budget, not the PC's clock (the terminal's is
    # the PC's real time: a slow PC would search less than the board)
    b.app.MASTER_MS = None
    if mv is not None:
        b.set_battery(mv)
        b.app.idle.watch.t_battery -= b.app.idle.watch.BATTERY_MS  # read at the first turn
    return b


# -- headless --------------------------------------------------------------------------

def _ms(word, what="MS"):
    """A duration in board milliseconds, 1..MAX_MS."""
    if not word.isdigit():
        raise ValueError("%s must be a whole number of milliseconds, got %r" % (what, word))
    if len(word) > 7 or not 1 <= int(word) <= MAX_MS:
        raise ValueError("%s must be 1..%d, got %s" % (what, MAX_MS, word))
    return int(word)


def _pit(word):
    from host_tools.fakes.board import index

    try:
        return index(word)
    except ValueError:
        raise ValueError("unknown pit %r (S1..S6, SS, N1..N6, NS)" % word) from None


def _args(w, least, most):
    if not least <= len(w) - 1 <= most:
        want = "%d" % least if least == most else "%d..%d" % (least, most)
        raise ValueError("%s takes %s argument(s), got %d" % (w[0], want, len(w) - 1))


def run_line(board, w):
    """One script command (words); ValueError names what is wrong."""
    cmd = w[0].lower()
    if cmd == "tap":
        _args(w, 1, 2)
        board.tap(_pit(w[1]), _ms(w[2]) if len(w) > 2 else 100)
    elif cmd in ("press", "release"):
        _args(w, 1, 1)
        pit = _pit(w[1])
        (board.press if cmd == "press" else board.release)(pit)
        board.run(20)
    elif cmd == "hold":
        _args(w, 1, 2)
        board.hold(_pit(w[1]), _ms(w[2]) if len(w) > 2 else 1500)
    elif cmd == "chord":
        names = w[1:]
        ms = _ms(names.pop()) if names and names[-1].isdigit() else 200
        if len(names) < 2:
            raise ValueError("chord takes two or more pits, got %d" % len(names))
        board.chord([_pit(n) for n in names], ms)
    elif cmd == "wait":
        _args(w, 1, 1)
        board.run(_ms(w[1]))
    elif cmd == "until":
        _args(w, 1, 2)
        modes = tuple(w[1].lower().split(","))
        for m in modes:
            if m not in HEADLESS_MODES:
                raise ValueError("unknown mode %r (%s)" % (m, " ".join(HEADLESS_MODES)))
        limit = _ms(w[2]) if len(w) > 2 else 120000
        if not board.until(modes, limit):
            raise ValueError("not in %s after %d ms (mode: %s)" % (w[1], limit, board.mode()))
    elif cmd == "battery":
        _args(w, 1, 1)
        if not board.profile.get("battery"):
            raise ValueError("this board has no battery (run with --battery MV)")
        board.set_battery(_ms(w[1], "MV"))
        board.run(20)
    elif cmd == "sow":
        _args(w, 0, 0)
        if board.mode() not in ("show", "sow"):
            raise ValueError("nothing to sow (mode: %s)" % board.mode())
        board.sow()
    else:
        raise ValueError("unknown command %r (tap press release hold chord wait until sow "
                         "battery quit)" % w[0])


def _printable(text):
    """A line as it may be shown: control characters escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def run_script(board, lines, out):
    """Run a script (lines of bytes or str); returns the number of error lines."""
    last = [-1]

    def emit(app):
        f = board.frame()
        if f["frame"] != last[0]:
            last[0] = f["frame"]
            out.write(json.dumps(f) + "\n")

    board.app.on_frame = emit
    emit(board.app)
    errors = 0
    for number, raw in enumerate(lines, 1):
        if isinstance(raw, bytes):
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError:
                errors += 1
                out.write(json.dumps({"error": "line %d: not UTF-8 text" % number,
                                      "line": number}) + "\n")
                continue
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        w = line.split()
        if w[0].lower() in ("quit", "exit"):
            break
        try:
            run_line(board, w)
        except (ValueError, AssertionError) as e:
            errors += 1
            out.write(json.dumps({"error": "line %d: %s: %s" % (number, _printable(line), e),
                                  "line": number}) + "\n")
        out.flush()
    return errors


# -- interactive -------------------------------------------------------------------------

# the names of the escape sequences a terminal sends for keys a board does not have
CSI_NAMES = {"A": "Up", "B": "Down", "C": "Right", "D": "Left", "H": "Home", "F": "End",
             "Z": "Shift+Tab", "P": "F1", "Q": "F2", "R": "F3", "S": "F4"}
TILDE_NAMES = {1: "Home", 2: "Insert", 3: "Delete", 4: "End", 5: "PageUp", 6: "PageDown",
               7: "Home", 8: "End", 11: "F1", 12: "F2", 13: "F3", 14: "F4", 15: "F5",
               17: "F6", 18: "F7", 19: "F8", 20: "F9", 21: "F10", 23: "F11", 24: "F12"}
CONTROL_NAMES = {0x00: "Ctrl+Space", 0x08: "Backspace", 0x09: "Tab", 0x0A: "Enter",
                 0x0D: "Enter", 0x20: "space", 0x7F: "Backspace"}


def _sequence_name(intro, params, final):
    """An escape sequence's key name ("F1", "Up", or the sequence itself)."""
    if final == "~":
        first = params.split(";")[0]
        if first.isdigit() and int(first) in TILDE_NAMES:
            return TILDE_NAMES[int(first)]
    elif final in CSI_NAMES:
        return CSI_NAMES[final]
    return "Esc %s%s%s" % (intro, params, final)


def _plain_key(data, i):
    """(the name of the key at data[i], not an Esc or Ctrl-C, the index after it)."""
    c = data[i]
    if c in CONTROL_NAMES:
        return CONTROL_NAMES[c], i + 1
    if c < 0x20:
        return "Ctrl+" + chr(c + 0x40), i + 1
    if c < 0x7F:
        return chr(c), i + 1
    size = 2 if c < 0xE0 else 3 if c < 0xF0 else 4  # another alphabet's letter (UTF-8)
    return data[i:i + size].decode("utf-8", "replace")[:1], i + size


def parse_keys(data):
    """Bytes read from the terminal -> key names: a printable key as typed ("a", "!",
    "\u0444"), the others named ("F1", "Up", "Enter", "space", "Ctrl+B", "Alt+a"),
    "quit" for a lone Esc (or two) or Ctrl-C.  An escape sequence (an arrow, a
    function key) is one key, never an Esc; a mouse report is no key at all."""
    keys = []
    i = 0
    n = len(data)
    while i < n:
        c = data[i]
        if c == 0x03:
            keys.append("quit")
            i += 1
        elif c != 0x1B:
            name, i = _plain_key(data, i)
            keys.append(name)
        elif i + 1 >= n or data[i + 1] == 0x1B:
            keys.append("quit")  # Esc alone (or pressed twice)
            i += 2
        elif data[i + 1] in b"[O":
            j = i + 2
            while j < n and not 0x40 <= data[j] <= 0x7E:
                j += 1  # parameters up to the final byte
            params = data[i + 2:j].decode("ascii", "replace")
            final = chr(data[j]) if j < n else ""
            if data[i + 1:i + 2] == b"[" and final == "M" and not params:
                j += 3  # an old-style mouse report: three bytes follow
            elif not params.startswith("<") and final:  # ("<": a mouse report)
                keys.append(_sequence_name(chr(data[i + 1]), params, final))
            i = j + 1
        else:  # Alt+key: named, not played (the key without Alt would surprise)
            name, i = _plain_key(data, i + 1)
            keys.append("Alt+" + name)
    return keys


def read_keys(fd, wait_s=0.03):
    """What the terminal has sent; an Esc at the end waits a moment for the rest of
    its sequence (a slow link may split it)."""
    data = os.read(fd, 256)
    while data.endswith(b"\x1b") or data[-3:-1] == b"\x1b[" or data[-2:] == b"\x1bO":
        if not select.select([fd], [], [], wait_s)[0]:
            break
        data += os.read(fd, 256)
    return parse_keys(data)


def key_to_press(ch):
    """A key -> (pits, hold ms) or None (a key the board does not have)."""
    if len(ch) != 1:
        return None  # a named key (F1, Up, Enter ...)
    low = ch.lower()
    hold = 100
    pits = None
    if low in KEYS_S:
        pits = ["S%d" % (KEYS_S.index(low) + 1)]
    elif low in KEYS_N:
        pits = ["N%d" % (KEYS_N.index(low) + 1)]
    elif ch == "j":
        pits = ["SS"]
    elif ch == "`":
        pits = ["NS"]
    elif ch == "u":
        pits = ["S1", "S6"]
    elif ch == "U":
        pits = ["N1", "N6"]
    elif ch == "i":
        pits = ["S3", "S4"]
    elif ch == "I":
        pits = ["N3", "N4"]
    elif ch == "o":
        pits = ["SS", "NS"]
    elif ch == "m":
        pits, hold = ["SS", "NS"], 3000
    if pits is None:
        return None
    if ch.isupper() and low in KEYS_S + KEYS_N:
        hold = 1500
    return pits, hold


def explain(board):
    """What the board waits for, in words: the lines under the drawn board (the
    page's panel says the same, with clicks for keys: mancala/words.py)."""
    from mancala import words

    return words.explain(board.app, words.TERMINAL)


def _colour(buf, order, j, lift):
    r, g, b = (buf[3 * j + order[k]] for k in range(3))
    return r * lift, g * lift, b * lift


def _dots(buf, order, first, n, lift):
    """LEDs as terminal dots: full colour; a dim glow (1/6 or less of a full LED) as a
    hollow dot lifted to be seen on a dark terminal."""
    s = []
    for j in range(first, first + n):
        r, g, b = _colour(buf, order, j, lift)
        m = max(r, g, b)
        if not m:
            s.append("\x1b[38;2;60;60;60m\u00b7")
            continue
        glyph = "\u25cf"
        if m < 90:  # a glow: shown as a hollow dot at a brightness a terminal shows
            glyph = "\u25cb"
            k = 170.0 / m
            r, g, b = r * k, g * k, b * k
        s.append("\x1b[38;2;%d;%d;%dm%s" % (min(255, r), min(255, g), min(255, b), glyph))
    return "".join(s) + "\x1b[0m"


def _label(board, i):
    """A pit's label: the stones in it (the firmware's counts, not the glows of the
    LEDs; in a puzzle or a lesson the stones its position has, from the set-up on);
    nothing in the menu (the lines under the board name the items and their values)."""
    from mancala import words

    app = board.app
    if board.mode() in ("puzzle", "course"):  # a puzzle's or a lesson's: what it shows
        from mancala.modes import MODES

        shown = getattr(MODES[app.mode], "shown", None)
        return "" if shown is None else str(shown[i])
    return words.counts(app)[i]


CELL = 12  # columns per pit
# The screen fits a plain 80 x 24 terminal: 79 columns (a character in the 80th
# makes some terminals wrap), the board and its words in 24 rows.
WIDTH = 79
HEIGHT = 24
INDENT = WIDTH - 6 * CELL  # the pits' rows, between the stores' columns
STORE_PAD = CELL - 6  # a store's dots are 6 wide: its row ends at the last column


def fit(text):
    return text if len(text) <= WIDTH else text[:WIDTH - 3] + "..."


def wrap(text, first, rest):
    """`text` in lines of at most WIDTH columns: `first` before the first, `rest`
    before the others (the words a line under the board says, whole)."""
    import textwrap

    return textwrap.wrap(text, WIDTH, initial_indent=first, subsequent_indent=rest,
                         break_on_hyphens=False) or [first.rstrip()]


def too_small(size):
    """The screen of a terminal smaller than the board needs: the board would wrap into
    fragments.  `size` (columns, lines)."""
    import textwrap

    cols, rows = size
    text = "Mancala board simulator: this terminal is %d x %d; the board needs %d x %d. " \
        "Make the window larger: the board is drawn again at once (the game goes on " \
        "meanwhile; Esc quits)." % (cols, rows, WIDTH + 1, HEIGHT)
    lines = textwrap.wrap(text, max(cols - 1, 10), break_on_hyphens=False)[:max(rows, 1)]
    return "\x1b[H\x1b[2J" + "\r\n".join(lines)


def terminal_size(fd):
    """(columns, lines) of the terminal on `fd` (not $COLUMNS: the window's own), or None."""
    try:
        size = os.get_terminal_size(fd)
    except OSError:
        return None
    return (size.columns, size.lines) if size.columns and size.lines else None


def fits(size):
    return size is None or size[0] > WIDTH and size[1] >= HEIGHT


def draw(board, out, message="", size=None):
    """The board and the lines under it; `message`: a line of the board's console, or
    [(prefix, text)] (Console.lines); `size`: the terminal's (columns, lines), when
    known (too small: the screen says so instead)."""
    if not fits(size):
        out.write(too_small(size))
        out.flush()
        return
    app = board.app
    buf = board.np.buf
    order = board.np.ORDER
    spans = board.profile["leds"]
    lift = 1
    if hasattr(app, "px"):
        lift = 255.0 / max(1, app.px.levels[app.px.level])

    def cell(i):
        first, n = spans[i]
        rows = []
        per = 6 if n > 1 else 1
        for k in range(0, n, per):
            w = min(per, n - k)
            rows.append(_dots(buf, order, first + k, w, lift) + " " * (CELL - w))
        return "%s %s" % (PIT_NAMES[i], _label(board, i)), rows

    ma = app.px.estimate_ma(board.profile["idle_ma_per_led"]) if hasattr(app, "px") else 0
    lines = ["\x1b[H\x1b[2J" + fit("Mancala board simulator - %s, mode: %s   (%d mA est.)"
                                   % (board.profile["name"], board.mode(), ma)) + "\r"]
    indent = " " * INDENT
    for row, keys in ((range(12, 6, -1), "qwerty"), (range(0, 6), "asdfgh")):
        cells = [cell(i) for i in row]
        height = max(len(c[1]) for c in cells)
        lines.append(indent + "".join(("[%s] %s" % (keys[k], cells[k][0]))[:CELL - 1]
                                      .ljust(CELL) for k in range(6)).rstrip() + "\r")
        for h in range(height):
            lines.append(indent + "".join(
                cells[k][1][h] if h < len(cells[k][1]) else " " * CELL
                for k in range(6)) + "\r")
        if row.start == 12:  # the stores at the two ends, inside WIDTH columns
            ns, ss = cell(13), cell(6)
            right = "[j] " + ss[0]
            lines.append("[`] %s%s\r" % (ns[0], right.rjust(WIDTH - 4 - len(ns[0]))))
            for h in range(max(len(ns[1]), len(ss[1]))):
                a = ns[1][h] if h < len(ns[1]) else " " * CELL
                b = ss[1][h].rstrip() if h < len(ss[1]) else ""
                lines.append(" %s%s%s\r" % (a, " " * (WIDTH - 1 - 2 * CELL + STORE_PAD), b))
    power = _power_line(board)
    if power:
        lines.append(fit(power) + "\r")
    lines.append("keys: pits as shown, capital = hold 1.5 s, u/U takeback, i/I hint, "
                 "m menu, Esc\r")
    for text in explain(board):
        lines += [ln + "\r" for ln in wrap(text, ">> ", "   ")]
    if isinstance(message, str):
        message = [("board console: ", message)] if message else []
    room = HEIGHT - len(lines)  # the newest lines that fit the 24 rows, whole
    shown = []
    for prefix, text in reversed(message):
        w = wrap(text, prefix, "   ")
        if len(w) > room:
            if not shown and room > 0:
                shown = w[:room - 1] + [fit(w[room - 1] + " ...")]
            break
        shown = w + shown
        room -= len(w)
    lines += [ln + "\r" for ln in shown]
    out.write("\n".join(lines))
    out.flush()


def _power_line(board):
    """The idle state and the simulated battery (mancala/idle.py), in words."""
    idle = getattr(board.app, "idle", None)
    if idle is None:
        return ""
    words = {"awake": "awake", "dim": "dim: nobody played (a pit wakes it)",
             "dark": "dark: nobody played for long (a pit wakes it)",
             "waking": "waking (the press is not played)",
             "off": "dark: the battery is empty, charge it (p plugs USB in)"}
    text = "power: " + words[idle.state_name()]
    minutes = board.app.settings.get("idle", 0)
    text += ", idle after %s" % ("never" if not minutes else "%d min" % minutes)
    if idle.watch is not None:
        from mancala.hw.battery import percent

        mv = idle.watch.battery.mv
        text += ", battery %s" % ("on USB" if idle.watch.battery.on_usb() else
                                   "%d mV (%d %%)%s" % (mv, percent(mv),
                                                        " LOW" if idle.watch.low else ""))
    return text


def power_key(board, ch, state):
    """z, -, +, p: the quiet time passes now, the simulated cell (state: [mV, on USB])."""
    app = board.app
    idle = getattr(app, "idle", None)
    if idle is None:
        return False
    if ch == "z":
        idle.t_active -= max(1, app.settings.get("idle", 0) or 10) * 60000 * \
            (1 if idle.state_name() == "awake" else idle.DARK_AFTER)
        return True
    if idle.watch is None or ch not in ("-", "+", "=", "p"):
        return False
    if ch == "p":
        state[1] = not state[1]
    else:
        state[0] = max(3000, min(4200, state[0] + (50 if ch in "+=" else -50)))
    board.set_battery(4700 if state[1] else state[0])
    idle.watch.t_battery -= idle.watch.BATTERY_MS  # read at the next turn
    return True


class TerminalClock:
    """The real clock; while the firmware's loop sleeps, the terminal is served:
    keys become pit presses on the fake pins, new LED frames are drawn."""

    def __init__(self):
        from mancala.hw.clock import Clock

        self.clock = Clock()
        self.idle = None

    def now(self):
        return self.clock.now()

    def diff(self, a, b):
        return self.clock.diff(a, b)

    def sleep(self, ms):
        if self.idle is not None:
            self.idle()
        self.clock.sleep(ms)


class Quit(Exception):
    pass


MESSAGE_MS = 6000  # a console line stays under the board this long
# the board's lines about a table or a book its flash lacks (mancala/modes/menu.py)
MISSING = re.compile(r"^(tables|book): no /tables/(\w+)\.(?:tb|book); playing on without it$")


def console_note(line, profile):
    """What a console line that reads like an error means, when it is normal (an
    endgame table or an opening book the flash has not): "not an error: ..." and how
    to add it, as the page says (web/board.js NOTES); "" for any other line."""
    m = MISSING.match(line)
    if not m:
        return ""
    from host_tools.generators import tablebase as TB
    from host_tools.generators.book import book_path
    from mancala.rules import MENU_VARIANTS

    what, variant = m.groups()
    carried = TB.BOARD_SEEDS[TB.platform_of(profile["mcu"])]
    board = "a %s board" % profile["name"]
    if what == "tables":
        if TB.table_variant(variant) not in carried:
            return "not an error: %s carries no %s endgame table; the computer plays " \
                "by its search" % (board, variant)
        return "not an error: the endgame tables are not built yet: `make tablebase` " \
            "builds them, then the next `make play` takes them and `make deploy` sends " \
            "them to a board; until then the computer plays by its search"
    books = [v for v in MENU_VARIANTS if os.path.exists(book_path(v))]
    if variant not in books:
        return "not an error: %s; the computer plays the opening by its search" % (
            "only %s has an opening book" % " and ".join(books) if books else
            "no variant has an opening book yet")
    if variant not in carried:
        return "not an error: %s carries no %s opening book" % (board, variant)
    return "not an error: `make deploy` sends the opening book to a board (the next " \
        "`make play` takes it); until then the computer plays the opening by its search"


class Console:
    """The lines under the drawn board: the board's console, each line for MESSAGE_MS
    (several at once: the tables' and the book's lines come together at a start),
    a note after the ones that are normal (console_note); and the simulator's own
    words (say), one line per subject."""

    def __init__(self, clock, profile):
        self.clock = clock
        self.profile = profile
        self.entries = []  # [time, prefix, text, subject]

    def _add(self, prefix, text, subject):
        self.entries = [e for e in self.entries if e[2] != text and
                        (subject is None or e[3] != subject)]
        self.entries.append([self.clock.now(), prefix, text, subject])

    def log(self, line):
        """A line of the board's console (App.log)."""
        note = console_note(line, self.profile)
        self._add("board console: ", line + (" (%s)" % note if note else ""), None)

    def say(self, subject, text):
        """The simulator's own line about `subject` (a newer one replaces it)."""
        self._add("simulator: ", text, subject)

    def lines(self, now):
        """[(prefix, text)] of the lines to show now, the oldest first."""
        self.entries = [e for e in self.entries if self.clock.diff(now, e[0]) < MESSAGE_MS]
        return [(e[1], e[2]) for e in self.entries]


class Keys:
    """The terminal's keys as presses on the fake pins, one after another: a key goes
    down, is held its time (key_to_press), goes up, and the next goes down GAP_MS later.
    Keys that arrive together (typed fast, pasted: one read) are presses in order, never
    one gesture: a terminal cannot tell keys held together from keys typed fast.  The
    chords are the keys that press pits together (u U i I o m).  A key the board does
    not have gets one line that names it."""

    GAP_MS = 80  # up between two presses (SimBoard.tap's; past every sensor's debounce)
    MOST = 32  # presses waiting at most (a key held down repeats)

    def __init__(self, board, console, battery=None):
        self.board = board
        self.console = console
        self.cell = [battery or 3900, False]  # the simulated cell, on USB (power_key)
        self.queue = []  # [(pits, hold ms)]
        self.down = None  # (pits, when they go up)
        self.free = None  # when the next press may go down
        self.unknown = []  # the keys the unknown-key line names
        self.t_unknown = None
        self.changed = False  # a power key changed what the screen shows

    def feed(self, keys, now):
        """A burst of keys (parse_keys); raises Quit for Esc or Ctrl-C."""
        from host_tools.fakes.board import index

        bad = []
        dropped = 0
        for ch in keys:
            if ch == "quit":
                raise Quit()
            if power_key(self.board, ch, self.cell):
                self.changed = True
                continue
            press = key_to_press(ch)
            if press is None:
                bad.append(ch)
            elif len(self.queue) < self.MOST:
                self.queue.append(([index(p) for p in press[0]], press[1]))
            else:
                dropped += 1
        if bad:
            if self.t_unknown is None or self.board.clock.diff(now, self.t_unknown) >= MESSAGE_MS:
                self.unknown = []
            self.unknown += [k for k in bad if k not in self.unknown]
            self.t_unknown = now
            self.console.say("keys", unknown_keys(self.unknown))
        if dropped:
            self.console.say("queue", "%d keys left out: they came faster than the board "
                                      "takes them (%d are waiting)" % (dropped, self.MOST))
        self.step(now)

    def step(self, now):
        """Lift the pits whose time is up; press the next key's."""
        diff = self.board.clock.diff
        if self.down is not None and diff(now, self.down[1]) >= 0:
            for p in self.down[0]:
                self.board.release(p)
            self.down = None
            self.free = now + self.GAP_MS
        if self.down is None and self.queue and (self.free is None or diff(now, self.free) >= 0):
            pits, hold = self.queue.pop(0)
            for p in pits:
                self.board.press(p)
            self.down = (pits, now + hold)


def unknown_keys(keys):
    """The line for keys the board does not have, naming them."""
    shown = keys if len(keys) <= 8 else keys[:7] + ["..."]
    text = "%s: %s of this board (the pits' keys are in [ ])" % (
        " ".join(shown), "not a key" if len(keys) == 1 else "not keys")
    if any(len(k) == 1 and ord(k) > 0x7F and k.isalpha() for k in keys):
        text += "; switch the keyboard to a Latin layout"
    return text


def interactive(args):
    import signal
    import termios
    import tty

    clock = TerminalClock()
    # the endgame tables the board would carry, if `make tablebase` built them
    from host_tools.generators import tablebase
    from mancala.profiles import load as load_profile

    profile = load_profile(args.profile)
    tablebase.install_into(args.state, tablebase.platform_of(profile["mcu"]),
                           os.path.join(ROOT, tablebase.TABLES_DIR))
    console = Console(clock, profile)
    board = make_board(args, clock=clock, log=console.log, start_now=True)
    # keys are read between loop turns (TerminalClock.sleep): a think's long slice
    # (App.LONG_SLICE_MS, which a pin's edge ends on the board) would leave them unread
    board.app.LONG_SLICE_MS = board.app.FRAME_MS
    fd = sys.stdin.fileno()
    old = termios.tcgetattr(fd)
    tty.setcbreak(fd)
    keys = Keys(board, console, getattr(args, "battery", None))
    app = board.app
    last = [-1, None]  # (the frame drawn, the lines under it)
    size = [None, True]  # the terminal's (columns, lines); True: to be read again
    out = sys.stdout

    def on_signal(signum, frame):
        raise Quit()

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)  # leave the terminal as it was (kill -9 cannot)

    def on_resize(signum, frame):
        size[1] = True  # read at the next turn, and the screen drawn again

    signal.signal(signal.SIGWINCH, on_resize)

    def serve():
        now = clock.now()
        while select.select([fd], [], [], 0)[0]:
            keys.feed(read_keys(fd), now)
        keys.step(now)
        if size[1]:
            size[0], size[1] = terminal_size(out.fileno()), False
            last[0] = -1
        if keys.changed:
            keys.changed, last[0] = False, -1
        if not hasattr(app, "px"):
            return
        shown = console.lines(now)
        fn = (getattr(app, "frame_no", 0), board.np.writes)  # (idle frames: no frame_no)
        if not fits(size[0]):  # the same words until the size changes (no flicker)
            fn, shown = ("too small", size[0]), None
        if fn != last[0] or shown != last[1]:
            last[0], last[1] = fn, shown
            draw(board, out, shown or [], size[0])

    clock.idle = serve
    # the terminal's alternate screen: a frame redraws it in place, the scrollback
    # keeps what was there before (it took every frame: 99 boards in 40 s)
    out.write("\x1b[?1049h\x1b[?25l")
    if not hasattr(app, "px"):  # a bad profile: the console says why
        out.write("\r\n".join(board.lines) + "\r\n")
    try:
        app.run()  # the firmware's main loop, as on the board
    except (Quit, KeyboardInterrupt):
        pass
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, old)
        out.write("\x1b[?25h\x1b[?1049l")


def _profile_name(text):
    from mancala import profiles

    name = text.replace("-", "_")
    if name not in profiles.NAMES:
        raise argparse.ArgumentTypeError("unknown profile %r (%s)" % (text, ", ".join(profiles.NAMES)))
    return name


def _seed(text):
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not a whole number: %r" % text) from None
    if not 0 <= v < 2 ** 30:
        raise argparse.ArgumentTypeError("must be 0..%d, got %s" % (2 ** 30 - 1, text))
    return v


def parse_args(argv=None):
    from host_tools.argkit import Parser
    from mancala import profiles
    from mancala.rules import MENU_VARIANTS

    ap = Parser(prog="python -m host_tools.simulators.sim", description=__doc__,
                formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profile", default="pico_buttons", type=_profile_name,
                    metavar="PROFILE", help="board profile: %s (default pico_buttons)"
                    % ", ".join(profiles.NAMES))
    # what the board's menu offers (a variant the menu lacks would fall back to its
    # default in the settings' check: kalah5 started 4-seed kalah without a word;
    # not mancala.modes.menu itself: imported here, its menu items would be put
    # before the board's start puts them)
    ap.add_argument("--variant", choices=MENU_VARIANTS, help="variant of a new game")
    ap.add_argument("--level", choices=LEVEL_NAMES[1:],
                    help="the computer's level in a new game (default amateur)")
    ap.add_argument("--battery", type=int, metavar="MV", default=None,
                    help="the battery option of a Pico build, the cell at MV (hardware/battery.md)")
    ap.add_argument("--two", action="store_true", help="two people, no computer")
    ap.add_argument("--quick", action="store_true", help="quick mode: the board sows itself")
    ap.add_argument("--coaching", choices=("on", "off"))
    ap.add_argument("--seed", type=_seed, default=1)
    ap.add_argument("--state", default=None,
                    help="folder keeping /data (interactive default: sim_state/)")
    ap.add_argument("--fresh", action="store_true", help="drop the game under way and forget the settings (the puzzles' "
                    "progress is kept); with --variant/--level/--two that game starts")
    ap.add_argument("--strict", action="store_true", help="raise on a firmware error")
    ap.add_argument("--headless", metavar="SCRIPT", nargs="?", const="-",
                    help="run a script (file, or - for stdin); JSON frames on stdout")
    args = ap.parse_args(argv)
    if args.headless is None and args.state is None:
        args.state = os.path.join(ROOT, "sim_state")
    return args


def main(argv=None):
    from host_tools.argkit import UsageError, run_command

    def body(argv):
        args = parse_args(argv)
        try:
            if args.headless is not None:
                from mancala.hw.clock import ManualClock

                if args.headless == "-":
                    src = sys.stdin.buffer
                else:
                    try:
                        src = open(args.headless, "rb")
                    except OSError as e:
                        raise UsageError("cannot read %s: %s" % (args.headless, e.strerror)) from None
                board = make_board(args, clock=ManualClock(1000),
                                   log=lambda s: sys.stderr.write(s + "\n"))
                errors = run_script(board, src, sys.stdout)
                return 1 if errors else 0
            if not sys.stdin.isatty():
                raise UsageError("make play needs a terminal (use --headless for scripts)")
            interactive(args)
        except SimError as e:
            raise UsageError(str(e)) from None
        return 0

    return run_command("sim", body, argv)


if __name__ == "__main__":
    sys.exit(main())
