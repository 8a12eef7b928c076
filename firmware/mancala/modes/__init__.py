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
2. the menu lists it: `menu.add_activity(number, colour)` (modes/menu.py) adds it to
   what the North store starts: the menu's "play" item (shown once an activity is added)
   chooses between the game and the activities, and the start tap switches to the chosen
   mode's number (its `enter` sets it up: load its data, light its first frame).
3. a power cut: the mode saves what it must not forget in its own small file (as
   pause.json for the blunder pause and the sowing, app.restore_pause()), read back in its
   `enter` or at boot.

Mode numbers 0..12 are the game's own (the constants below, re-exported by mancala.app);
MODES[n] is mode n's singleton (None until its module is imported: app.py imports the ones
every session needs, the power-on tests and the boot codes only when they run).
"""

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


class Mode:
    name = "mode"
    animated = False
    game_frame = False
    touch = True
    status_blink = False

    def enter(self, app):
        pass

    def on_event(self, app, kind, arg):
        pass

    def tick(self, app, now, el):
        return None

    def draw(self, app, px, el, phase):
        pass


def put(number, mode):
    """Register `mode` under one of the game's own numbers (the modules of this package)."""
    MODES[number] = mode
    return number


def add(mode):
    """Register a new mode: its number (the next free one), its name in NAMES."""
    if mode.name in NAMES:  # imported again (a test reloading it): the same number
        n = NAMES.index(mode.name)
        MODES[n] = mode
        return n
    NAMES.append(mode.name)
    MODES.append(mode)
    return len(MODES) - 1
