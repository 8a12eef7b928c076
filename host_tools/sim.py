"""The simulated board in the terminal: the firmware's own main loop on fake pins.

  make play                      pico_buttons, kalah, against the computer (strong)
  make play ARGS="--variant oware --level master --profile esp32"
  python -m host_tools.sim --headless script.txt     (or - for stdin)

Interactive keys (the board seen from South):
      q w e r t y   = N6 N5 N4 N3 N2 N1        ` = North store (left)
      a s d f g h   = S1 S2 S3 S4 S5 S6        j = South store (right)
  a capital letter holds that pit 1.5 s;  u = take back (S1+S6),  i = hint (S3+S4),
  U / I = the same on the North row;  o = both stores (ranok: agree),
  m = hold both stores (menu / new game);  Ctrl-C or Esc quits.
  The game is kept in sim_state/ (delete it, or --fresh, to start over).

Headless script, one command per line ('#' comments):
  tap PIT [MS] | press PIT | release PIT | hold PIT [MS] | chord PIT PIT.. [MS]
  wait MS | until MODE [MS] | sow (tap each guided target until the move is sown)
PITs: S1..S6 SS N1..N6 NS.  Out: one JSON line per LED frame, with the counts
decoded from the pixel buffer through the profile's layout.
"""

import argparse
import json
import os
import select
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if os.path.join(ROOT, "firmware") not in sys.path:  # this checkout's firmware, not another's
    sys.path.insert(0, os.path.join(ROOT, "firmware"))
KEYS_S = "asdfgh"
KEYS_N = "ytrewq"  # N1..N6 (N1 is on the right, facing S6)
LEVEL_NAMES = ("person", "beginner", "amateur", "strong", "master")


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


def make_board(args, clock=None, log=None):
    from host_tools.fakes.board import SimBoard
    from host_tools.fakes.memfs import MemFs
    from mancala.hw.storage import OsFs

    machine, neopixel = _modules()
    if args.state:
        os.makedirs(args.state, exist_ok=True)
        if args.fresh:
            for sub in ("data/game.json", "data/settings.json"):
                p = os.path.join(args.state, sub)
                if os.path.exists(p):
                    os.remove(p)
        fs = OsFs(args.state)
    else:
        fs = MemFs()
    _settings(fs, args)
    return SimBoard(args.profile, machine, neopixel, fs=fs, clock=clock, seed=args.seed,
                    strict=args.strict, log=log)


# -- headless --------------------------------------------------------------------------

def run_script(board, lines, out):
    from host_tools.fakes.board import index

    last = [-1]

    def emit(app):
        f = board.frame()
        if f["frame"] != last[0]:
            last[0] = f["frame"]
            out.write(json.dumps(f) + "\n")

    board.app.on_frame = emit
    emit(board.app)
    for raw in lines:
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        w = line.split()
        cmd = w[0].lower()
        try:
            if cmd == "tap":
                board.tap(index(w[1]), int(w[2]) if len(w) > 2 else 100)
            elif cmd == "press":
                board.press(index(w[1]))
                board.run(20)
            elif cmd == "release":
                board.release(index(w[1]))
                board.run(20)
            elif cmd == "hold":
                board.hold(index(w[1]), int(w[2]) if len(w) > 2 else 1500)
            elif cmd == "chord":
                ms = 200
                names = w[1:]
                if names and names[-1].isdigit():
                    ms = int(names.pop())
                board.chord([index(n) for n in names], ms)
            elif cmd == "wait":
                board.run(int(w[1]))
            elif cmd == "until":
                board.until(tuple(w[1].split(",")), int(w[2]) if len(w) > 2 else 120000)
            elif cmd == "sow":
                board.sow()
            elif cmd in ("quit", "exit"):
                break
            else:
                raise ValueError("unknown command %r" % cmd)
        except (ValueError, IndexError) as e:
            out.write(json.dumps({"error": "%s: %s" % (line, e)}) + "\n")
        out.flush()


# -- interactive -------------------------------------------------------------------------

def _dots(buf, order, first, n, boost):
    s = []
    for i in range(first, first + n):
        j = 3 * i
        r, g, b = (min(255, buf[j + order[k]] * boost) for k in range(3))
        if r or g or b:
            s.append("\x1b[38;2;%d;%d;%dm\u25cf" % (r, g, b))
        else:
            s.append("\x1b[38;2;60;60;60m\u00b7")
    return "".join(s) + "\x1b[0m"


def draw(board, out, message=""):
    app = board.app
    buf = board.np.buf
    order = board.np.ORDER
    spans = board.profile["leds"]
    counts = board.counts()
    boost = max(1, 255 // max(1, app.px.levels[app.px.level]) // 2) if hasattr(app, "px") else 1

    def cell(i, width=14):
        first, n = spans[i]
        rows = []
        per = 6 if n > 1 else 1
        for k in range(0, n, per):
            rows.append(_dots(buf, order, first + k, min(per, n - k), boost))
        c = counts[i]
        label = "%s %s" % (("S1", "S2", "S3", "S4", "S5", "S6", "SS", "N1", "N2", "N3", "N4",
                            "N5", "N6", "NS")[i], "?" if c is None else c)
        return label, rows

    lines = ["\x1b[H\x1b[2J", "Mancala board simulator - %s, mode: %s   (%d mA est.)\r" %
             (board.profile["name"], board.mode(),
              app.px.estimate_ma(board.profile["idle_ma_per_led"]) if hasattr(app, "px") else 0)]
    lines.append("\r")
    for row, keys in ((range(12, 6, -1), "qwerty"), (range(0, 6), "asdfgh")):
        cells = [cell(i) for i in row]
        height = max(len(c[1]) for c in cells)
        lines.append("        " + "".join("%-12s" % ("[%s] %s" % (keys[k], cells[k][0]))
                                          for k in range(6)) + "\r")
        for h in range(height):
            lines.append("        " + "".join(
                (cells[k][1][h] if h < len(cells[k][1]) else "") + "      "
                for k in range(6)) + "\r")
        if row.start == 12:
            ns, ss = cell(13), cell(6)
            lines.append("[`] %s%s[j] %s\r" % (ns[0], " " * 62, ss[0]))
            for h in range(max(len(ns[1]), len(ss[1]))):
                a = ns[1][h] if h < len(ns[1]) else ""
                b = ss[1][h] if h < len(ss[1]) else ""
                lines.append(" %s%s%s\r" % (a, " " * 64, b))
    lines.append("\r")
    lines.append("keys: pits as shown, capital = hold 1.5 s, u/U takeback, i/I hint, "
                 "o both stores, m menu (hold both stores), Esc quits\r")
    lines.append("menu: S row + S store pick a setting, N row its value, N store starts\r")
    lines.append(message + "\r")
    out.write("\n".join(lines))
    out.flush()


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


def interactive(args):
    import termios
    import tty

    from host_tools.fakes.board import index

    clock = TerminalClock()
    msg = [""]

    def log(s):
        msg[0] = s

    board = make_board(args, clock=clock, log=log)
    fd = sys.stdin.fileno()
    old = termios.tcgetattr(fd)
    tty.setcbreak(fd)
    releases = []  # (time, pits)
    app = board.app
    last_frame = [-1]
    out = sys.stdout

    def serve():
        now = clock.now()
        while select.select([sys.stdin], [], [], 0)[0]:
            ch = os.read(fd, 1).decode(errors="ignore")
            if ch in ("\x1b", "\x03"):
                raise Quit()
            hold = 100
            pits = None
            low = ch.lower()
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
            if pits and ch.isupper() and ch.lower() in KEYS_S + KEYS_N:
                hold = 1500
            if pits:
                for p in pits:
                    board.press(index(p))
                releases.append((now + hold, pits))
        for item in list(releases):
            if clock.diff(now, item[0]) >= 0:
                for p in item[1]:
                    board.release(index(p))
                releases.remove(item)
        fn = getattr(app, "frame_no", 0)
        if fn != last_frame[0] and hasattr(app, "px"):
            last_frame[0] = fn
            draw(board, out, msg[0])

    clock.idle = serve
    out.write("\x1b[?25l")
    if not hasattr(app, "px"):  # a bad profile: the console says why
        out.write("\r\n".join(board.lines) + "\r\n")
    try:
        app.run()  # the firmware's main loop, as on the board
    except (Quit, KeyboardInterrupt):
        pass
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, old)
        out.write("\x1b[?25h\n")


def parse_args(argv=None):
    from mancala.rules import VARIANTS

    ap = argparse.ArgumentParser(prog="python -m host_tools.sim", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    from mancala import profiles

    ap.add_argument("--profile", default="pico_buttons",
                    choices=profiles.NAMES + tuple(n.replace("_", "-") for n in profiles.NAMES),
                    help="board profile")
    ap.add_argument("--variant", choices=VARIANTS + ("kalah3", "kalah5", "kalah6"),
                    help="variant set in the menu")
    ap.add_argument("--level", choices=LEVEL_NAMES[1:], help="the computer's level")
    ap.add_argument("--two", action="store_true", help="two people, no computer")
    ap.add_argument("--quick", action="store_true", help="quick mode: the board sows itself")
    ap.add_argument("--coaching", choices=("on", "off"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--state", default=None,
                    help="folder keeping /data (interactive default: sim_state/)")
    ap.add_argument("--fresh", action="store_true", help="forget the saved game and settings")
    ap.add_argument("--strict", action="store_true", help="raise on a firmware error")
    ap.add_argument("--headless", metavar="SCRIPT", nargs="?", const="-",
                    help="run a script (file, or - for stdin); JSON frames on stdout")
    args = ap.parse_args(argv)
    if args.headless is None and args.state is None:
        args.state = os.path.join(ROOT, "sim_state")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.headless is not None:
        from mancala.hw.clock import ManualClock

        board = make_board(args, clock=ManualClock(1000),
                           log=lambda s: sys.stderr.write(s + "\n"))
        src = sys.stdin if args.headless == "-" else open(args.headless)
        run_script(board, src, sys.stdout)
        return 0
    if not sys.stdin.isatty():
        sys.stderr.write("make play needs a terminal (use --headless for scripts)\n")
        return 2
    interactive(args)
    return 0


if __name__ == "__main__":
    t0 = time.time()
    sys.exit(main())
