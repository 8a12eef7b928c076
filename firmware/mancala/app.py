"""The board: its loop, the switch between its modes (mancala/modes/: the menu, the
person's move and sowing, the computer's turn, the coach, the power-on tests, boot and
errors), the state they share, saving, and the engine's share of each loop turn.

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

import gc
import sys

import mancala.game  # noqa: F401 - first: game.py takes the room for the session's buffers
import mancala.modes.activities  # noqa: F401 - the puzzles' and the course's numbers and menu
from mancala import forget
from mancala import modes as M
from mancala.hw import pits as P
from mancala.hw.pixels import RED, WHITE
from mancala.modes import (  # noqa: F401 - mancala.app.SELECT..., and a session's modes at import
    ANIM,
    BLUNDER,
    BOOT,
    ERROR,
    GRADE,
    LED_TEST,
    MENU,
    MODES,
    OVER_,
    PAUSE_BLUNDER,
    PAUSE_SOWING,
    SELECT,
    SENSOR_TEST,
    SHOW,
    SOW,
    THINK,
)
from mancala.record import format_record
from mancala.rules import MASK, N_STORE, S_STORE

MODE_NAMES = M.NAMES  # the modes' names by number (a mode added later appends its own)


def __getattr__(name):
    """mancala.app.ErrorBoard, .DEFAULTS, .ITEMS, .VARIANT_CHOICES, .HINT_CHOICES: their
    modules imported only when asked for (a board that plays never holds the error
    board's code; one that boots into a saved game, not the menu's until it is shown).
    Module __getattr__: MicroPython's MICROPY_MODULE_GETATTR, and CPython."""
    if name in ("pick_profile", "make_sensors"):  # modes/start.py
        from mancala.modes import start

        return getattr(start, name)
    if name == "ErrorBoard":
        from mancala.modes.errors import ErrorBoard

        return ErrorBoard
    if name in ("DEFAULTS", "ITEMS", "VARIANT_CHOICES", "HINT_CHOICES"):  # modes/menu.py
        from mancala.modes import menu

        return getattr(menu, name)
    raise AttributeError(name)


# Set by the device's main.py (A/B slots): called once the loop has run healthily
# (HEALTHY_TURNS turns in a row with no exception, and not the error board: a second
# of 20 ms turns, up to ~12 s of a think's long slices, within a trial's), which
# disarms main.py's deadman and ends a new version's trial (docs/UPDATING.md).
confirm_boot = None
HEALTHY_TURNS = 50

STORES = (1 << S_STORE) | (1 << N_STORE)
# What the engine's table must leave free on the heap (App.board_engine), for the rest
# of the game's code and its saves (its modes, the coach): on the ESP32's stand-in a
# table that took all but 8 KB (2**10 where 2**9 had left 11) ran out in the game, and
# with the coach on saves failed; they went through from ~14 KB free after the start
# (docs/BOARD.md, "Memory through the boot path").  12 KB of a 32-bit chip; the 64-bit
# unix port's objects take ~1.35x their room.
GAME_ROOM = (16 if sys.maxsize > 1 << 32 else 12) * 1024


class App:
    FRAME_MS = 20  # loop period
    STARVED_TURNS = 25  # turns whose way back found no room before a restart (shed())
    # A block kept free for a save that finds no room (roomy): an open file's object and
    # buffer (304 B on the 64-bit unix port) and the game's text
    SPARE_BYTES = 1024
    ANIM_FRAME_MS = 60  # animations redraw this often (a press redraws at once)
    FLASH_MS = 500  # a red "no" flash
    FLASH_BLINK_MS = 125  # ... on, off, on, off
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
    # A think's loop turn, while nothing waits (every pit up and settled, no flash, no
    # frame pending) on sensors that can say a level changed (Pits.woken), searches
    # until the next frame is due, at most this long, instead of polling and checking
    # timers every FRAME_MS: a pit's edge ends the slice within a chunk.  (~2.4 ms of
    # each 20 ms turn went there on the RP2040 model; docs/ENGINE.md, "A think is all
    # search".)  FRAME_MS: always short turns (the terminal simulator, which reads its
    # keys between turns).  More than a step of the think's light: a step drawn early
    # on a tap's frame (THINK_SHARE_MS) leaves up to a step and that share to the next,
    # which then needs no loop turn of its own in between.
    LONG_SLICE_MS = 400
    SETTLES = 6  # pit readings inside one long slice at most (settle_pits)
    # The search budgets are the engine's, set for the CPU it runs on (the machine-code
    # kernels search ~11x the bytecode's nodes: engine.NATIVE_BUDGETS); a number here
    # overrides one (tests), None takes the engine's.
    COACH_NODES = None  # nodes the coach spends grading a move (None: engine.grade_nodes)
    LED_TEST_STEP_MS = 600
    THINK_STEP_MS = 250  # the thinking animation moves one pit this often (with the
    # status LED's blink: each of its frames costs the think ~8 ms on a Pico, the wire
    # 5.4 ms of it)
    # A step of it due within this many ms comes at once when a frame goes out anyway
    # (a press's dot, the red flash's blinks: a tap during a think costs the search
    # those frames alone, not the light's steps besides; the light keeps its pace)
    THINK_SHARE_MS = 100
    search_ms = 0  # loop time given to the engine (a running total: measurements)
    MASTER_MS = 2000  # Master's think on the board (engine.MASTER_MS)
    MASTER_CAP = None  # ... and its node cap (engine.master_cap)
    PONDER = True  # think on the person's time against Master
    PONDER_RESERVE_MS = 8  # of a loop turn pondering leaves free (a chunk may run late)
    PONDER_CHUNK = 2  # nodes between clock reads while pondering
    PONDER_NODES = None  # a pondering search's cap (engine.ponder_nodes)
    pondering = False  # a pondering search is running (or finished) on `pondered`
    settings = {}  # type: dict  # (the board's: modes/start.py start() sets them)
    pregrade = False  # the coach grades the move being sown (early_grade)
    ponder_target = None  # (bytearrays made at the first ponder)
    pondered = None
    ponder_ms = 0  # loop time given to pondering (a running total: measurements)
    touch_drawn = 0  # the pits lit under a finger in the last frame
    partial = 0  # pits to draw again (App.redraw; the whole frame where `dirty`)
    partial_since = 0  # the pits drawn alone since the last whole frame
    whole_total = 0  # that whole frame's current estimate (Pixels.total)
    flash_step = 0  # the red flash's blink step last drawn
    status_on = 0  # what the status LED shows
    in_loop = False  # a loop turn (tick) is under way
    switching = False  # set_mode() left the mode's enter to tick() (enter_mode)
    idle = None  # idle sleep and the battery (mancala/idle.py; set by build())
    session_game = None  # type: mancala.game.Game  # the game whose buffers a session reuses (modes/start.py)

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
        self.starved = 0  # ... in which even the way back found no room (shed())
        self.think_frame = -1  # the thinking animation's step last drawn
        self.think_light = 0  # the pit its light was last drawn on
        self.restart = None  # machine.reset on the board (main()): shed()'s last resort
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
        self.boot_codes = []  # type: list  # blink codes still to show
        self.unsaved = False  # the last save failed: the game goes on in memory
        self.t_unsaved = 0  # when the full-flash code last began
        self.item = 0
        self.show_count_pit = -1
        self.t_count = 0
        self.menu_game = False
        self.error_lines = []
        self.short = []  # what the board started without for lack of memory (menu.short)
        self.spare = None  # SPARE_BYTES kept for a save (roomy), taken with the session's
        # buffers, in the room (modes/start.py start)
        self.heap_watch = False  # /data/heap_watch on the flash: the heap said at each
        # think and game end (docs/BOARD.md, "Memory through the boot path")
        self.on_frame = None  # callback after each frame (simulator, tests)
        # (the class's defaults, set here too: the loop sets them at its first turns, and
        # the instance's dict then grew by a new block of ~1.2 KB in the game, which an
        # ESP32's heap in pieces did not have: docs/BOARD.md "Memory through the boot path")
        self.in_loop = self.switching = self.pondering = self.pregrade = False
        self.partial = self.partial_since = self.whole_total = self.status_on = 0
        self.search_ms = self.ponder_ms = 0
        self.ponder_target = self.pondered = None
        from mancala.modes.start import start  # the boot's code (dropped once it is over)

        start(self, storage, log)

    # -- settings and the saved game -------------------------------------------

    @staticmethod
    def board_engine(rules, **kw):
        """The board's engine (mancala.engine.Engine), its code imported when the first
        is built: first_engine(), after the start's code has gone.  A table bigger than
        the smallest that leaves less than GAME_ROOM of the heap free is refused as one
        that found no room (menu.need_engine then builds a smaller)."""
        from mancala.engine import Engine

        e = Engine(rules, **kw)
        free = getattr(gc, "mem_free", None)  # (CPython: no heap to run out of)
        if e.tt_bits > 8 and free is not None:
            gc.collect()
            if free() < GAME_ROOM:  # (dropped, not released: its table not kept for the next)
                e = None
                raise MemoryError("the game's room")
        return e

    def first_engine(self):
        """The machine-code kernels and the engine, once the start's code has gone (on an
        ESP32 the start's code and the engine's did not fit the heap together: docs/BOARD.md,
        "Memory through the boot path"); a start with less memory is said (menu.short) and
        blinked at power-on, where the boot's codes are still to come."""
        from mancala.modes.menu import MEMORY_CODE, need_engine, short
        from mancala.search import native_module, native_why

        kernels = native_module()
        if kernels is not None:  # the LED buffer's loops in machine code (hw/pixels.py)
            self.px.use_kernels(kernels.leds_fill2, kernels.leds_remap)
        kernels = None
        if "MemoryError" in native_why():  # (rp2 keeps the kernels' code on the heap: ~45 KB)
            short(self, "memory: no room for the machine-code engine: the bytecode plays")
        need_engine(self, self.session_game.rules)  # (the saved game's, if one came back)
        if self.short and MEMORY_CODE not in self.boot_codes:
            self.boot_codes.append(MEMORY_CODE)  # (the boot's mode shows them, if it runs)
        need_engine = short = None
        if self.mode != BOOT:  # (the power-on tests, an activity: the menu's code goes again)
            M.forget_others(self.mode)

    def take_spare(self):
        """The spare (SPARE_BYTES, one block), taken again once a save has used it."""
        self.spare = None
        gc.collect()
        try:
            self.spare = bytearray(self.SPARE_BYTES)
        except MemoryError:  # (the next save that needs it tries again)
            pass

    def say_no_room(self, what, e):
        """A console line for a MemoryError that the board goes on after: the error's
        text in it needs room too, and where there is none the line goes alone (a line
        that raised would stop what it reports halfway)."""
        try:
            self.log("%s (%r)" % (what, e))
        except MemoryError:
            try:
                self.log(what)
            except MemoryError:
                pass

    def roomy(self, fn, *args):
        """fn(*args); if it found no room, once more in the spare's: a heap in pieces
        (an ESP32's, nearly full) can have kilobytes free and no block for a file's
        buffer, and then a save would fail at every move."""
        try:
            return fn(*args)
        except MemoryError:
            if self.spare is None:
                self.take_spare()  # (none the last time: maybe there is room now)
                raise
            self.spare = None
            gc.collect()
            try:
                return fn(*args)
            finally:
                self.take_spare()

    def store_call(self, fn, *args):
        """A storage write; None if it went through, else the OSError (flash full,
        I/O error) or the MemoryError (no room even in the spare's): the board goes
        on without it, on flash the last save is whole."""
        try:
            self.roomy(fn, *args)
        except (OSError, MemoryError) as e:
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
        if isinstance(err, MemoryError):  # (the flash is fine: the next save writes it all)
            self.say_no_room("memory: no room to save now: the game goes on in memory, saved "
                             "at the next move; a power cut before then loses the moves since",
                             err)
            return False
        if not self.unsaved:
            self.unsaved = True
            self.t_unsaved = self.clock.now()
            self.dirty = True
            self.log("flash: cannot save (%r): the game goes on in memory; free room on "
                     "the flash (pull and remove old games) or a power cut loses the moves "
                     "since the last save" % (err,))
        return False

    def boot_game(self):
        """The saved game back (modes/start.py: code the boot alone needs)."""
        from mancala.modes.start import boot_game

        boot_game(self)

    def save_game(self):
        try:
            self.roomy(self._save_game)
        except MemoryError as e:
            # (no room for the record's text on a heap in pieces, even in the spare's:
            # the game goes on in memory, whole, and the next move's save writes it all)
            self.saved(e)

    def _save_game(self):
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
            if self.heap_watch:
                self.say_heap("game %d over" % m["number"])

    def say_heap(self, when):
        from mancala.heap import line

        self.log("heap: %s: %s" % (when, line()))

    def archive(self, rec):
        """Keep a finished game in /data/games under its number, once; never over
        another game (its number is then renewed and saved first)."""
        m = self.meta
        if self.store.archived(m["number"], rec) < 0:
            m["number"] = self.store.next_game_number(m["number"])
            self.save_game()  # saves, then archives under the new number
            return
        self.saved(self.store_call(self.store.add_game, m["number"], rec))

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
        if self.in_loop and M.forget_others(mode, False):  # (the board: another group's code goes)
            self.switching = True  # ... once it has returned: tick() ends the switch
            return
        self.enter_mode()

    def enter_mode(self):
        """The switch to self.mode ends: on the board the other groups' modules go (the
        menu in a game, the game's in the menu, the boot, the tests: modes.GROUPS), then
        the mode's module comes (if it went) and the mode is entered.  Inside the loop
        tick() calls it once the hook that switched has returned, so no code of a module
        dropped is running (or left in a live frame) when the next one is imported."""
        self.switching = False
        M.forget_others(self.mode)
        (MODES[self.mode] or M.load(self.mode)).enter(self)

    def since(self, t):
        return self.clock.diff(self.clock.now(), t)

    def no(self, mask):
        """A red flash on `mask`: that press changed nothing."""
        self.redraw(self.flash | mask)  # (the pits of a flash it cuts short go out)
        self.flash = mask
        self.t_flash = self.clock.now()
        self.flash_step = 0

    def redraw(self, mask):
        """These pits changed: only they are drawn again where the mode draws pit by
        pit (its draw_pit: a think), else the whole frame."""
        self.partial |= mask

    def turn_mode(self):
        g = self.game
        if g.over:
            return OVER_
        if self.human(g.side):
            return SELECT
        self.start_thinking()
        return THINK

    def start_thinking(self):
        self.think_frame = -1  # (the light's steps counted from this think's start)
        if self.engine is None:
            return
        li = self.meta["level"] - 1
        self.pondering = False
        self.engine.keep = li == 3  # Master starts from the table pondered on
        if li == 3:  # Master: by the board's clock (the lower levels count nodes)
            self.engine.start(self.game.pos, level=li,
                              nodes=self.MASTER_CAP or self.engine.master_cap,
                              deadline_ms=self.MASTER_MS, clock=self.clock.now)
        else:
            self.engine.start(self.game.pos, level=li, clock=self.clock.now)
        if self.heap_watch:
            self.say_heap("think")

    # -- the loop ----------------------------------------------------------------

    def tick(self):
        """One turn of the main loop: read the pits, advance timers, draw, then give
        the engine what is left of the turn (FRAME_MS) if it has a search to run."""
        t0 = self.clock.now()
        if self.idle is not None and self.idle.turn(self, t0):
            return  # asleep or waking: the turn is mancala/idle.py's
        self.in_loop = True
        try:
            while self.switching:  # (a mode whose module found no room last turn: again)
                self.enter_mode()
            for ev in self.pits.poll():
                self.on_event(ev)
                while self.switching:  # a mode switched to another group's (set_mode;
                    self.enter_mode()  # an enter() may switch again)
            if self.pits.touched() != self.touch_drawn:  # a finger came or went: its
                self.redraw(self.pits.touched() ^ self.touch_drawn)  # pit lights at once
            self.update()
            while self.switching:
                self.enter_mode()
            self.render()
            self.search_slice(t0)
            while self.switching:  # (no slice switches today: never left for the next turn)
                self.enter_mode()
            self.errors = 0
            self.starved = 0
        except Exception as e:  # noqa: BLE001 - the board must keep running
            self.in_loop = False
            if self.strict:
                raise
            hungry = isinstance(e, MemoryError)
            if hungry:  # (a line, not a traceback: the board goes on, and says how: shed())
                self.say_no_room("memory: out of room in the loop", e)
            else:
                self.log_exc(e)
            # No room in a game: the game in memory is whole (a move is made at once, in
            # place, and saved after), so it stays, in its mode; what found no room (most
            # often the next mode's module) is tried again next turn, with the room shed()
            # makes.  (recover() would read back the last save, itself a file to open,
            # losing the moves since, and could land in the menu.)
            if not (hungry and self.game is not None and SELECT <= self.mode <= OVER_):
                try:
                    self.recover()
                except MemoryError:  # (recover's own module found no room)
                    hungry = True
            if hungry:
                try:
                    self.shed()
                except MemoryError:  # (its line found no room: the next such turn says it)
                    pass
            if MODES[self.mode] is None:  # its module did not load: the next turn
                self.switching = True  # loads it again before anything asks it
        self.in_loop = False

    def shed(self):
        """A turn that ran out of memory (tick): once is a moment (the way back frees what
        it held, and the spare goes: roomy() takes it again when a save needs it); a
        second turn in a row gives up what the board plays on without, one a turn (the
        opening book, then the endgame table: said on the console and in the
        status, as a start with less is); after STARVED_TURNS such turns the board
        starts again (machine.reset: the saved game comes back, and the start takes what
        fits).  The game in memory is as it was."""
        self.starved += 1
        self.spare = None  # (a save's spare block is the room a turn like this needs most)
        gc.collect()
        if self.starved < 2:
            return
        e = self.engine
        gone = None
        if e is not None and getattr(e, "book", None) is not None:
            e.book.close()
            e.set_book(None)
            gone = "the opening book"
        elif e is not None and getattr(e, "table", None) is not None:
            e.table.close()
            e.set_table(None)
            gone = "the endgame table"
        e = None
        gc.collect()
        if gone is not None:
            why = "memory: out of room in play: playing on without " + gone
            self.log(why)
            self.short.append(why)
        elif self.starved >= self.STARVED_TURNS and self.restart is not None:
            try:  # (a line that finds no room must not keep the board from restarting)
                self.log("memory: %d turns in a row out of room: starting again" % self.starved)
            finally:
                self.restart()
        else:
            self.log("memory: out of room this turn: trying again")

    def log_exc(self, e):
        """An exception and its traceback on the console (the modes' too: recover())."""
        pe = getattr(sys, "print_exception", None)
        if pe is not None:
            pe(e)
        else:
            tb = __import__("traceback")  # CPython
            tb.print_exception(type(e), e, e.__traceback__)
        self.log("error: %r" % (e,))

    def recover(self):
        """After an error: back to the saved state (modes/errors.py)."""
        from mancala.modes.errors import recover

        recover(self)

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
        """A pit event: what every mode does with it (a stuck sensor, a finger down or
        up), then the mode's own on_event."""
        kind = ev >> 16
        arg = ev & 0xFFFF
        if kind == P.STUCK:
            self.log("sensor %d is stuck active: ignored until it releases" % arg)
            self.no(1 << arg)
            return
        if kind == P.DOWN or kind == P.FREED:
            # the pressed pit lights at once, unless its raw edge lit it already (the
            # touch layer draws pits.touched(): no frame again for the same dot)
            if not (MODES[self.mode].touch and self.touch_drawn >> arg & 1):
                self.redraw(1 << arg)
            return
        MODES[self.mode].on_event(self, kind, arg)

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
        if left > 0 and (self.mode == ANIM and self.grading or  # (quick: the board sows
                         self.mode == SOW and self.pregrade and not self.settings["quick"]):
            # The coach's grade while the person sows its move, then waits for it: the
            # board's frames change only when the next stone's pit blinks (its phase) or
            # a capture's animation moves, so where the pits say a level changed the grade
            # takes a think's long slices to that frame (an edge ends one within a
            # chunk), not what each 20 ms turn leaves after PONDER_RESERVE_MS (34-44% of
            # the time; docs/ENGINE.md, "The coach's wait").
            wake = self.long_slice_wake()
            if wake is not None:
                due = self.pits.unpolled_ms(t, self.frame_due(t))
                e.step_for(due if due > left else left, self.SLICE, wake, self.pits.sensors)
            else:
                e.step_for(left - self.PONDER_RESERVE_MS if self.mode == SOW else left,
                           self.SLICE)
        elif self.mode != THINK:  # a grade, a hint: the person's turn is never late
            left -= self.PONDER_RESERVE_MS
            if left > 0:
                e.step_for(left, self.PONDER_CHUNK)
        elif left > 0:
            wake = self.long_slice_wake()
            if wake is not None:  # (and the kernel watches the pits' register, if any)
                # A slice a pit's edge or debounce ended, not the think's next frame,
                # goes on after the pits are read here when they changed nothing on
                # the board (a press's debounce, the release before its tap): the
                # loop turn would have drawn nothing (issue 22: a tap's cost)
                now = clock.now()
                t_frame = now + self.frame_due(now)
                for _ in range(self.SETTLES):
                    left = self.until_think_frame(left)
                    e.step_for(left, self.SLICE, wake, self.pits.sensors)
                    if e.done or clock.diff(clock.now(), t_frame) >= 0 or not self.settle_pits():
                        break
                    left = 0
            else:
                e.step_for(left, self.SLICE)
        else:  # a long turn (a save): still a little progress
            e.step(self.SLICE)
        self.search_ms += clock.diff(clock.now(), t)

    def long_slice_wake(self):
        """The think's slice may run past its turn (LONG_SLICE_MS): the pits' wake
        check (Pits.woken) when the sensors have one and no frame waits (nothing
        marked to draw, nothing animating but the think's light: no takeback blink,
        no count blinking, no save failing), else None."""
        if self.LONG_SLICE_MS <= self.FRAME_MS or self.blink_mask or self.dirty or \
                self.partial or self.unsaved or self.show_count_pit >= 0 or \
                self.hint_pit >= 0 or self.hinting:  # (render()'s animating ones too:
            return None  # a held pit's count blinks on its own 300 ms steps)
        return self.pits.woken

    def settle_pits(self):
        """The pits read inside a think's long slice, their events handled as a loop
        turn handles them; True when the board then has nothing to draw, no mode to
        change, and the slice may go on (else the next turn comes at once)."""
        for ev in self.pits.poll():
            self.on_event(ev)
            while self.switching:  # (as tick() does: the next event is the new mode's)
                self.enter_mode()
        return self.mode == THINK and not self.frame_pending() and \
            self.long_slice_wake() is not None

    def until_think_frame(self, left):
        """ms from now until the loop must turn again (at most LONG_SLICE_MS, at
        least `left`): the think's next frame (frame_due), the pits' next
        debounce or hold timer (Pits.unpolled_ms)."""
        now = self.clock.now()
        due = self.pits.unpolled_ms(now, self.frame_due(now))
        return due if due > left else left

    def frame_due(self, now):
        """ms from `now` until the next frame a long slice must leave room for (at most
        LONG_SLICE_MS): a think's running light's next step (with which the status LED
        blinks: Think.phase); while the coach grades, the sowing's next blink, or the
        waiting animation's next frame if it moves (a capture, an extra turn:
        Anim.enter); and the red flash's next blink or its end (when it draws: after a
        red blink; after an "off" one the pits show already what follows, and update()
        drops the flash in the next turn, whenever that comes)."""
        el = self.clock.diff(now, self.t_mode)
        if self.mode == THINK:
            due = self.THINK_STEP_MS - el % self.THINK_STEP_MS
            if self.think_frame == el // self.THINK_STEP_MS + 1:  # (its step came early)
                due += self.THINK_STEP_MS
        elif self.mode == SOW:
            due = self.BLINK_MS - el % self.BLINK_MS
        elif MODES[ANIM].animated:
            due = self.ANIM_FRAME_MS - self.clock.diff(now, self.t_frame)
        else:
            due = self.LONG_SLICE_MS
        if self.flash:
            f = self.clock.diff(now, self.t_flash)
            b = self.FLASH_BLINK_MS - f % self.FLASH_BLINK_MS
            if self.FLASH_MS - f <= b:
                b = self.FLASH_MS - f if not self.flash_step & 1 else due
            if b < due:
                due = b
        if due > self.LONG_SLICE_MS:
            due = self.LONG_SLICE_MS
        return due

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
            e.start(target, nodes=self.PONDER_NODES or e.ponder_nodes, clock=clock.now)
            self.pondering = True
        if not e.done:
            t = clock.now()
            e.step_for(left, self.PONDER_CHUNK)
            self.ponder_ms += clock.diff(clock.now(), t)

    def set_pause(self, kind, pit=-1):
        """Save what a power cut must not forget beyond the game (0: nothing)."""
        if self.pause == kind and self.pause_pit == pit:
            return
        self.pause = kind
        self.pause_pit = pit
        self.saved(self.store_call(self.store.save, "pause.json",
                                   {"kind": kind, "pit": pit, "ply": self.game.ply,
                                    "number": self.meta["number"]}))

    if sys.implementation.name != "micropython":
        # the modes' functions by the names the PC's tests and tools call; the board
        # never calls them (nor builds them: the class body skips them, and the code
        # of a .mpy's skipped functions is collected after the import)
        def start_grade(self):  # (tests: the sliced grade against Engine.grade)
            from mancala.modes.coach import start_grade

            start_grade(self)

        def finish_grade(self):
            from mancala.modes.coach import finish_grade

            finish_grade(self)

        def new_game(self):
            from mancala.modes.menu import new_game

            new_game(self)

        def choices(self, key):
            from mancala.modes.menu import choices

            return choices(self, key)

        def choice(self, key):
            from mancala.modes.menu import choice

            return choice(self, key)

    def toggle_menu(self):
        """Both stores held: the menu (a new game), or from the menu back to the game."""
        if self.mode == MENU:
            if self.game is not None and not self.game.over:
                self.refresh()
                self.set_mode(self.turn_mode())
            return
        if self.engine is not None and self.mode == THINK:
            self.engine.stop()
        self.item = 0
        self.set_mode(MENU)

    # -- time --------------------------------------------------------------------

    def update(self):
        """The timers every mode shares (the red flash, a takeback's blinks), then the
        mode's tick (its own timers, a search's result), which may switch the mode."""
        now = self.clock.now()
        el = self.clock.diff(now, self.t_mode)
        if self.flash:
            f = self.clock.diff(now, self.t_flash)
            if f >= self.FLASH_MS:
                if not self.flash_step & 1:  # (its last blink drawn was red; an
                    self.redraw(self.flash)  # "off" one already shows the pits as after)
                self.flash = 0
            elif f // self.FLASH_BLINK_MS != self.flash_step:  # its blink turned
                self.flash_step = f // self.FLASH_BLINK_MS
                self.redraw(self.flash)
        if self.blink_mask and self.clock.diff(now, self.t_blink) >= self.blink_ms:
            self.blink_mask = 0
            self.blink_ms = 6 * self.BLINK_MS
            self.dirty = True
        nxt = MODES[self.mode].tick(self, now, el)
        if nxt is not None:
            self.set_mode(nxt)

    # -- drawing -------------------------------------------------------------------

    def set_status(self, m, phase):
        """The status LED: on in the blink's second half while mode `m` asks for it.
        Its own pin: a blink turning redraws no frame of the chain (a think's frames
        are its running light's steps only)."""
        on = 1 if m.status_blink and phase else 0
        if on != self.status_on:
            self.status_on = on
            if self.status is not None:
                self.status.value(on)

    def render(self):
        """A frame, when something changed (or the mode's frames move by themselves):
        the mode draws, then what lies over every mode (a finger's dot, the full-flash
        code, the red "no" flash)."""
        m = MODES[self.mode]
        # (the red flash is not among them: update() marks the frame dirty when its
        # blink turns, so a flash costs its four frames, not one every ANIM_FRAME_MS)
        animating = m.animated or self.blink_mask or \
            self.hint_pit >= 0 or self.show_count_pit >= 0 or self.hinting or self.unsaved
        now = self.clock.now()
        # a pit under a finger lights at once (pit-to-light: on the first raw edge,
        # pits.touched()), and goes out at once
        touch = self.pits.touched() & ~self.pits.ignored if m.touch else 0
        if not (self.dirty or self.partial or touch != self.touch_drawn or animating and
                self.clock.diff(now, self.t_frame) >= self.ANIM_FRAME_MS):
            return
        mask = self.partial | (touch ^ self.touch_drawn)
        self.partial = 0
        self.touch_drawn = touch
        self.t_frame = now
        px = self.px
        el = self.clock.diff(now, self.t_mode)
        phase = m.phase(self, el)
        if not self.dirty and m.pitwise and not animating and \
                self.pits_fit(mask):
            self.draw_pits_alone(m, px, mask, el, phase, touch, now)
            return
        self.dirty = False
        self.partial_since = 0
        px.begin(not (self.covers and m.game_frame))  # a game frame draws every LED
        m.draw(self, px, el, phase)
        if self.unsaved and self.mode != BOOT:
            from mancala.modes.errors import draw_full_code  # (while saves fail)

            draw_full_code(self, px, now)
        if self.idle is not None:
            self.idle.draw_over(self, px, now)  # the low battery, power back
        if self.flash and (self.clock.diff(now, self.t_flash) // self.FLASH_BLINK_MS) & 1 == 0:
            for i in range(14):
                if self.flash >> i & 1:
                    px.fill(i, RED)
        if touch:  # over the red flash too: a pit pressed again while it flashes
            for i in range(14):  # shows the finger at once
                if touch >> i & 1:
                    px.dot(i, 0, WHITE)
        self.whole_total = px.total
        self.frame_shown(m, px, phase)

    def frame_shown(self, m, px, phase, last=-1):
        px.show(last)
        if self.status is not None:  # (written at every frame: boot codes drive it too)
            self.status_on = 1 if m.status_blink and phase else 0
            self.status.value(self.status_on)
        self.frame_no += 1
        if self.on_frame is not None:
            self.on_frame(self)

    def frame_pending(self):
        """Whether this turn's render() sends a frame whatever the mode's tick adds:
        pits marked to draw, or a finger come or gone."""
        if self.dirty or self.partial:
            return True
        return MODES[self.mode].touch and \
            self.pits.touched() & ~self.pits.ignored != self.touch_drawn

    def pits_fit(self, mask):
        """Whether the pits of `mask` may be drawn alone over the last whole frame: it
        was drawn at the brightness level unscaled, and with every pit drawn alone
        since at full white the current estimate still keeps within the budget (so
        Pixels.show() never has to scale a frame it did not see whole)."""
        px = self.px
        if px.last_scale != px.scale or not self.covers:
            return False
        cum = self.partial_since | mask
        leds = 0
        spans = self.spans
        bit_at = P.BIT_AT
        todo = cum
        while todo:  # (its set bits alone)
            bit = todo & -todo
            todo ^= bit
            leds += spans[bit_at[bit % 37]][1]
        total = self.whole_total + leds * 765
        if total * px.scale * px.ma > px.budget * 65025:
            return False
        self.partial_since = cum
        px.total = total  # (what show() checks: the worst this frame can be)
        return True

    def draw_pits_alone(self, m, px, mask, el, phase, touch, now):
        """A frame where only the pits of `mask` changed (a think's running light, a
        finger, the red flash): those pits drawn again over the chain's buffer, each
        as the whole frame draws it (the mode's pit, the flash, a finger's dot), the
        others left as they are: a frame of a few pits' drawing, not fourteen's."""
        total = px.total
        px.begin(False)
        red = self.flash and (self.clock.diff(now, self.t_flash) // self.FLASH_BLINK_MS) & 1 == 0
        spans = self.spans
        last = -1  # the drawn pit whose LEDs end furthest down the chain: the frame's
        end = 0  # write stops there (Pixels.prefix_writes; the LEDs after keep theirs)
        bit_at = P.BIT_AT
        flash = self.flash if red else 0
        todo = mask
        while todo:  # (its set bits alone, lowest first)
            bit = todo & -todo
            todo ^= bit
            i = bit_at[bit % 37]
            m.draw_pit(self, px, i, el)
            if flash & bit:
                px.fill(i, RED)
            if touch & bit:
                px.dot(i, 0, WHITE)
            first, n = spans[i]
            if first + n > end:
                end = first + n
                last = i
        px.total = total
        self.frame_shown(m, px, phase, last)


def _pick(profile):
    from mancala.modes.start import pick_profile

    return pick_profile(profile)


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

def build(*args, **kw):
    """The App for a profile on these `machine`/`neopixel` modules, or an ErrorBoard
    (modes/start.py build(): code the boot alone needs; the App class handed to it,
    modes never import this module), then its engine once that code has gone."""
    from mancala.modes.start import build

    board = build(App, *args, **kw)
    build = None
    M.forget("start")  # the board is built: the code that built it goes (on the board)
    if isinstance(board, App):
        board.first_engine()
    return board


def say_start(app):
    """The console's start line: the engine that runs (native for its CPU, or the
    bytecode and why), what the board started without for lack of memory, the heap."""
    from mancala.heap import line

    e = app.engine
    text = "start: %s; engine %s" % (app.profile.get("name", "?"), e.describe()
                                     if hasattr(e, "describe") else "none")
    if app.short:
        text += "; started with less memory: " + "; ".join(app.short)
    heap = line()
    app.log(text + ("; " + heap if heap else ""))
    if not app.heap_watch:  # (said once: its code goes, on the board)
        line = None
        forget("heap")


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
    notes = []  # type: list
    while True:
        try:
            try:
                prof = _pick(profile)
            except MemoryError:
                raise
            except Exception as e:  # noqa: BLE001
                prof = {"error": str(e)}
            board = build(prof, machine, neopixel, clock, fs, engine_cls, log, seed, strict,
                          fault, notes)
            break
        except MemoryError as e:
            # A heap smaller than the firmware wants (an ESP32 without PSRAM): the room
            # game.py holds for the session's buffers kept back what the start itself
            # needed.  Start once more without it (the buffers then go where they fit,
            # smaller if they must) rather than leave the board down.
            if notes:
                raise
            board = prof = None
            mancala.game.release_room()
            log("memory: the start ran out of room (%r)" % (e,))
            notes.append("memory: started again without the room for its buffers")
    if isinstance(board, App):
        if sys.implementation.name == "micropython":  # (the PC's fake machine resets its pins)
            board.restart = getattr(machine, "reset", None)
        say_start(board)
    if run:
        board.run()
    return board
