"""The board's modes: one small interface the loop drives (KMK's hooks, ../shared/STYLE.md).

`App` (mancala/app.py) keeps the loop, the switch between modes and the state they share
(game, engine, settings, storage, pixels, clock, the counts shown, timers).  A mode holds
no state of its own: it is a module-level singleton whose hooks get the App passed in, so
a mode is tested alone with a fake App and a manual clock (tests/test_modes_*.py), and a
loop turn allocates nothing to call it (a method call on a singleton builds no object).

The hooks (each optional: `Mode` does nothing):

    enter(app)                        the mode was just switched to (app.t_mode = now)
    on_event(app, kind, arg)          a pit gesture (hw/pits.py: TAP, CHORD, HOLD, LONG ...;
                                      `arg` a pit index or a mask); the loop has already
                                      handled STUCK, DOWN and FREED for every mode
    tick(app, now, el)                once a loop turn, after the events (`el`: ms in the
                                      mode); returns the next mode's number, or None to stay
    draw(app, px, el, phase)          one LED frame into `px` (hw/pixels.Pixels; `phase`:
                                      the blink phase, 0/1 every app.BLINK_MS); the loop
                                      then draws what lies over every mode (a finger's dot,
                                      the red "no" flash, the full-flash code) and shows it
    phase(app, el)                    the blink phase of a frame `el` ms into the mode
                                      (default: 0/1 every app.BLINK_MS; the think's turns
                                      with its light's steps, which may come early)

and what the loop asks of a mode (class attributes):

    name          the mode's name (the simulator's `until`, the web page, frame records)
    animated      its frames move by themselves: redrawn every app.ANIM_FRAME_MS
    game_frame    it draws every pit LED (a game frame): on a chain the pits cover whole,
                  nothing to clear first
    touch         a finger's pit gets its white dot (not in the power-on tests)
    status_blink  the status LED blinks with `phase` (boot codes, the computer thinking)

Adding a mode (the puzzles, the course):

1. a module `mancala/modes/NAME.py` with a class implementing only the hooks it needs,
   and its singleton registered once, at import:

       from mancala.modes import Mode, add

       class Puzzle(Mode):
           name = "puzzle"
           def on_event(self, app, kind, arg): ...
           def draw(self, app, px, el, phase): ...

       PUZZLE = add(Puzzle())        # its number: app.set_mode(PUZZLE)

   `add()` gives the next free number and puts the name in NAMES (so `app.mode`,
   the simulator's `until puzzle` and the web page know it).  Keep the mode's state on the
   App (a few attributes, set in `enter`) or in one preallocated buffer: no object built
   per event or frame.  The App's own helpers do the rest: `app.set_mode(n)`,
   `app.no(mask)` (the red flash), `app.refresh()` (the counts from app.game),
   `app.dirty = True` (draw at once), `app.save_game()`, `app.saved(app.store_call(
   app.store.save, "NAME.json", obj))` (a save that never stops the board, the
   full-flash code when the flash refuses), `app.turn_mode()` (back to the game).
   A mode of a game in progress may subclass modes/game.py's GameMode (the gestures of
   a game; draw = draw_pits, its lights, draw_marks) and add a chord to game.CHORDS.
   Where the module is imported: a line in mancala/app.py beside the other imports (it is
   then held all the time), or, for code a game need not hold, `PUZZLE = family("puzzle",
   "puzzle")` in such an always-imported place reserves the number, modes/puzzle.py does
   `put(PUZZLE, Puzzle())`, and the App imports it when it first switches to PUZZLE
   (load()).
2. the menu lists it: `add_activity(number, colour)` (before the App is built and the
   menu's module first imported) adds it to what the North store starts: the menu's
   "play" item (on the South store: a second tap there after "quick"; settings key
   "play", in DEFAULTS once an activity is added) chooses between the game (0) and the
   activities (1..), and the North store's tap then switches to the chosen mode's number
   (its `enter` sets it up: load its data, light its first frame).  The player guides
   list the menu's items (tests/test_guides.py checks them against menu.ITEMS).
3. it draws in `draw` only (the loop calls it when app.dirty is set, a finger came or
   went, or every ANIM_FRAME_MS if `animated`), into the buffer it is given.
4. a power cut: the mode saves what it must not forget in its own small file (as
   pause.json for the blunder pause and the sowing, modes/boot.py restore_pause()), read
   back in its `enter` or at boot.

Mode numbers 0..12 are the game's own (the constants below, re-exported by mancala.app);
MODES[n] is mode n's singleton, None until its module (FAMILY[n]) is imported: the App
imports a family when it switches to one of its modes (App.set_mode): the menu's and the
game's modules when needed, the power-on tests' only when held at power-on, the error
board's only for an error; and on the board it drops a group's modules when the loop
enters a mode outside the group (GROUPS: the boot's, the tests', the menu's in a game, the
game's in the menu), since code is RAM on the device.  Such a switch is ended by the loop
(App.enter_mode) once the hook that asked for it has returned.  The PC keeps every module
(tests import them again).
"""

import sys

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

# What pause.json keeps beside game.json: the blunder pause ("pit" = the threat, -1
# none) or a move being sown ("pit" = its board index), for game "number" at "ply"
# (anything else there is stale and ignored).  A small file of its own: game.json
# keeps its format, and a pause costs a few bytes, not a whole record.
PAUSE_BLUNDER = 1
PAUSE_SOWING = 2

NAMES = ["boot", "menu", "select", "sow", "think", "show", "anim", "grade", "blunder",
         "over", "sensor_test", "led_test", "error"]
MODES = [None] * len(NAMES)  # type: list
# The module (under mancala.modes) each mode lives in, imported when the mode is first
# switched to (load); on the board the GROUPS below are dropped again when the loop
# switches to another group's mode (forget_others).
FAMILY = ["boot", "menu", "play", "play", "computer", "computer", "play", "coach", "coach",
          "play", "power_on", "power_on", "errors"]
# On the board a group's modules are dropped when the loop enters a mode outside the
# group: the boot's and the power-on tests', which never come back (but after an error);
# the menu's in a game and the game's in the menu (a menu and a game then never hold
# each other's code).  The switch ends only once the hook that switched has returned
# (App.enter_mode): a module dropped while its code still runs, or is still in a live
# frame (the GC is conservative), would be held twice with its next import (a 12 KB
# spike in a session's second game when the switch did it at once).
GROUPS = (("boot", "start"), ("power_on",), ("menu",), ("game", "play", "computer", "coach"))
# What the North store may start besides a new game: (mode number, colour), the choices
# 1.. of the menu's "play" item (0: the game).  Empty on a build without activities.
ACTIVITIES = []  # type: list


class Mode:
    name = "mode"
    animated = False
    game_frame = False
    touch = True
    status_blink = False
    # pitwise: draw_pit(app, px, i, el) draws pit i as draw() does when nothing
    # animates (no hint, no takeback blink, no held count): the App then draws only
    # the pits that changed (App.draw_pits_alone).  Else whole frames only.
    pitwise = False

    def enter(self, app):
        pass

    def draw_pit(self, app, px, i, el):
        pass

    def on_event(self, app, kind, arg):
        pass

    def tick(self, app, now, el):
        return None

    def draw(self, app, px, el, phase):
        pass

    def phase(self, app, el):
        return (el // app.BLINK_MS) & 1


def put(number, mode):
    """Register `mode` under `number` (at its module's import)."""
    MODES[number] = mode
    return number


def add(mode, family=None):
    """Register a new mode: its number (the next free one), its name in NAMES.  With
    `family` (its module's name under mancala.modes) the module may be dropped and
    imported again (it registers with put(number, ...) then): see family()."""
    if mode.name in NAMES:  # imported again (a test reloading it): the same number
        n = NAMES.index(mode.name)
        MODES[n] = mode
        return n
    NAMES.append(mode.name)
    MODES.append(mode)
    FAMILY.append(family)
    return len(MODES) - 1


def family(name, module):
    """A mode whose module is imported only when the mode is first switched to: its
    number (the module then registers it with put(number, mode))."""
    if name in NAMES:
        return NAMES.index(name)
    NAMES.append(name)
    MODES.append(None)
    FAMILY.append(module)
    return len(MODES) - 1


def add_activity(number, colour=(255, 255, 120)):
    """List mode `number` in the menu: a choice of the menu's "play" item (on the South
    store, after "quick"), which the North store's tap then starts (modes/menu.py)."""
    for a in ACTIVITIES:
        if a[0] == number:
            return
    ACTIVITIES.append((number, colour))


def load(number):
    """Mode `number`'s singleton, its module imported if it is not yet."""
    m = MODES[number]
    if m is None:
        name = "mancala.modes." + FAMILY[number]
        try:
            __import__(name)
        except MemoryError:
            # Room enough, but cut up, partly by what the failed import held while it
            # ran (the GC is conservative: its stack's stale words keep blocks): the
            # failed modules are out of sys.modules already (MicroPython drops them),
            # so collected with the stack unwound the import runs once more.  (The
            # unix port's esp32 session with a puzzle and a lesson failed so at one
            # heap size, a module's 464 bytes, with 13 KB more than it needs:
            # tests/test_unix_puzzle_heap.py.)
            import gc

            gc.collect()
            __import__(name)
        m = MODES[number]
    return m


def forget(module):
    """On the board, drop a family's module (its modes' slots emptied: load() imports
    it again); the PC keeps them (tests import them again and again).  An activity
    (a puzzle, a lesson) lets the menu's and the game's code go this way: it runs alone,
    and what it spikes on the way back stays under the one game's peak (PUZZLES.md)."""
    if sys.implementation.name == "micropython" and module in globals():
        _drop(module)


def forget_others(number, drop=True):
    """On the board, drop the modules of every group but mode `number`'s (GROUPS);
    drop=False: only say whether there is one to drop (App.set_mode).  Nothing is
    allocated when there is nothing to drop.  (A module imported is an attribute of
    this package: globals() here.)"""
    if sys.implementation.name != "micropython":
        return False
    fam = FAMILY[number]
    held = globals()
    for k in range(len(GROUPS)):
        group = GROUPS[k]
        if fam not in group:
            for i in range(len(group)):
                if group[i] in held:
                    if not drop:
                        return True
                    _drop(group[i])
    return False


def _drop(module):
    for n in range(len(MODES)):
        if FAMILY[n] == module:
            MODES[n] = None
    sys.modules.pop("mancala.modes." + module, None)
    del globals()[module]


def draw_move_made(px, flags, side, colour, el, phase):
    """What a move just made shows (the rules' flags of it): the captured pits flash in
    the mover's colour, an extra turn runs two dots round the mover's store, the end
    lights it.  Shared by a game's animation (modes/play.py) and an online one's
    (modes/online.py)."""
    from mancala.rules import CAPTURED, EXTRA, OVER

    store = side * 7 + 6
    if flags >= CAPTURED and phase:
        for i in range(14):
            if (flags >> 3) >> i & 1:
                px.fill(i, colour)
    if flags & EXTRA and not flags & OVER:
        px.dot(store, el // 80, colour)
        px.dot(store, el // 80 + 1, colour)
    if flags & OVER and phase:
        px.fill(store, colour)
