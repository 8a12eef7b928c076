"""Recorded headless scripts: every LED frame the board writes, kept in tests/data/frames/.

The board's loop was restructured into modes (issue 15); these recordings, made from the
code before that, pin down its behaviour frame by frame: each script drives the firmware
on the simulated board (host_tools/fakes, the manual clock and the Pico cost model), and
every write to the fake NeoPixel chain is kept with the board time, the mode and the status
LED.  tests/test_frames_recorded.py replays them and requires identical frames.
(Recorded at 259ccae, before the restructuring, and identical after it.  Five were recorded
again when issue 13's second round was merged, a deliberate change of behaviour: the hall
switches' 10 ms debounce moves taps 20 ms earlier, and kalah Master's quiescence and its
simulated cost change a hint's and a think's timing: sensor_test_hall, hint,
computer_strong_quick, course, master_ponder.  Two again in its third round: kalah
Master's quiescence nodes are charged at 1,220 nodes/s instead of 1,090, which moves a
hint's and a think's end by a millisecond, the same LEDs in the same order: hint,
master_ponder.)

  python tests/frame_scripts.py            record every script again (after a deliberate change)
  python tests/frame_scripts.py NAME..     record these
  python tests/frame_scripts.py --check    compare, print the first difference of each

A script is the headless simulator's commands (host_tools/simulators/sim.py: tap, press, release, hold,
chord, wait, until, sow), plus
  powercut        the power goes: a new board boots on the same flash (the clock goes on)
  flashfull       the flash refuses every write from now on
  ticks N MS      (error boards) N loop turns MS apart
  move K          the mover's pit K (1..6): tapped and sown as guided
  carry           the computer's moves carried out (a blunder pause kept) until a
                  person's turn or the end
  moves N         N times: carry, then the mover's first legal pit

File format (gzip of one JSON object, frames deduplicated): {"script", "bufs": [hex of each distinct
buffer], "frames": [[t, mode, status LED, index into bufs], ...]}.
"""

import gzip
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
for _p in (ROOT, os.path.join(ROOT, "firmware"), HERE):
    if _p not in sys.path:
        sys.path.insert(0, _p)

DATA = os.path.join(HERE, "data", "frames")

PLAIN = {"variant": "kalah", "opponent": 0, "starter": 0, "coaching": 0, "hints": 3,
         "brightness": 1, "quick": 0}


def _s(**kw):
    s = dict(PLAIN)
    s.update(kw)
    return s


def BlunderEngine(rules, tt_bits=12, seed=0):
    """The real engine, every move it grades a blunder (tests/test_board_play.py's)."""
    from test_board_play import BlunderEngine

    return BlunderEngine(rules, tt_bits, seed)


def _game(record, human=3, level=0, number=7, hints=3):
    def prep(fs):
        from mancala.hw.storage import Storage

        Storage(fs).save("game.json", {"record": record, "number": number, "human": human,
                                       "level": level, "hints": hints})
    return prep


def _corrupt(*names):
    def prep(fs):
        from mancala.hw.storage import Storage

        st = Storage(fs)
        st.save("settings.json", _s())
        st.save("game.json", {"record": "kalah 3 4", "number": 2, "human": 3, "level": 0,
                              "hints": 3})
        for n in names:
            path = "/data/" + n
            fs.files[path] = b"{\"broken" + fs.files[path][8:]
    return prep



def _battery(name):
    """A Pico profile with the battery option (hardware/battery.md)."""
    from mancala import profiles

    p = dict(profiles.load(name))
    p["battery"] = {"cell_mah": 3000}
    p["led_power_pin"] = 16
    return p


# name: (profile, settings (None: none saved), prep(fs) or None, engine, held pits, script)
SCRIPTS = {
    "menu": ("pico_buttons", None, None, None, (), """
        until menu 5000
        wait 700
        tap S2          # the opponent item
        tap N3          # amateur
        tap N6          # beyond the choices: red flash
        wait 600
        tap S1          # the variant
        tap N2          # mangala
        tap S3
        tap N2          # North starts
        tap S4
        tap N1          # coaching off
        tap S5
        tap N4
        tap S6
        tap N3          # brightness
        tap SS
        tap N2          # quick on
        tap SS
        tap N1          # quick off
        wait 800
        tap NS          # new game
        wait 500
        chord SS NS 3000 # the menu again
        wait 400
        chord SS NS 3000 # and back to the game
        wait 400
    """),
    "person_guided": ("pico_buttons", _s(), None, None, (), """
        until menu 3000
        tap NS
        wait 300
        tap N2          # not the mover's: red flash
        wait 600
        tap S1
        tap S3          # not the next pit: red flash
        wait 300
        sow
        wait 500
        tap N4
        wait 200
        tap N5
        tap N6
        chord S1 S6     # takeback while sowing
        wait 800
        tap N4
        sow
        wait 400
        chord S1 S6     # takeback of a move
        wait 900
        chord S1 S2     # not a gesture: red
        wait 600
        hold S2 1600    # a hold on a many-LED build: nothing
        wait 300
    """),
    "person_quick": ("pico_buttons", _s(quick=1, variant="oware"), None, None, (), """
        until menu 3000
        tap NS
        tap S4
        wait 3000
        moves 1
        wait 2500
        moves 2
        wait 300
    """),
    "computer_levels": ("pico_buttons", _s(opponent=2, variant="kalah"), None, None, (), """
        until menu 3000
        tap NS
        move 1
        until show 60000
        wait 600
        tap N1          # not the shown pit: red
        sow
        carry
        moves 2
        until think 3000
        wait 100
        tap N3          # not a store: red
        tap SS          # move now
        until show 20000
        sow
        carry
        wait 300
    """),
    "computer_strong_quick": ("pico_hall", _s(opponent=3, variant="mangala", quick=1,
                                              starter=1), None, None, (), """
        until menu 3000
        tap NS
        until select 60000
        moves 3
        wait 500
    """),
    "master_ponder": ("pico_buttons", _s(opponent=4, variant="kalah3", coaching=1), None, None,
                      (), """
        until menu 3000
        tap NS
        move 2
        until show,blunder 60000
        wait 1500
        carry
        move 4
        wait 1500
        carry
        moves 1
        wait 400
    """),
    "hint": ("pico_buttons", _s(opponent=1, variant="kalah", hints=1), None, None, (), """
        until menu 3000
        tap NS
        chord S3 S4
        wait 3000
        chord S3 S4     # again: shown again, free
        wait 1200
        chord N3 N4     # the other row's: red
        wait 500
        move 1
        carry
        chord S3 S4     # none left: red
        wait 800
        tap S5
        chord S3 S4     # not now: red
        wait 600
    """),
    "coach_grade": ("pico_buttons", _s(opponent=2, variant="mangala", coaching=1), None, None,
                    (), """
        until menu 3000
        tap NS
        move 3
        until grade 20000
        wait 200
        tap S1          # a tap skips the grade
        carry
        move 6
        until grade,show,select 20000
        wait 1500
        carry
        moves 2
        wait 2000
    """),
    "blunder_takeback": ("pico_buttons", _s(opponent=1, variant="kalah", coaching=1),
                         None, BlunderEngine, (), """
        until menu 3000
        tap NS
        tap S2
        sow
        until blunder 5000
        wait 3000
        tap SS          # take it back
        wait 900
        tap S3
        sow
        until blunder 5000
        wait 500
        powercut        # the pause survives the power cut
        wait 2000
        tap S5          # keep the move
        until select 60000
        wait 300
    """),
    "game_over": ("pico_buttons", _s(variant="kalah3", opponent=1), None, None, (), """
        until menu 3000
        tap NS
        moves 80
        wait 2500
        tap S1          # the menu
        wait 500
    """),
    "repetition_over": ("pico_buttons", _s(variant="oware"), _game(
        "oware 5 4 3 3 4 2 5 1 1 2 5 5 3 4 5 3 1 4 3 5 2 3 6 4 1 6 4 1 6 4 2 6 5 3 1 5 3 "
        "5 1 3 2 6 3 4 4 4 5 1 6 2 5 4 3 5 1 3 3 4 5 6 3 5 5 1 4 1 6 5 5 3 2 1 6 1 3 5 4 "
        "6 1 2 5 5 1 6 6 1 1 3 2 4 1 2 3 3 2 4 3 6 4 5 5 1 6 6 1 1 2 2 3 3 4 4 5 5"),
        None, (), """
        wait 200
        move 6
        until over 5000
        wait 1500
    """),
    "ranok_agree": ("pico_buttons", _s(variant="ranok"), None, None, (), """
        until menu 3000
        tap NS
        tap S1
        sow
        chord SS NS
        until over 3000
        wait 1200
    """),
    "sensor_test": ("pico_buttons", _s(), None, None, ("SS", "NS"), """
        wait 300
        release SS
        release NS
        wait 300
        tap S3
        press N2
        wait 400
        release N2
        chord SS NS 3000 # leaves the test
        wait 600
    """),
    "sensor_test_hall": ("pico_hall", _s(), None, None, ("SS", "NS"), """
        wait 300
        release SS
        release NS
        tap N4
        chord SS NS 3000
        wait 600
    """),
    "led_test": ("pico_buttons", _s(), None, None, ("SS",), """
        wait 100
        release SS
        wait 4600
        tap S1
        wait 300
    """),
    "boot_codes": ("pico_buttons", None, _corrupt("settings.json", "game.json"), None, (), """
        wait 4500
        until menu 5000
        wait 300
    """),
    "boot_code_skip": ("pico_buttons", None, _corrupt("game.json"), None, (), """
        wait 400
        tap S1          # any press skips the blinks
        wait 400
    """),
    "one_led_hold": ("pico_cheap", _s(variant="oware", opponent=0), None, None, (), """
        until menu 3000
        wait 600
        tap NS
        wait 600
        hold S3 1600    # the pit blinks its count
        wait 3000
        tap S3
        sow
        wait 800
    """),
    "esp32_game": ("esp32", _s(variant="kalah6", opponent=1, coaching=1), None, None, (), """
        until menu 3000
        tap NS
        move 4
        carry
        moves 1
        wait 1500
    """),
    "powercut_sowing": ("pico_buttons", _s(variant="kalah", opponent=0), None, None, (), """
        until menu 3000
        tap NS
        move 1
        wait 300
        tap N3
        tap N4
        tap N5          # mid-sowing
        wait 100
        powercut
        wait 3000       # the pits that may hold the sown stones blink
        move 3
        wait 500
        tap S2
        wait 50
        powercut
        wait 400
        move 2
        wait 400
    """),
    "flash_full": ("pico_buttons", _s(variant="kalah", opponent=0), None, None, (), """
        until menu 3000
        tap NS
        move 2
        flashfull
        wait 200
        move 2
        wait 3500
        move 1
        wait 1000
    """),
    "error_profile": ({"error": "broken profile"}, None, None, None, (), """
        ticks 40 50
    """),
    "error_fault": ("pico_buttons", None, None, None, (), """
        fault 2.0 kept failing
        ticks 60 50
    """),
    # issue 15, added with the puzzles and the course (recorded from that code)
    "puzzle": ("pico_buttons", _s(variant="kalah"), None, None, (), """
        until menu 5000
        tap SS          # the quick item
        tap SS          # again: the play item
        tap N2          # puzzles
        tap NS          # start: kalah puzzle 1, 2,1,1,5,9,0,15,0,0,1,1,1,1,11
        tap N1          # empty: red flash
        tap S1
        tap S2
        tap S3
        powercut        # the ticks survive
        tap S4
        tap S5
        tap SS
        tap N3
        tap N4
        tap N5
        tap N6
        tap NS
        tap N2          # not offered: red
        tap S1          # the answer
        tap S2
        tap S3
        wait 4000       # the verdict, then the line
        tap S1          # the next puzzle
        chord SS NS 3000 # the menu
        wait 400
    """),
    "course": ("pico_hall", _s(variant="oware", quick=1), None, None, (), """
        until menu 5000
        tap SS
        tap SS
        tap N3          # the course: oware lesson 1, the start position
        tap NS
        tap S1
        tap S2
        tap S3
        tap S4
        tap S5
        tap S6
        tap N1
        tap N2
        tap N3
        tap N4
        tap N5
        tap N6
        tap S3          # not the lit pit: red
        tap S1          # sown by the board (quick)
        wait 2500
        tap S1          # lesson 2
        chord SS NS 3000
        wait 400
    """),
    # issue 25: the board left alone dims, goes dark, wakes at a touch that is not played
    "idle_wake": ("pico_buttons", _s(opponent=0, idle=2), None, None, (), """
        until menu 3000
        tap NS
        move 1
        wait 119000     # quiet: nothing changes
        wait 2000       # dim: one LED of the North store breathes
        wait 242000     # dark after 3 x 2 minutes
        wait 60000      # no frame while dark
        press N2        # wakes: the state it left, the finger's dot
        wait 200
        release N2
        wait 300        # awake: N2 was not played
        tap N2          # now it plays
        wait 300
    """),
    "idle_battery": (_battery("pico_buttons"), _s(opponent=0), None, None, (), """
        until menu 3000
        tap NS
        move 1
        battery 3550    # low: the stores blink red three times
        wait 4000
        move 1
        battery 3400    # below the safe level: saved, dark
        wait 7000
        tap N1          # nothing: the battery is empty
        battery 4700    # USB: the state it left, the pits blink amber five times
        wait 4000
        battery 3400
        wait 7000
        powercut        # the chip browned out: boot code 5, the game where it was
        wait 4000
        move 2
        wait 300
    """),
}


class FailingFs:
    """A MemFs wrapper whose writes can be made to fail (a full flash)."""

    def __init__(self, fs):
        self.fs = fs
        self.failing = False

    def __getattr__(self, name):
        return getattr(self.fs, name)

    def open_write(self, path):
        if self.failing:
            raise OSError(28)
        return self.fs.open_write(path)

    def rename(self, a, b):
        if self.failing:
            raise OSError(28)
        return self.fs.rename(a, b)


def _status(machine, profile):
    pin = profile.get("status_led") if isinstance(profile, dict) else None
    if not isinstance(pin, int):
        return -1
    try:
        return machine.level(pin)
    except Exception:  # noqa: BLE001 - never set
        return -1


def _play(b, w):
    """move K / moves N / carry (see the docstring); an error line or None."""
    from mancala.rules import MASK

    def carry():
        for _ in range(40):
            if not b.until(("select", "show", "over", "blunder"), 60000):
                return "never settled (mode: %s)" % b.mode()
            m = b.mode()
            if m in ("select", "over"):
                return None
            if m == "show":
                b.sow()
            else:
                b.tap(12 if b.app.before[15] == 0 else 0)  # keep the move
        return "never a person's turn"

    if w[0] == "carry":
        return carry()
    if w[0] == "move":
        if b.mode() != "select":
            return "not the person's turn (mode: %s)" % b.mode()
        g = b.app.game
        b.play_move(g.side * 7 + int(w[1]) - 1)
        return None
    for _ in range(int(w[1])):
        err = carry()
        if err or b.mode() == "over":
            return err
        g = b.app.game
        k = 0
        while not g.pos[MASK] >> k & 1:
            k += 1
        b.play_move(g.side * 7 + k)
    return None


def record(name):
    """Run script `name`; returns [(t, mode, status, bytes)] for every LED write."""
    from host_tools.fakes import machine, neopixel
    from host_tools.fakes.board import SimBoard
    from host_tools.fakes.memfs import MemFs
    from host_tools.simulators import sim
    from mancala import app as A
    from mancala import profiles
    from mancala.hw.clock import ManualClock
    from mancala.hw.storage import Storage

    prof, settings, prep, engine, held, text = SCRIPTS[name]
    profile = profiles.load(prof) if isinstance(prof, str) else prof
    fs = FailingFs(MemFs())
    if settings is not None:
        Storage(fs).save("settings.json", settings)
    if prep is not None:
        prep(fs.fs)
    clock = ManualClock(1000)
    frames = []
    cur = {}

    def mode_name():
        board = cur["board"]
        idle = getattr(board, "idle", None)  # (not awake: "select/dim", issue 25)
        return A.MODE_NAMES[board.mode] + ("/" + idle.state_name() if idle and idle.state else "")

    def on_write(np):
        frames.append((clock.now(), mode_name() if "board" in cur else "-",
                       _status(machine, profile), bytes(np.buf)))

    def boot(held=()):
        b = SimBoard(profile, machine, neopixel, fs=fs, clock=clock, engine_cls=engine,
                     seed=3, strict=True, log=lambda *a: None, held=held)
        cur["sim"] = b
        cur["board"] = b.app
        return b

    neopixel.on_write = on_write
    try:
        lines = [ln.split("#", 1)[0].strip() for ln in text.strip().splitlines()]
        lines = [ln for ln in lines if ln]
        if lines and lines[0].startswith("fault "):
            eb = A.build(profile, machine, neopixel, clock, fs=fs, log=lambda *a: None,
                         fault=lines.pop(0)[6:])
            cur["board"] = eb
        elif "error" in profile:
            machine.reset()
            cur["board"] = A.build(profile, machine, neopixel, clock, fs=fs,
                                   log=lambda *a: None)
        else:
            boot(held)
        for n, line in enumerate(lines, 1):
            w = line.split()
            if w[0] == "powercut":
                boot()
            elif w[0] == "flashfull":
                fs.failing = True
            elif w[0] in ("move", "moves", "carry"):
                err = _play(cur["sim"], w)
                if err:
                    frames.append((clock.now(), "line %d: %s" % (n, err), -1, b""))
            elif w[0] == "ticks":
                for _ in range(int(w[1])):
                    cur["board"].tick()
                    frames.append((clock.now(), "tick", _status(machine, profile), b""))
                    clock.advance(int(w[2]))
            else:
                try:
                    sim.run_line(cur["sim"], w)
                except ValueError as e:  # kept in the recording: it must fail alike
                    frames.append((clock.now(), "line %d: %s" % (n, e), -1, b""))
    finally:
        neopixel.on_write = None
    return frames


def encode(name, frames):
    bufs = []
    index = {}
    out = []
    for t, mode, status, buf in frames:
        k = index.get(buf)
        if k is None:
            k = index[buf] = len(bufs)
            bufs.append(buf.hex())
        out.append([t, mode, status, k])
    return json.dumps({"script": name, "bufs": bufs, "frames": out}, separators=(",", ":"))


def decode(text):
    d = json.loads(text)
    bufs = [bytes.fromhex(h) for h in d["bufs"]]
    return [(t, mode, status, bufs[k]) for t, mode, status, k in d["frames"]]


def path(name):
    return os.path.join(DATA, name + ".json.gz")


def load(name):
    with gzip.open(path(name), "rt") as f:
        return decode(f.read())


def save(name, frames):
    with open(path(name), "wb") as f:  # mtime 0: the same frames, the same bytes
        f.write(gzip.compress((encode(name, frames) + "\n").encode(), 9, mtime=0))


def first_difference(want, got):
    """None, or a line saying where two frame lists part."""
    for i in range(min(len(want), len(got))):
        if want[i] != got[i]:
            w, g = want[i], got[i]
            return "frame %d: recorded t=%d %s status=%d, now t=%d %s status=%d%s" % (
                i, w[0], w[1], w[2], g[0], g[1], g[2],
                "" if w[3] == g[3] else " (the LEDs differ)")
    if len(want) != len(got):
        return "recorded %d frames, now %d" % (len(want), len(got))
    return None


def main(argv):
    check = "--check" in argv
    names = [a for a in argv if not a.startswith("--")] or list(SCRIPTS)
    os.makedirs(DATA, exist_ok=True)
    bad = 0
    for name in names:
        frames = record(name)
        if check:
            diff = first_difference(load(name), frames)
            print("%-24s %s" % (name, diff or "same (%d frames)" % len(frames)))
            bad += diff is not None
        else:
            save(name, frames)
            print("%-24s %5d frames, %6d bytes" % (name, len(frames), os.path.getsize(path(name))))
            modes = []
            for f in frames:
                if f[1].startswith("line "):
                    print("    " + f[1])
                elif f[1] not in modes:
                    modes.append(f[1])
            print("    " + " ".join(modes))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
