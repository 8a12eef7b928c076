"""modes/computer.py alone: the computer thinks (the light runs, a store's tap: move now),
then its pit blinks until the person takes the stones."""

from modes_helpers import FakeApp, mode

from mancala import modes as M
from mancala.hw import pits as P


def test_think_draws_only_when_its_light_moves_and_plays_the_engines_move():
    app = FakeApp(human=1, level=2)
    app.game.play(0)  # South (the person) moved: North thinks
    app.refresh()
    app.mode = M.THINK
    think = mode(M.THINK)
    app.engine.done = False
    think.tick(app, app.clock.now(), 0)
    assert app.partial >> 7 & 1 and app.think_frame == 0  # the light on North's first pit
    app.partial = 0
    app.dirty = False
    think.tick(app, app.clock.now(), 10)  # the same step: nothing to draw
    assert not app.dirty and not app.partial
    counts, bgs = app.draw(el=app.THINK_STEP_MS * 2)
    assert bgs[9] == "north"  # the light on North's third pit
    app.touch_drawn = 1 << 9  # a finger on that pit: the light passes it by
    counts, bgs = app.draw(el=app.THINK_STEP_MS * 2)
    assert bgs[9] != "north"
    app.touch_drawn = 0
    app.engine.done = True
    app.engine.best_move = 3
    think.tick(app, app.clock.now(), 20)
    assert app.modes_asked() == [M.SHOW] and (app.sow_side, app.sow_pit) == (1, 3)


def test_think_takes_the_first_legal_pit_when_the_engine_has_none():
    app = FakeApp(human=1, level=1)
    app.game.play(0)
    app.engine.best_move = -1
    mode(M.THINK).tick(app, app.clock.now(), 0)
    assert app.sow_pit == 0 and app.mode == M.SHOW


def test_a_store_tap_while_thinking_is_move_now_any_other_pit_is_no():
    app = FakeApp(human=1, level=1)
    think = mode(M.THINK)
    think.on_event(app, P.TAP, 13)
    assert app.engine.calls == [("stop",)]
    think.on_event(app, P.TAP, 2)
    assert app.calls[-1] == ("no", 4)


def test_show_blinks_the_pit_and_waits_for_its_tap():
    app = FakeApp(human=1, level=1)
    app.game.play(0)
    app.sow_side, app.sow_pit = 1, 2
    app.sow_path = bytes([10, 11, 12, 13])
    app.sow_n = 4
    app.mode = M.SHOW
    show = mode(M.SHOW)
    counts, bgs = app.draw(phase=1)
    assert counts[9] is None and bgs[9] == "north"  # the whole pit in North's colour
    show.on_event(app, P.TAP, 8)
    assert app.calls[-1] == ("no", 1 << 8)
    show.on_event(app, P.TAP, 9)
    assert app.mode == M.SOW and app.shown[9] == 0


def test_quick_show_starts_the_sowing_by_itself():
    app = FakeApp(human=1, level=1, quick=1)
    app.game.play(0)
    app.sow_side, app.sow_pit = 1, 0
    app.sow_path = bytes([8])
    mode(M.SHOW).tick(app, app.clock.now(), app.SHOW_MS - 1)
    assert app.modes_asked() == []
    mode(M.SHOW).tick(app, app.clock.now(), app.SHOW_MS)
    assert app.modes_asked() == [M.SOW]


class _Pin:
    def __init__(self):
        self.writes = []

    def value(self, v):
        self.writes.append(v)


def test_the_status_led_blinks_on_its_pin_without_a_frame_while_it_thinks():
    """Issue 22: the status LED's blink turning drew a whole frame of the chain (on the
    RP2040 model 14 ms of a think's 20 ms turn, 8 of a 2 s think's 21 frames); now only
    the running light's steps draw, and the blink is the pin's alone, turning with the
    light's steps (Think.phase): with a step that comes early (on a tap's frame) the
    blink comes with it, so it asks no loop turn of its own at the step's time."""
    app = FakeApp(human=1, level=2)
    app.game.play(0)
    app.refresh()
    app.mode = M.THINK
    app.status = _Pin()
    think = mode(M.THINK)
    app.engine.done = False
    step = app.THINK_STEP_MS
    think.tick(app, app.clock.now(), step + 1)  # step 1: the light moves, the blink's on
    assert app.partial and app.status.writes == [1]
    app.dirty = False
    app.partial = 0
    think.tick(app, app.clock.now(), step + 60)  # the same step: nothing drawn or written
    assert not app.dirty and not app.partial and app.status.writes == [1]
    app.frame_pending = lambda: True  # a tap's frame goes out this turn: step 2 rides
    think.tick(app, app.clock.now(), 2 * step - app.THINK_SHARE_MS + 5)  # on it early,
    assert app.partial and app.think_frame == 2  # and the blink turns with it
    assert app.status.writes == [1, 0]
    app.partial = 0
    think.tick(app, app.clock.now(), 2 * step + 3)  # the step's own time: nothing left
    assert not app.partial and app.status.writes == [1, 0]
