"""The board: boot, menu, guided play, the computer's turns, coaching, saving.

`main()` builds the hardware from the board profile (the real `machine` and
`neopixel` on the device, fakes injected on the PC) and runs `App.tick()`
forever.  Everything the loop touches is injected, so the simulator and the
tests run this very code against simulated pins and a clock they control.

Gestures (docs/PLAYER_GUIDE.md):
  tap a lit pit ..................... play it / drop the next stone there
  pit 1 + pit 6 of a row together ... take back
  pit 3 + pit 4 of a row together ... hint (a limited number per game)
  tap a store while the computer thinks .. move now
  both stores together (ranok) ...... end by agreement
  hold both stores (2.5 s) .......... menu (new game); again to go back
  hold a pit (one-LED builds) ....... the pit blinks its count
  at power-on: both stores held = sensor test, the South store held = LED test
"""

import sys

from mancala.game import END_AGREEMENT, END_REPETITION, Game, IllegalMove, release_room
from mancala.hw import pits as P
from mancala.hw import storage as S
from mancala.hw.pixels import AMBER, GREEN, LAPS, NORTH, RED, SOUTH, WHITE, Pixels
from mancala.notation import format_record, parse_record
from mancala.rules import CAPTURED, EXTRA, MASK, N_STORE, OVER, S_STORE, SIDE, get_rules

# Modes
BOOT = 0
MENU = 1
SELECT = 2  # a person chooses a pit
SOW = 3  # the sowing is guided stone by stone
THINK = 4  # the computer searches
SHOW = 5  # the computer's pit blinks: take its stones
ANIM = 6  # capture / extra turn / sweep
GRADE = 7  # the coach shows the grade of the move
BLUNDER = 8  # the coach paused: threat shown, takeback offered
OVER_ = 9
SENSOR_TEST = 10
LED_TEST = 11
ERROR = 12
# modes whose frames move by themselves (a bit per mode: no tuple built per frame)
# (THINK draws only when its animation moves: update() marks it; the turns between
# frames go to the search)
ANIMATED = ((1 << BOOT) | (1 << SHOW) | (1 << ANIM) | (1 << BLUNDER)
            | (1 << LED_TEST) | (1 << SENSOR_TEST) | (1 << SOW) | (1 << OVER_) | (1 << MENU))
MODE_NAMES = ("boot", "menu", "select", "sow", "think", "show", "anim", "grade", "blunder",
              "over", "sensor_test", "led_test", "error")

# What pause.json keeps beside game.json: the blunder pause ("pit" = the threat, -1
# none) or a move being sown ("pit" = its board index), for game "number" at "ply"
# (anything else there is stale and ignored).  A small file of its own: game.json
# keeps its format, and a pause costs a few bytes, not a whole record.
PAUSE_BLUNDER = 1
PAUSE_SOWING = 2

# Set by the device's main.py (A/B slots): called once the loop has run healthily
# (HEALTHY_TURNS turns in a row with no exception, and not the error board), which
# disarms main.py's deadman and ends a new version's trial (docs/UPDATING.md).
confirm_boot = None
HEALTHY_TURNS = 50

STORES = (1 << S_STORE) | (1 << N_STORE)
TAKEBACK = ((1 << 0) | (1 << 5), (1 << 7) | (1 << 12))
HINT = ((1 << 2) | (1 << 3), (1 << 9) | (1 << 10))
SIDE_COLOURS = (SOUTH, NORTH)
# best green, excellent sky blue, good white, inaccuracy lime, mistake amber, blunder red
# (none of them a count colour, so a graded pit never reads as a count)
GRADE_COLOURS = ((0, 255, 110), (0, 200, 255), (255, 255, 255), (200, 255, 0), (255, 140, 0),
                 (255, 0, 0))

VARIANT_CHOICES = ("ranok", "mangala", "kalah", "oware", "kalah3", "kalah6")
HINT_CHOICES = (0, 1, 2, 3, 5, 9)
# Menu items: (settings key, the board index of the item's pit, colour)
ITEMS = (
    ("variant", 0, (255, 170, 90)),
    ("opponent", 1, NORTH),
    ("starter", 2, SOUTH),
    ("coaching", 3, GREEN),
    ("hints", 4, (255, 210, 0)),
    ("brightness", 5, WHITE),
    ("quick", S_STORE, (0, 255, 210)),
)
DEFAULTS = {"variant": "kalah", "opponent": 2, "starter": 0, "coaching": 1, "hints": 3,
            "brightness": 1, "quick": 0}  # type: dict


def _log_exc(log, e):
    pe = getattr(sys, "print_exception", None)
    if pe is not None:
        pe(e)
    else:
        tb = __import__("traceback")  # CPython
        tb.print_exception(type(e), e, e.__traceback__)
    log("error: %r" % (e,))


def forget_boot_modules():
    """On the board, drop the modules only the boot needs (the profile check and
    the profile loader: about 5 KB of code on an ESP32) so a game has their room."""
    if sys.implementation.name != "micropython":
        return  # the PC keeps them (tests import them again and again)
    import mancala

    for name in ("profile", "profiles"):
        sys.modules.pop("mancala." + name, None)
        try:
            delattr(mancala, name)
        except AttributeError:
            pass
    for name in list(sys.modules):
        if name.startswith("mancala.profiles."):
            sys.modules.pop(name)


class App:
    FRAME_MS = 20  # loop period
    ANIM_FRAME_MS = 60  # animations redraw this often (a press redraws at once)
    FLASH_MS = 500  # a red "no" flash
    BLINK_MS = 250  # half period of blinks
    QUICK_MS = 300  # quick mode: one stone per step
    ANIM_MS = 1200  # capture / extra-turn animation
    GRADE_MS = 1200  # the grade colour
    SHOW_MS = 1500  # quick mode: the computer's pit blinks this long
    BOOT_BLINK_MS = 300  # one blink of a boot error code
    FULL_CODE = 4  # blink code: the flash refuses saves (all 14 blink amber four times)
    FULL_REMIND_MS = 60000  # the code again this often while saves keep failing
    RESTORE_BLINK_MS = 12000  # after a power cut mid-sowing: the pits to put stones back
    SLICE = 8  # engine nodes between clock reads while it searches (~4 ms on a Pico)
    COACH_NODES = 6000  # nodes the coach spends grading a move (engine.GRADE_NODES)
    LED_TEST_STEP_MS = 600
    THINK_STEP_MS = 150  # the thinking animation moves one pit this often
    search_ms = 0  # loop time given to the engine (a running total: measurements)
    think_frame = -1  # the thinking animation's step last drawn
    MASTER_MS = 2000  # Master's think on the board (engine.MASTER_MS)
    MASTER_CAP = 30000  # ... and its node cap (a faster board: an ESP32)
    PONDER = True  # think on the person's time against Master
    PONDER_RESERVE_MS = 8  # of a loop turn pondering leaves free (a chunk may run late)
    PONDER_CHUNK = 2  # nodes between clock reads while pondering
    PONDER_NODES = 30000  # a pondering search's cap
    pondering = False  # a pondering search is running (or finished) on `pondered`
    pregrade = False  # the coach grades the move being sown (early_grade)
    ponder_target = None  # (bytearrays made at the first ponder)
    pondered = None
    ponder_ms = 0  # loop time given to pondering (a running total: measurements)
    touch_drawn = 0  # the pits lit under a finger in the last frame

    def __init__(self, profile, pits, pixels, clock, storage, engine_cls=None, status=None,
                 log=print, seed=None, strict=False):
        self.profile = profile
        self.pits = pits
        self.px = pixels
        self.clock = clock
        self.store = storage
        self.engine_cls = engine_cls
        self.status = status
        self.log = log
        self.strict = strict
        self.spans = profile["leds"]
        self.single = self.spans[0][1] == 1
        n = 0
        for span in self.spans:
            n += span[1]
        self.covers = n == profile["led_count"]  # the pits' LEDs are the whole chain
        self.rng = _Rng(clock.now() if seed is None else seed)
        self.engine = None
        self.game = None
        self.meta = None
        self.mode = BOOT
        self.next_mode = MENU
        self.t_mode = clock.now()
        self.shown = bytearray(14)  # the counts the LEDs show (the stones in the pits)
        self.flash = 0  # pits flashing red
        self.t_flash = 0
        self.blink_mask = 0  # pits blinking their changed count after a takeback
        self.t_blink = 0
        self.blink_ms = 6 * self.BLINK_MS
        self.touch_drawn = 0  # the pits drawn with a touch dot in the last frame
        self.pause = 0  # what a power cut must not forget (PAUSE_*), in pause.json
        self.pause_pit = -1
        self.hint_pit = -1
        self.hinting = False
        self.grading = False
        self.errors = 0  # loop turns in a row that ended in an error
        self.sow_side = 0
        self.sow_pit = 0
        self.sow_path = b""
        self.sow_i = 0
        self.sow_n = 0
        self.flags = 0
        self.anim_side = 0
        self.grade = None
        self.before = bytearray(16)
        self.frame_no = 0
        self.t_frame = clock.now()
        self.dirty = True
        self.boot_codes = []  # blink codes still to show
        self.unsaved = False  # the last save failed: the game goes on in memory
        self.t_unsaved = 0  # when the full-flash code last began
        self.item = 0
        self.show_count_pit = -1
        self.t_count = 0
        self.menu_game = False
        self.error_lines = []
        self.on_frame = None  # callback after each frame (simulator, tests)
        st, s = storage.load("settings.json")
        self.settings = dict(DEFAULTS)
        if st == S.OK:
            for k in DEFAULTS:
                v = s.get(k)
                if isinstance(v, type(DEFAULTS[k])) and not isinstance(v, bool):
                    self.settings[k] = v
        elif st == S.CORRUPT:
            log("settings.json is corrupt: using the defaults")
            self.boot_codes.append(2)
        self.apply_settings()
        # The session's long-lived buffers, allocated first, while the heap is whole,
        # and kept: one game history (each new or loaded game reuses it) and one
        # engine (rebuilt, the old one released first, only when the variant changes).
        rules = get_rules(self.settings["variant"])
        forget_boot_modules()
        release_room()  # they land in the room taken at the first import
        self.session_game = Game(rules)
        self.need_engine(rules)
        self.boot_game()
        raw = pits.sensors.read()
        if raw & STORES == STORES:
            self.set_mode(SENSOR_TEST)
        elif raw & STORES == 1 << S_STORE:
            self.set_mode(LED_TEST)
        elif self.boot_codes:
            self.set_mode(BOOT)

    # -- settings and the saved game -------------------------------------------

    def apply_settings(self):
        """Settings out of range (a file edited by hand) fall back to the defaults."""
        s = self.settings
        if s["variant"] not in VARIANT_CHOICES:
            s["variant"] = DEFAULTS["variant"]
        if s["hints"] not in HINT_CHOICES:
            s["hints"] = DEFAULTS["hints"]
        for key in ("opponent", "starter", "coaching", "brightness", "quick"):
            if not 0 <= s[key] < self.choices(key):
                s[key] = DEFAULTS[key] if DEFAULTS[key] < self.choices(key) else 0
        self.px.set_level(s["brightness"])

    def save_settings(self):
        self.saved(self.store_call(self.store.save, "settings.json", self.settings))

    def store_call(self, fn, *args):
        """A storage write; None if it went through, else the OSError (flash full,
        I/O error): the board goes on without it, on flash the last save is whole."""
        try:
            fn(*args)
        except OSError as e:
            return e
        return None

    def saved(self, err):
        """Report a save's outcome: the console and the full-flash blink code on the
        first failure, the console again once saves go through."""
        if err is None:
            if self.unsaved:
                self.unsaved = False
                self.log("flash: saving again")
            return True
        if not self.unsaved:
            self.unsaved = True
            self.t_unsaved = self.clock.now()
            self.dirty = True
            self.log("flash: cannot save (%r): the game goes on in memory; free room on "
                     "the flash (pull and remove old games) or a power cut loses the moves "
                     "since the last save" % (err,))
        return False

    def boot_game(self):
        self.game = None  # released before the saved one is built (no two at once)
        try:
            import gc

            gc.collect()
        except ImportError:  # pragma: no cover
            pass
        st, g = self.store.load("game.json")
        if st == S.CORRUPT:
            self.log("game.json is corrupt: the game is lost, settings kept")
            self.boot_codes.append(3)
        elif st == S.OK:
            try:
                game = parse_record(g["record"])
                meta = {"number": int(g["number"]), "human": int(g["human"]) & 3,
                        "level": int(g["level"]), "hints": int(g["hints"])}
                if not 0 <= meta["level"] <= 4:
                    raise ValueError("level")
            except Exception as e:  # noqa: BLE001 - a bad file never stops the boot
                self.log("game.json does not hold a game (%r): the game is lost" % (e,))
                self.boot_codes.append(3)
            else:
                self.session_game.assign(game)
                game = None  # the parsed copy goes: the session's game holds it now
                self.game = self.session_game
                self.meta = meta
        if self.game is None:
            self.next_mode = MENU
            return
        self.need_engine()
        self.refresh()
        if self.game.over:
            self.archive(format_record(self.game))  # the power failed before it was
        self.next_mode = self.turn_mode()
        self.restore_pause()

    def restore_pause(self):
        """After a power cut: back into the blunder pause, or show the pits that may
        hold the stones of a move that was being sown (the game is saved before it).
        No pause.json (older firmware), a stale or a nonsense one: play on."""
        self.pause = 0
        st, saved = self.store.load("pause.json")
        g = self.game
        if st != S.OK or g.over:
            return
        kind = saved.get("kind", 0)
        pit = saved.get("pit", -1)
        if not (isinstance(kind, int) and isinstance(pit, int) and
                saved.get("ply") == g.ply and saved.get("number") == self.meta["number"]):
            return
        if kind == PAUSE_BLUNDER and g.ply and -1 <= pit < 6:
            last = g.moves()[-1]
            self.before[:] = g.position_at(g.ply - 1)
            if self.human(self.before[SIDE]):
                self.sow_pit = last
                self.grade = (5, 0, pit)
                self.pause = kind
                self.pause_pit = pit
                self.next_mode = BLUNDER
        elif kind == PAUSE_SOWING and 0 <= pit - g.side * 7 < 6 and \
                g.pos[MASK] >> (pit - g.side * 7) & 1:
            side = g.side
            path = g.rules.paths[side * 6 + pit - side * 7]
            n = g.pos[pit]
            if g.rules.name == "mangala" and n == 1:
                path = path[1:2]  # as begin_move() sows it
            m = 1 << pit
            for k in range(min(n, len(path))):
                m |= 1 << path[k]
            self.blink_mask = m
            self.blink_ms = self.RESTORE_BLINK_MS
            self.t_blink = self.clock.now()

    def save_game(self):
        m = self.meta
        rec = format_record(self.game)
        if self.game.over and self.store.archived(m["number"], rec) < 0:
            # the number holds another ending of this game (a takeback from the end
            # screen): this ending gets a new number, saved before it is archived
            m["number"] = self.store.next_game_number(m["number"])
        ok = self.saved(self.store_call(
            self.store.save, "game.json", {"record": rec, "number": m["number"],
                                           "human": m["human"], "level": m["level"],
                                           "hints": m["hints"]}))
        if ok and self.game.over:
            self.archive(rec)

    def archive(self, rec):
        """Keep a finished game in /data/games under its number, once; never over
        another game (its number is then renewed and saved first)."""
        m = self.meta
        if self.store.archived(m["number"], rec) < 0:
            m["number"] = self.store.next_game_number(m["number"])
            self.save_game()  # saves, then archives under the new number
            return
        self.saved(self.store_call(self.store.add_game, m["number"], rec))

    def need_engine(self, rules=None):
        """The engine for `rules` (the game's): kept while the variant stays."""
        if rules is None:
            rules = self.game.rules
        if self.engine_cls is None:
            return
        if self.engine is not None and self.engine.rules is rules:
            return
        self.engine = None  # the old one released before the new one is built
        try:
            import gc

            gc.collect()
        except ImportError:  # pragma: no cover
            pass
        self.engine = self.engine_cls(rules, tt_bits=self.profile["tt_bits"],
                                      seed=self.rng.next() & 0xFFFF)
        self.open_tables()

    def open_tables(self):
        """Give the engine the endgame table of its rules, if the flash has a good
        one (docs/TABLEBASE.md); a missing or damaged one is said on the console
        and the board plays on without it."""
        set_table = getattr(self.engine, "set_table", None)
        opener = getattr(self.store.fs, "open_read", None)
        if set_table is None or opener is None:
            return
        old = self.engine.table
        if old is not None:
            old.close()
        name = self.engine.rules.name
        path = "/tables/" + name + ".tb"  # tablebase.board_path(): the module is
        try:  # imported only when there is a table (its code costs heap)
            opener(path).close()
        except OSError:
            self.log("tables: no %s; playing on without it" % path)
            return
        from mancala import tablebase

        set_table(tablebase.open_table(path, name, log=self.log, opener=opener))

    def new_game(self):
        s = self.settings
        rules = get_rules(s["variant"])
        side = s["starter"]
        if side == 2:
            side = self.rng.next() & 1
        self.game = self.session_game  # its buffers reused: a session allocates them once
        self.game.reset(rules, rules.start(side))
        opp = s["opponent"]
        last = self.meta["number"] if self.meta is not None else 0
        self.meta = {"number": self.store.next_game_number(last),
                     "human": 3 if opp == 0 else 1, "level": opp, "hints": s["hints"]}
        self.need_engine()
        self.save_game()
        self.pause = 0
        # an abandoned game's may carry the same number
        self.saved(self.store_call(self.store.remove, "pause.json"))
        self.refresh()
        self.hint_pit = -1
        self.set_mode(self.turn_mode())

    # -- helpers -----------------------------------------------------------------

    def human(self, side):
        return self.meta["human"] >> side & 1

    def refresh(self):
        pos = self.game.pos
        for i in range(14):
            self.shown[i] = pos[i]
        self.dirty = True

    def set_mode(self, mode):
        if self.hinting or self.grading:  # moving on cancels a search still running
            self.hinting = False
            self.grading = False
            self.engine.stop()
        self.mode = mode
        self.t_mode = self.clock.now()
        self.dirty = True

    def since(self, t):
        return self.clock.diff(self.clock.now(), t)

    def no(self, mask):
        """A red flash on `mask`: that press changed nothing."""
        self.flash = mask
        self.t_flash = self.clock.now()
        self.dirty = True

    def turn_mode(self):
        g = self.game
        if g.over:
            return OVER_
        if self.human(g.side):
            return SELECT
        self.start_thinking()
        return THINK

    def start_thinking(self):
        if self.engine is None:
            return
        li = self.meta["level"] - 1
        self.pondering = False
        self.engine.keep = li == 3  # Master starts from the table pondered on
        if li == 3:  # Master: by the board's clock (the lower levels count nodes)
            self.engine.start(self.game.pos, level=li, nodes=self.MASTER_CAP,
                              deadline_ms=self.MASTER_MS, clock=self.clock.now)
        else:
            self.engine.start(self.game.pos, level=li, clock=self.clock.now)

    # -- the loop ----------------------------------------------------------------

    def tick(self):
        """One turn of the main loop: read the pits, advance timers, draw, then give
        the engine what is left of the turn (FRAME_MS) if it has a search to run."""
        t0 = self.clock.now()
        try:
            for ev in self.pits.poll():
                self.on_event(ev)
            if self.pits.touched() != self.touch_drawn:
                self.dirty = True  # a finger came or went: its pit lights at once
            self.update()
            self.render()
            self.search_slice(t0)
            self.errors = 0
        except Exception as e:  # noqa: BLE001 - the board must keep running
            if self.strict:
                raise
            _log_exc(self.log, e)
            self.recover()

    def recover(self):
        """After an error: back to the saved state; if that fails again, the menu."""
        self.errors += 1
        self.boot_codes = []
        self.hinting = self.grading = False
        try:
            if self.errors >= 3:
                raise RuntimeError("the saved game keeps failing: starting from the menu")
            if self.unsaved and self.game is not None:
                self.resume_unsaved()
            else:
                self.boot_game()
        except Exception as e:  # noqa: BLE001
            _log_exc(self.log, e)
            self.game = None
            self.next_mode = MENU
        self.set_mode(self.next_mode)

    def resume_unsaved(self):
        """recover() while the flash refuses saves: the saved game is older than the
        one in memory, so the one in memory goes on, checked by replaying its record."""
        self.session_game.assign(parse_record(format_record(self.game)))
        self.game = self.session_game
        self.need_engine()
        self.refresh()
        self.next_mode = self.turn_mode()

    def run(self):
        clock = self.clock
        clean = 0  # loop turns in a row that raised nothing (tick() swallows, counts self.errors)
        while True:
            t = clock.now()
            self.tick()
            if clean < HEALTHY_TURNS:
                clean = clean + 1 if self.errors == 0 and self.mode != ERROR else 0
                if clean == HEALTHY_TURNS and confirm_boot is not None:
                    confirm_boot()  # a second of healthy loop turns: keep this version
            clock.sleep(self.FRAME_MS - clock.diff(clock.now(), t))

    # -- events ------------------------------------------------------------------

    def on_event(self, ev):
        kind = ev >> 16
        arg = ev & 0xFFFF
        mode = self.mode
        if kind == P.STUCK:
            self.log("sensor %d is stuck active: ignored until it releases" % arg)
            self.no(1 << arg)
            return
        if kind == P.DOWN or kind == P.FREED:
            self.dirty = True  # the pressed pit lights at once
            return
        if mode == SENSOR_TEST:
            if kind == P.LONG and arg == STORES:
                self.set_mode(BOOT if self.boot_codes else self.next_mode)
            return
        if mode == LED_TEST or mode == ERROR:
            return
        if mode == BOOT:  # any press skips the boot blink
            self.set_mode(self.next_mode)
            return
        if kind == P.LONG:
            if arg == STORES:
                self.toggle_menu()
            return
        if kind == P.HOLD:
            if self.single and self.game is not None and mode != MENU:
                self.show_count_pit = arg
                self.t_count = self.clock.now()
                self.dirty = True
            return
        if mode == MENU:
            if kind == P.TAP:
                self.menu_tap(arg)
            return
        if self.game is None:
            return
        if kind == P.CHORD:
            self.on_chord(arg)
            return
        if kind != P.TAP:
            return
        pit = arg
        if mode == SELECT:
            self.select_tap(pit)
        elif mode == SOW:
            if self.settings["quick"] or self.sow_path[self.sow_i] != pit:
                if not self.settings["quick"]:
                    self.no(1 << pit)
                return
            self.drop_stone()
        elif mode == THINK:
            if pit == S_STORE or pit == N_STORE:
                if self.engine is not None:
                    self.engine.stop()
            else:
                self.no(1 << pit)
        elif mode == SHOW:
            if pit == self.sow_side * 7 + self.sow_pit:
                self.start_sow()
            else:
                self.no(1 << pit)
        elif mode == BLUNDER:
            if pit == self.before[SIDE] * 7 + 6:
                self.takeback()
            else:
                self.set_pause(0)
                self.set_mode(self.turn_mode())
        elif mode == GRADE:
            self.after_grade()
        elif mode == OVER_:
            self.toggle_menu()
        else:
            self.no(1 << pit)

    def on_chord(self, mask):
        if mask == TAKEBACK[0] or mask == TAKEBACK[1]:
            self.takeback()
        elif mask == HINT[0] or mask == HINT[1]:
            self.give_hint()
        elif mask == STORES and self.mode in (SELECT, THINK):
            try:
                self.game.agree()
            except IllegalMove as e:
                self.log("no agreement: %s" % e)
                self.no(STORES)
                return
            if self.engine is not None:
                self.engine.stop()
            self.save_game()
            self.set_mode(OVER_)
        else:
            self.no(mask)  # pits pressed together are never a move

    def select_tap(self, pit):
        g = self.game
        side = g.side
        if pit < side * 7 or pit >= side * 7 + 6 or not g.pos[MASK] >> (pit - side * 7) & 1:
            self.no(1 << pit)
            return
        self.begin_move(pit - side * 7)
        self.start_sow()
        self.early_grade()

    def begin_move(self, pit):
        g = self.game
        self.sow_side = g.side
        self.sow_pit = pit
        path = g.rules.paths[g.side * 6 + pit]
        n = g.pos[g.side * 7 + pit]
        if g.rules.name == "mangala" and n == 1:
            self.sow_path = path[1:2]
        else:
            self.sow_path = path[:n]
        self.sow_n = len(self.sow_path)
        self.sow_i = 0

    def start_sow(self):
        self.shown[self.sow_side * 7 + self.sow_pit] = 0  # the stones are in the hand
        self.hint_pit = -1
        self.set_pause(PAUSE_SOWING, self.sow_side * 7 + self.sow_pit)
        self.set_mode(SOW)

    def set_pause(self, kind, pit=-1):
        """Save what a power cut must not forget beyond the game (0: nothing)."""
        if self.pause == kind and self.pause_pit == pit:
            return
        self.pause = kind
        self.pause_pit = pit
        self.saved(self.store_call(self.store.save, "pause.json",
                                   {"kind": kind, "pit": pit, "ply": self.game.ply,
                                    "number": self.meta["number"]}))

    def drop_stone(self):
        self.shown[self.sow_path[self.sow_i]] += 1
        self.sow_i += 1
        self.t_mode = self.clock.now()
        self.dirty = True
        if self.sow_i >= self.sow_n:
            self.finish_move()

    def finish_move(self):
        g = self.game
        self.before[:] = g.pos
        mover = g.side
        self.flags = g.play(self.sow_pit)
        self.anim_side = mover
        self.pause = 0  # pause.json is stale now: its ply is the one before the move
        self.save_game()
        self.grade = None
        self.set_mode(ANIM)
        if self.human(mover) and self.settings["coaching"] and self.engine is not None:
            self.start_grade()
        if not (self.flags or g.end or self.grading):
            self.after_anim()

    # The coach grades in slices like any search (the pits stay live): it is
    # Engine.grade() taken apart, checked against it in tests/test_board_play.py.
    def start_grade(self):
        self.grading = True
        if self.pregrade:  # begun at the tap (early_grade): it goes on
            self.pregrade = False
            return
        self.engine.keep = self.meta["level"] == 4  # Master's pondered table, else none
        self.engine.start_grade(self.before, self.sow_pit, nodes=self.COACH_NODES,
                                clock=self.clock.now)

    def early_grade(self):
        """The coach grades the person's move from the tap on, on their sowing time
        (finish_move's start_grade() then goes on with it)."""
        if self.engine is None or not self.settings["coaching"] or \
                not self.human(self.game.side):
            return
        self.pondering = False
        self.engine.keep = self.meta["level"] == 4
        self.before[:] = self.game.pos
        self.engine.start_grade(self.before, self.sow_pit, nodes=self.COACH_NODES,
                                clock=self.clock.now)
        self.pregrade = True

    def finish_grade(self):
        self.grading = False
        self.grade = self.engine.grade_result()

    def after_anim(self):
        self.refresh()
        if self.grade is not None:
            self.set_mode(GRADE)
        else:
            self.set_mode(self.turn_mode())

    def after_grade(self):
        if self.grade[0] == 5 and not self.game.over:
            self.set_pause(PAUSE_BLUNDER, self.grade[2])
            self.set_mode(BLUNDER)
        else:
            self.set_mode(self.turn_mode())

    def takeback(self):
        g = self.game
        if self.mode == SOW and self.human(self.sow_side):
            self.mark_changes()
            self.refresh()
            self.set_pause(0)
            self.set_mode(SELECT)
            return
        if g.ply == 0:
            self.no((1 << 0) | (1 << 5) | (1 << 7) | (1 << 12))
            return
        if self.engine is not None:
            self.engine.stop()
        g.undo()
        while g.ply and not self.human(g.side):
            g.undo()
        self.mark_changes()
        self.refresh()
        self.pause = 0  # stale: the next move's sowing writes over it (and its ply differs)
        self.save_game()
        self.hint_pit = -1
        self.set_mode(self.turn_mode())

    def mark_changes(self):
        pos = self.game.pos
        m = 0
        for i in range(14):
            if self.shown[i] != pos[i]:
                m |= 1 << i
        self.blink_mask = m
        self.blink_ms = 6 * self.BLINK_MS
        self.t_blink = self.clock.now()

    def give_hint(self):
        g = self.game
        if self.mode != SELECT or self.engine is None:
            self.no(HINT[0] | HINT[1])
            return
        if self.meta["hints"] <= 0:
            self.no(HINT[g.side])
            return
        if self.hinting:
            return
        if self.hint_pit >= 0:  # asked again in the same position: shown again, free
            self.t_mode = self.clock.now()
            self.dirty = True
            return
        self.meta["hints"] -= 1
        self.save_game()
        # a master search, a slice per loop turn (the pits stay live); the mover's
        # store blinks green until the hinted pit lights
        self.engine.start(g.pos, level=3, clock=self.clock.now)
        self.hinting = True
        self.dirty = True

    def toggle_menu(self):
        if self.mode == MENU:
            if self.game is not None and not self.game.over:
                self.refresh()
                self.set_mode(self.turn_mode())
            return
        if self.engine is not None and self.mode == THINK:
            self.engine.stop()
        self.item = 0
        self.set_mode(MENU)

    def menu_tap(self, pit):
        if pit == N_STORE:
            self.save_settings()
            self.new_game()
            return
        for k in range(len(ITEMS)):
            if ITEMS[k][1] == pit:
                self.item = k
                self.dirty = True
                return
        key = ITEMS[self.item][0]
        n = self.choices(key)
        c = pit - 7
        if not 0 <= c < n:
            self.no(1 << pit)
            return
        s = self.settings
        if key == "variant":
            s[key] = VARIANT_CHOICES[c]
        elif key == "hints":
            s[key] = HINT_CHOICES[c]
        else:
            s[key] = c
        self.apply_settings()
        self.save_settings()
        self.dirty = True

    def choices(self, key):
        if key == "variant" or key == "hints":
            return 6
        if key == "opponent":
            return 5
        if key == "starter":
            return 3
        if key == "brightness":
            return len(self.px.levels)
        return 2

    def choice(self, key):
        v = self.settings[key]
        if key == "variant":
            return VARIANT_CHOICES.index(v)
        if key == "hints":
            return HINT_CHOICES.index(v) if v in HINT_CHOICES else -1
        return v

    # -- time --------------------------------------------------------------------

    def update(self):
        mode = self.mode
        now = self.clock.now()
        el = self.clock.diff(now, self.t_mode)
        if self.flash and self.clock.diff(now, self.t_flash) >= self.FLASH_MS:
            self.flash = 0
            self.dirty = True
        if self.blink_mask and self.clock.diff(now, self.t_blink) >= self.blink_ms:
            self.blink_mask = 0
            self.blink_ms = 6 * self.BLINK_MS
            self.dirty = True
        if mode == BOOT:
            total = 0
            for c in self.boot_codes:
                total += (2 * c + 3) * self.BOOT_BLINK_MS
            if el >= total:
                self.set_mode(self.next_mode)
        elif mode == THINK:
            if self.engine is None or self.engine.done:
                self.computer_moves()
            else:
                f = (el // self.THINK_STEP_MS) * 2 + ((el // self.BLINK_MS) & 1)
                if f != self.think_frame:  # the animation (or the status LED) moved
                    self.think_frame = f
                    self.dirty = True
        elif mode == SELECT:
            if self.hinting and self.engine.done:
                self.hinting = False
                self.hint_pit = self.game.side * 7 + self.engine.best_move
                self.dirty = True
        elif mode == SOW:
            if self.settings["quick"] and el >= self.QUICK_MS:
                self.drop_stone()
        elif mode == SHOW:
            if self.settings["quick"] and el >= self.SHOW_MS:
                self.start_sow()
        elif mode == ANIM:
            if self.grading and self.engine.done:
                self.finish_grade()
            if not self.grading and (el >= self.ANIM_MS or not (self.flags or self.game.end)):
                self.after_anim()
        elif mode == GRADE:
            if el >= self.GRADE_MS:
                self.after_grade()
        elif mode == LED_TEST:
            if el >= 7 * self.LED_TEST_STEP_MS:
                self.set_mode(BOOT if self.boot_codes else self.next_mode)

    def search_slice(self, t0):
        """The rest of the loop turn begun at `t0` goes to the engine while the
        computer thinks (no turn sleeps then; a turn may end a chunk late), a hint
        or a grade searches (short of PONDER_RESERVE_MS: while a person may act, no
        turn runs late).  The result is taken up by update() in the next turn.
        Otherwise, against Master, the engine ponders (ponder_slice)."""
        e = self.engine
        if e is None:
            return
        if self.pregrade and self.mode != SOW:  # the move being sown was taken back
            self.pregrade = False
            e.stop()
        if not (self.mode == THINK or self.hinting or self.grading or self.pregrade):
            self.ponder_slice(t0)
            return
        self.pondering = False  # the engine is someone else's: ponder again after
        if e.done:
            return
        clock = self.clock
        left = self.FRAME_MS - clock.diff(clock.now(), t0)
        t = clock.now()
        if self.mode != THINK:  # a grade, a hint: the person's turn is never late
            left -= self.PONDER_RESERVE_MS
            if left > 0:
                e.step_for(left, self.PONDER_CHUNK)
        elif left > 0:
            e.step_for(left, self.SLICE)
        else:  # a long turn (a save): still a little progress
            e.step(self.SLICE)
        self.search_ms += clock.diff(clock.now(), t)

    def ponder_slice(self, t0):
        """Thinking on the person's time: against Master, while the person carries
        out the computer's move, thinks and sows, the engine searches the position
        the next move is made in (keeping its table, so the computer's think starts
        warm).  It takes only what a loop turn has left short of PONDER_RESERVE_MS,
        so it never delays a press, a frame or a save; a new target (a move, a
        takeback, a new game) restarts it."""
        g = self.game
        e = self.engine
        mode = self.mode
        if not self.PONDER or g is None or g.over or self.meta["level"] != 4 or \
                not (mode == SELECT or mode == SOW or mode == SHOW or mode == ANIM or
                     mode == GRADE or mode == BLUNDER):
            if self.pondering:
                self.pondering = False
                e.stop()
            return
        clock = self.clock
        left = self.FRAME_MS - self.PONDER_RESERVE_MS - clock.diff(clock.now(), t0)
        if left <= 0:
            return
        target = self.ponder_target
        if target is None:
            target = self.ponder_target = bytearray(16)
            self.pondered = bytearray(16)
        target[:] = g.pos
        if mode == SOW or mode == SHOW:  # the move being carried out: after it
            g.rules.move(target, self.sow_pit)
        if not target[MASK]:
            return
        if not self.pondering or target != self.pondered:
            self.pondered[:] = target
            e.keep = True
            e.start(target, nodes=self.PONDER_NODES, clock=clock.now)
            self.pondering = True
        if not e.done:
            t = clock.now()
            e.step_for(left, self.PONDER_CHUNK)
            self.ponder_ms += clock.diff(clock.now(), t)

    def computer_moves(self):
        g = self.game
        pit = -1 if self.engine is None else self.engine.best_move
        mask = g.pos[MASK]
        if not (0 <= pit < 6 and mask >> pit & 1):
            for k in range(6):
                if mask >> k & 1:
                    pit = k
                    break
        self.begin_move(pit)
        self.set_mode(SHOW)

    # -- drawing -------------------------------------------------------------------

    def render(self):
        mode = self.mode
        animating = ANIMATED >> mode & 1 or self.flash or self.blink_mask or \
            self.hint_pit >= 0 or self.show_count_pit >= 0 or self.hinting or self.unsaved
        now = self.clock.now()
        # a pit under a finger lights at once (pit-to-light: on the first raw edge,
        # pits.touched()), and goes out at once
        touch = self.pits.touched() & ~self.pits.ignored
        if mode == SENSOR_TEST or mode == LED_TEST:
            touch = 0
        if not (self.dirty or touch != self.touch_drawn or animating and
                self.clock.diff(now, self.t_frame) >= self.ANIM_FRAME_MS):
            return
        self.touch_drawn = touch
        self.dirty = False
        self.t_frame = now
        px = self.px
        el = self.clock.diff(now, self.t_mode)
        phase = (el // self.BLINK_MS) & 1
        px.begin(not (self.covers and mode >= SELECT and mode <= OVER_))  # a game frame
        # draws every LED: nothing to clear
        if mode == BOOT:
            self.draw_boot(el)
        elif mode == MENU:
            self.draw_menu(phase)
        elif mode == SENSOR_TEST:
            act = self.pits.stable
            for i in range(14):
                if act >> i & 1:
                    px.fill(i, RED if self.pits.ignored >> i & 1 else WHITE)
                else:
                    px.count(i, 0, SOUTH)
        elif mode == LED_TEST:
            step = el // self.LED_TEST_STEP_MS
            if step < 4:
                c = (RED, GREEN, (0, 0, 255), WHITE)[step]
                for i in range(14):
                    px.fill(i, c)
            else:
                for i in range(14):
                    px.count(i, i + 1)
        elif mode == ERROR:
            pass
        else:
            self.draw_game(mode, el, phase)
        if touch:
            for i in range(14):
                if touch >> i & 1:
                    px.dot(i, 0, WHITE)
        if self.unsaved and mode != BOOT:
            self.draw_full_code(now)
        if self.flash and (self.clock.diff(now, self.t_flash) // 125) & 1 == 0:
            for i in range(14):
                if self.flash >> i & 1:
                    px.fill(i, RED)
        px.show()
        if self.status is not None:
            self.status.value(1 if (mode == THINK or mode == BOOT) and phase else 0)
        self.frame_no += 1
        if self.on_frame is not None:
            self.on_frame(self)

    def draw_boot(self, el):
        # each code: c amber blinks of the stores (settings: 2) or all pits (game: 3)
        t = el // self.BOOT_BLINK_MS
        for c in self.boot_codes:
            span = 2 * c + 3
            if t < span:
                if t < 2 * c and t & 1 == 0:
                    mask = STORES if c == 2 else 0x3FFF & ~STORES
                    for i in range(14):
                        if mask >> i & 1:
                            self.px.fill(i, AMBER)
                if self.status is not None:
                    self.status.value(1 if t < 2 * c and t & 1 == 0 else 0)
                return
            t -= span

    def draw_full_code(self, now):
        """While saves fail: the full-flash code (all 14 blink amber four times) when
        it begins and again every FULL_REMIND_MS."""
        t = self.clock.diff(now, self.t_unsaved)
        if t >= self.FULL_REMIND_MS:
            self.t_unsaved = now
            t = 0
        t //= self.BOOT_BLINK_MS
        if t < 2 * self.FULL_CODE and t & 1 == 0:
            for i in range(14):
                self.px.fill(i, AMBER)

    def draw_menu(self, phase):
        px = self.px
        for k in range(len(ITEMS)):
            key, pit, col = ITEMS[k]
            px.fill(pit, col, 1 if k == self.item else 6)
        key, _, col = ITEMS[self.item]
        cur = self.choice(key)
        for c in range(self.choices(key)):
            px.count(7 + c, c + 1, GREEN if c == cur else col)
        if phase:
            px.fill(N_STORE, GREEN, 1)
        else:
            px.fill(N_STORE, GREEN, 4)

    def draw_game(self, mode, el, phase):
        px = self.px
        g = self.game
        shown = self.shown
        side = g.side
        legal = 0
        bg_col = SOUTH
        if mode == SELECT:
            legal = g.pos[MASK] << (side * 7)
            bg_col = SIDE_COLOURS[side]
        for i in range(14):
            bg = None
            if legal >> i & 1:
                bg = bg_col
                if self.single and phase and shown[i]:
                    px.fill(i, bg_col)  # one LED: a playable pit blinks its side's colour
                    continue
            if i == self.hint_pit and phase:
                bg = GREEN
                if self.single and shown[i]:
                    px.fill(i, GREEN)
                    continue
            px.count(i, shown[i], bg)
        if self.hinting and phase:
            st = side * 7 + 6
            px.count(st, shown[st], GREEN)
        if mode == SOW:
            tgt = self.sow_path[self.sow_i]
            px.count(tgt, shown[tgt], WHITE)
            if shown[tgt] >= self.spans[tgt][1] and phase:
                px.fill(tgt, WHITE)
        elif mode == THINK:
            comp = side * 7
            k = (el // self.THINK_STEP_MS) % 6
            px.count(comp + k, shown[comp + k], SIDE_COLOURS[side])
        elif mode == SHOW:
            if phase:
                px.fill(self.sow_side * 7 + self.sow_pit, SIDE_COLOURS[self.sow_side])
        elif mode == ANIM:
            self.draw_anim(el, phase)
        elif mode == GRADE:
            px.fill(self.before[SIDE] * 7 + self.sow_pit, GRADE_COLOURS[self.grade[0]])
        elif mode == BLUNDER:
            th = self.grade[2]
            if th >= 0 and phase:
                px.fill((self.before[SIDE] ^ 1) * 7 + th, RED)
            st = self.before[SIDE] * 7 + 6
            px.count(st, shown[st], WHITE if phase else None)
        elif mode == OVER_:
            self.draw_over(phase)
        if self.blink_mask and phase:
            for i in range(14):
                if self.blink_mask >> i & 1:
                    px.fill(i, WHITE)
        if self.show_count_pit >= 0:
            self.draw_count_blinks()

    def draw_anim(self, el, phase):
        px = self.px
        f = self.flags
        col = SIDE_COLOURS[self.anim_side]
        store = self.anim_side * 7 + 6
        if f >= CAPTURED and phase:  # captured pits flash in the mover's colour
            for i in range(14):
                if (f >> 3) >> i & 1:
                    px.fill(i, col)
        if f & EXTRA and not f & OVER:
            px.dot(store, el // 80, col)
            px.dot(store, el // 80 + 1, col)
        if f & OVER and phase:
            px.fill(store, col)

    def draw_over(self, phase):
        px = self.px
        g = self.game
        w = g.winner()
        for i in range(14):
            if i == S_STORE or i == N_STORE:
                continue
            if w == -1:
                c = SIDE_COLOURS[(i + phase) & 1]
            else:
                c = SIDE_COLOURS[w]
            if g.end == END_REPETITION or g.end == END_AGREEMENT:
                c = c if phase else AMBER
            px.fill(i, c, 3)
        # the stores keep their final counts, in the winner's background
        px.count(S_STORE, self.shown[S_STORE], SOUTH)
        px.count(N_STORE, self.shown[N_STORE], NORTH)

    def draw_count_blinks(self):
        i = self.show_count_pit
        t = self.since(self.t_count) // 300
        c = self.shown[i]
        if t >= 2 * c + 2:
            self.show_count_pit = -1
            return
        self.px.fill(i, LAPS[0] if t & 1 == 0 and t < 2 * c else (0, 0, 0))


class _Rng:
    def __init__(self, seed):
        self.x = (seed * 1103515245 + 12345) & 0x3FFFFFFF or 1

    def next(self):
        x = self.x
        x ^= (x & 0x1FFFF) << 13
        x ^= x >> 17
        x ^= (x & 0x1FFFFFF) << 5
        self.x = x & 0x3FFFFFFF
        return self.x


# -- building the board from its profile -----------------------------------------

class ErrorBoard:
    """A board that cannot play (a bad profile, hardware that will not start, or
    main.py's safe state): the reasons on the console every 10 s, a blink code
    on the status LED and, where the LEDs work, every pit blinking dim red.
    Never a crash, and never healthy: on trial, main.py's deadman resets it."""

    mode = ERROR

    def __init__(self, errors, status, clock, log, pixels=None):
        self.errors = errors
        self.status = status
        self.clock = clock
        self.log = log
        self.np = pixels  # a neopixel.NeoPixel, or None
        self.t0 = clock.now()
        self.last_print = None
        self.lit = -1
        self.report()

    def report(self):
        self.log("the board cannot play:" if self.np is not None else "board profile is not usable:")
        for e in self.errors:
            self.log("  " + e)
        self.last_print = self.clock.now()

    def tick(self):
        t = self.clock.diff(self.clock.now(), self.t0) // 150 % 14
        # 5 quick blinks, then a pause: "profile"
        on = 1 if t < 10 and t & 1 == 0 else 0
        if self.status is not None:
            self.status.value(on)
        if self.np is not None and on != self.lit:
            self.lit = on
            try:
                self.np.fill((6, 0, 0) if on else (0, 0, 0))  # dim: 0.5 mA an LED, within USB power
                self.np.write()
            except Exception:  # noqa: BLE001 - the LEDs are what failed: the console still tells
                self.np = None
        if self.clock.diff(self.clock.now(), self.last_print) >= 10000:
            self.report()

    def run(self):
        while True:
            self.tick()
            self.clock.sleep(50)


def pick_profile(profile=None):
    from mancala import profiles

    if isinstance(profile, dict):
        return profile
    if profile is None:
        try:
            with open("/data/board.txt") as f:
                profile = f.read().strip()
        except OSError:
            profile = "esp32" if sys.platform == "esp32" else profiles.DEFAULT
            return profiles.load(profile)
        fix = "; set it with: make deploy PROFILE=NAME (one of %s)" % ", ".join(profiles.NAMES)
        if not profile:
            raise ValueError("/data/board.txt is empty" + fix)
        if profile.replace("-", "_") not in profiles.NAMES:
            raise ValueError("/data/board.txt names an unknown board profile %r%s" % (profile, fix))
    return profiles.load(profile)


def make_sensors(p, machine):
    """The profile's pit sensors: GPIO switches or hall sensors behind the mux, with
    the debounce of their kind (mancala.profile.debounce_ms; Pits takes it)."""
    from mancala.profile import debounce_ms

    if p["sensor"] == "gpio":
        pins = [machine.Pin(n, machine.Pin.IN, machine.Pin.PULL_UP) for n in p["pit_pins"]]
        return P.GpioSensors(pins, debounce_ms(p))
    sel = [machine.Pin(n, machine.Pin.OUT) for n in p["mux_select"]]
    adc = machine.ADC(machine.Pin(p["mux_adc"]))
    return P.MuxSensors(sel, adc, p["mux_channels"], p["hall_threshold"], p["hall_hysteresis"],
                        debounce_ms(p))


def build(profile, machine, neopixel, clock, fs=None, engine_cls=None, log=print, seed=None,
          strict=False, fault=None):
    """The App for `profile` on these `machine`/`neopixel` modules (or an ErrorBoard;
    `fault`: main.py's safe state, the ErrorBoard with the LEDs lit)."""
    from mancala.profile import validate

    status = None
    try:
        errs = [profile["error"]] if "error" in profile else validate(profile)
    except Exception as e:  # noqa: BLE001
        errs = ["the profile could not be checked: %r" % (e,)]
    st_pin = profile.get("status_led") if isinstance(profile, dict) else None
    if isinstance(st_pin, int):
        try:
            status = machine.Pin(st_pin, machine.Pin.OUT)
        except Exception:  # noqa: BLE001
            status = None
    if errs:
        return ErrorBoard(errs, status, clock, log)
    if fault is not None:
        np = None
        try:
            np = neopixel.NeoPixel(machine.Pin(profile["led_pin"], machine.Pin.OUT), profile["led_count"])
        except Exception:  # noqa: BLE001
            pass
        return ErrorBoard([fault], status, clock, log, np)
    try:
        p = profile
        sensors = make_sensors(p, machine)
        np = neopixel.NeoPixel(machine.Pin(p["led_pin"], machine.Pin.OUT), p["led_count"])
        px = Pixels(np, p["leds"], p["led_count"], p["ma_per_channel"], p["idle_ma_per_led"],
                    p["current_limit_ma"], p["brightness_levels"])
        pits = P.Pits(sensors, clock)
        if fs is None:
            fs = S.OsFs()
        storage = S.Storage(fs)
        if engine_cls is None:
            from mancala.engine import Engine as engine_cls
    except Exception as e:  # noqa: BLE001 - a pin the port refuses, a missing module
        return ErrorBoard(["the hardware could not be set up: %r" % (e,)], status, clock, log)
    return App(profile, pits, px, clock, storage, engine_cls, status, log, seed, strict)


def main(profile=None, machine=None, neopixel=None, clock=None, fs=None, engine_cls=None,
         log=print, seed=None, run=True, strict=False, fault=None):
    """Device entry (firmware/main.py calls main(), or main(fault=why) for its safe
    state); the PC injects its fakes."""
    if machine is None or neopixel is None:
        from mancala.hw import device_modules

        m, n = device_modules()
        machine = machine or m
        neopixel = neopixel or n
    if clock is None:
        from mancala.hw.clock import Clock

        clock = Clock()
    try:
        prof = pick_profile(profile)
    except Exception as e:  # noqa: BLE001
        prof = {"error": str(e)}
    board = build(prof, machine, neopixel, clock, fs, engine_cls, log, seed, strict, fault)
    if run:
        board.run()
    return board
