"""What a puzzle and a lesson share: set a position up on the board, make one move,
see the verdict (docs/PLAYER_GUIDE.md "Puzzles", "The course").

  set up ...... every pit that must hold stones blinks its count on white: put that
                many stones in, tap the pit (a tap again: not yet); the empty ones
                are set already.  The sensors see presses, not stones: the tap is the
                person's word that the pit holds its count.
  play ........ the pits the task offers are lit in South's colour: tap one, then sow
                it stone by stone (the next pit lit white, a tap per stone; quick
                mode: the board drops them)
  verdict ..... right: the South store green with the score (puzzles solved, lessons
                done) and the line that follows blinks pit by pit (North's reply in
                North's colour, South's in South's); wrong: the played pit and the
                store red, then the refutation (a puzzle) or the right pits (a lesson)
  tap ......... right: the next one; wrong: the same again (a puzzle: the North
                store skips it)
  hold both stores ... the menu

The mode keeps its state on itself, not on the App: its module is imported when the
menu starts it and dropped when it ends (modes/activities.py, leave() below), so a game's heap never
holds any of it.  What a power cut must not forget is in /data/puzzle.json
(mancala/puzzles.py): which one, the stage, the pits confirmed; after a cut mid-sowing
the person sets the position up again.
"""

import sys

from mancala import modes as M
from mancala import puzzles as PZ
from mancala.hw import pits as P
from mancala.hw.pixels import GREEN, NORTH, RED, SOUTH, WHITE
from mancala.modes import MENU, Mode
from mancala.rules import MASK, N_STORE, POS_LEN, S_STORE, get_rules

STORES = (1 << S_STORE) | (1 << N_STORE)
SETUP = 0
PLAY = 1
SOWING = 2
VERDICT = 3
# The modules a puzzle or a lesson lets go on the board (the boot's and the tests' are
# gone already, modes.GROUPS): they come back when their modes do.
ACTIVITY_DROPS = ("boot", "menu", "power_on", "play", "coach", "computer", "game")
VERDICT_MS = 1500  # the verdict's colour before the line begins
LINE_STEP_MS = 700  # one ply of the line shown


def leave(app):
    """From a puzzle or a lesson to the menu; on the board their code and state are let
    go (the menu's and the game's modules come back when their modes do)."""
    M.forget("puzzle")
    M.forget("course")
    M.forget("activities")  # (puzzle.py and course.py imported it for their numbers)
    if sys.implementation.name == "micropython":  # (the PC keeps them: tests re-import)
        import mancala

        for name in ("trainer", "puzzles", "lessons"):
            full = ("mancala.modes." if name == "trainer" else "mancala.") + name
            if full in sys.modules:
                sys.modules.pop(full)
                try:
                    delattr(M if name == "trainer" else mancala, name)
                except (AttributeError, KeyError):  # (MicroPython: KeyError)
                    pass
    app.item = 0
    app.set_mode(MENU)


def base_variant(name):
    """The rule set of a setting: the puzzles and lessons are 4-seed positions."""
    return name.rstrip("0123456789")


class Trainer(Mode):
    name = "trainer"
    kind = ""  # the "mode" of puzzle.json
    animated = True
    game_frame = True

    def __init__(self):
        self.pos = bytearray(POS_LEN)  # the task's position
        self.after = bytearray(POS_LEN)  # ... after the person's move
        self.shown = bytearray(14)  # what the LEDs count
        self.line = bytearray(8)  # the board indices of the line shown at the verdict
        self.line_n = 0
        self.rules = None
        self.variant = ""
        self.prog = None
        self.number = 0
        self.total = 0
        self.stage = SETUP
        self.confirmed = 0
        self.pit = -1
        self.path = b""
        self.sow_i = 0
        self.right = False
        self.hint = 0  # pits shown green at a wrong verdict (a lesson's right pits)

    # -- what a puzzle and a lesson fill in -------------------------------------------

    def count(self):
        return 0

    def load(self, number):
        """Set self.pos to task `number`; False if there is none."""
        return False

    def offered(self):
        """The South pits (a 6-bit mask) lit to choose from."""
        return self.pos[MASK]

    def judge(self, pit):
        """After the move: right or wrong; set self.line / self.hint to show."""
        return False

    def first(self):
        return 1

    def after_verdict(self, skip):
        """The number to go on with after the verdict (0: leave to the menu)."""
        return self.number if not self.right and not skip else self.number + 1

    def score(self):
        return 0

    # -- the mode --------------------------------------------------------------------

    def enter(self, app):
        for module in ACTIVITY_DROPS:  # on the board: the menu's and the game's code let go
            M.forget(module)
        self.variant = base_variant(app.settings["variant"])
        self.rules = get_rules(self.variant)
        self.total = self.count()
        prog = PZ.load_progress(app.store)
        self.prog = prog
        if prog.get("mode") == self.kind and prog.get("variant") == self.variant and \
                1 <= prog.get("number", 0) <= self.total:  # resume after a cut or the menu
            self.begin(app, prog["number"], prog.get("stage") == PLAY,
                       prog.get("confirmed", 0))
        else:
            self.begin(app, self.first())

    def begin(self, app, number, playing=False, confirmed=0):
        if number < 1 or number > self.total or not self.load(number):
            self.leave(app)
            return
        self.number = number
        need = self.need()
        self.confirmed = need if playing else confirmed & need
        self.stage = PLAY if self.confirmed == need else SETUP
        for i in range(14):
            self.shown[i] = self.pos[i]
        self.pit = -1
        self.save(app)
        app.t_mode = app.clock.now()
        app.dirty = True

    def need(self):
        """The pits and stores that must hold stones (the ones to confirm)."""
        m = 0
        for i in range(14):
            if self.pos[i]:
                m |= 1 << i
        return m

    def save(self, app, stage=None):
        prog = self.prog
        prog["mode"] = self.kind
        prog["variant"] = self.variant
        prog["number"] = self.number
        prog["stage"] = self.stage if stage is None else stage
        # (a stage given: the sowing began, the stones move: nothing stays confirmed)
        prog["confirmed"] = self.confirmed if stage is None and self.stage == SETUP else 0
        app.saved(app.store_call(PZ.save_progress, app.store, prog))

    def leave(self, app):
        """Back to the menu: the progress says no activity is under way."""
        if self.prog is not None:
            self.prog["mode"] = ""
            app.saved(app.store_call(PZ.save_progress, app.store, self.prog))
        leave(app)

    def on_event(self, app, kind, arg):
        if kind == P.LONG:
            if arg == STORES:
                self.leave(app)
            return
        if kind == P.CHORD:
            app.no(arg)
            return
        if kind != P.TAP:
            return
        st = self.stage
        if st == SETUP:
            self.confirm(app, arg)
        elif st == PLAY:
            self.choose(app, arg)
        elif st == SOWING:
            if app.settings["quick"] or self.path[self.sow_i] != arg:
                if not app.settings["quick"]:
                    app.no(1 << arg)
                return
            self.drop(app)
        else:
            self.begin(app, self.after_verdict(arg == N_STORE))

    def confirm(self, app, i):
        need = self.need()
        if not need >> i & 1:
            app.no(1 << i)  # this one stays empty
            return
        self.confirmed ^= 1 << i
        if self.confirmed == need:
            self.stage = PLAY
        self.save(app)
        app.dirty = True

    def choose(self, app, i):
        if i >= 6 or not self.offered() >> i & 1:
            app.no(1 << i)
            return
        if not self.pos[MASK] >> i & 1:  # offered, but the rule forbids it (feeding)
            self.pit = i
            self.finish(app, False)
            return
        self.pit = i
        path = self.rules.paths[i]
        n = self.pos[i]
        self.path = path[1:2] if self.rules.name == "mangala" and n == 1 else path[:n]
        self.sow_i = 0
        self.shown[i] = 0  # the stones are in the hand
        self.stage = SOWING
        self.save(app, SETUP)  # a cut now: set the position up again
        app.t_mode = app.clock.now()
        app.dirty = True

    def drop(self, app):
        self.shown[self.path[self.sow_i]] += 1
        self.sow_i += 1
        app.t_mode = app.clock.now()
        app.dirty = True
        if self.sow_i >= len(self.path):
            self.finish(app, True)

    def finish(self, app, played):
        after = self.after
        after[:] = self.pos
        if played:
            self.rules.move(after, self.pit)
        for i in range(14):
            self.shown[i] = after[i]
        self.line_n = 0
        self.hint = 0
        self.right = played and self.judge(self.pit)
        if not played:
            self.judge(self.pit)  # what to show
            self.right = False
        self.stage = VERDICT
        self.record()
        nxt = self.after_verdict(False)  # where a power cut from now on resumes
        self.prog["stage"] = SETUP
        self.prog["confirmed"] = 0
        self.prog["number"] = nxt
        app.saved(app.store_call(PZ.save_progress, app.store, self.prog))
        app.t_mode = app.clock.now()
        app.dirty = True

    def record(self):
        pass

    def set_line(self, start, pits):
        """The line shown at the verdict: `pits` played from `start` (a copy)."""
        q = bytearray(start)
        n = 0
        for pit in pits:
            if n >= len(self.line) or not q[MASK] >> pit & 1:
                break
            self.line[n] = q[14] * 7 + pit
            n += 1
            self.rules.move(q, pit)
        self.line_n = n

    def tick(self, app, now, el):
        if self.stage == SOWING and app.settings["quick"] and el >= app.QUICK_MS:
            self.drop(app)
        return None

    # -- drawing -------------------------------------------------------------------------

    def draw(self, app, px, el, phase):
        shown = self.shown
        st = self.stage
        if st == SETUP:
            c = self.confirmed
            for i in range(14):
                n = shown[i]
                px.count(i, n, WHITE if n and not c >> i & 1 and phase else None)
            return
        lit = self.offered() if st == PLAY else 0
        for i in range(14):
            px.count(i, shown[i], SOUTH if i < 6 and lit >> i & 1 else None)
        if st == SOWING:
            tgt = self.path[self.sow_i]
            px.count(tgt, shown[tgt], WHITE)
            if shown[tgt] >= app.spans[tgt][1] and phase:
                px.fill(tgt, WHITE)
        elif st == VERDICT:
            col = GREEN if self.right else RED
            if el < VERDICT_MS:
                px.count(S_STORE, self.score(), col)
                if self.pit >= 0 and phase:
                    px.fill(self.pit, col)
                return
            k = (el - VERDICT_MS) // LINE_STEP_MS % (self.line_n + 1)
            if k < self.line_n:
                i = self.line[k]
                px.fill(i, NORTH if i >= 7 else SOUTH)
            hint = self.hint
            if hint and phase:
                for i in range(6):
                    if hint >> i & 1:
                        px.fill(i, GREEN, 3)
            px.count(S_STORE, shown[S_STORE], col if phase else None)
