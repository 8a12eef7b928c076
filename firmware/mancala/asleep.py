"""The board asleep: DIM, DARK, WAKING and OFF (mancala/idle.py says what each is).
Imported when the board first dims and dropped again once it is awake, so a board at
play does not hold this code (code is RAM on the chip).  Functions of the Idle `s`;
the states are its own (`s.DIM`, ...: defined once, in mancala/idle.py, which imports
this module and is never imported by it)."""

from mancala.hw.pixels import NORTH, SOUTH, WHITE
from mancala.modes import MENU
from mancala.rules import N_STORE, S_STORE

try:
    from time import ticks_add  # type: ignore[attr-defined]
except ImportError:  # CPython
    ticks_add = None


def turn(s, app, now):
    """A loop turn while the board is not awake (always the board's: True)."""
    clock = app.clock
    st = s.state
    if st == s.OFF:
        rest(s, app)
        return True
    if st == s.WAKING:
        pits = app.pits
        pits.poll()  # the waking press: its events dropped, never played
        app.render()
        if not (pits.touched() or pits.gesture):
            shift(s, app, clock.diff(clock.now(), s.t_wake))
            s.state = s.AWAKE
            s.t_active = clock.now()
        return True
    # DIM or DARK: a pit wakes the board
    if app.pits.sensors.read() & ~app.pits.ignored:
        wake(s, app, now)
        return True
    if st == s.DIM:
        minutes = app.settings.get("idle", 0)
        if clock.diff(now, s.t_active) >= s.DARK_AFTER * minutes * 60000:
            dark(s, app, "idle", s.DARK)
        elif clock.diff(now, s.t_draw) >= s.DIM_FRAME_MS:
            s.t_draw = now
            draw_dim(s, app, now)
        return True
    rest(s, app)
    return True


def rest(s, app):
    """Dark: the chip rests until the next read of the pits (on top of the loop's own
    FRAME_MS sleep)."""
    ms = s.DARK_POLL_MS - app.FRAME_MS
    if s.lightsleep:
        s.machine.lightsleep(ms)
    else:
        app.clock.sleep(ms)


def dim(s, app, now):
    s.state = s.DIM
    s.t_sleep = now
    s.t_draw = now
    if app.status is not None:
        app.status.value(0)
    app.log("idle: dim (no one played for %d min)" % app.settings.get("idle", 0))
    draw_dim(s, app, now)


def draw_dim(s, app, now):
    """One LED of the mover's store (the South store in the menu), breathing."""
    g = app.game
    i = S_STORE
    col = WHITE
    if g is not None and not g.over and app.mode != MENU:
        col = SOUTH
        if g.side:
            i = N_STORE
            col = NORTH
    t = app.clock.diff(now, s.t_sleep) % s.BREATH_MS
    half = s.BREATH_MS // 2
    k = 8 + 120 * (t if t < half else s.BREATH_MS - t) // half  # 8..128 of 255
    px = app.px
    px.begin()
    px.run(app.spans[i][0], 1, col[0] * k // 255, col[1] * k // 255, col[2] * k // 255)
    px.show()


def dark(s, app, reason, state):
    """Every LED off, their supply off, the clock lowered (`state`: DARK, or OFF on an
    empty battery)."""
    if s.state == s.AWAKE:
        s.t_sleep = app.clock.now()
    s.state = state
    px = app.px
    px.begin()
    px.show()
    if s.led_power is not None:
        s.led_power.value(0)
    if s.idle_hz and not s.awake_hz:
        s.awake_hz = s.machine.freq()
        s.machine.freq(s.idle_hz)
    if app.status is not None:
        app.status.value(0)
    app.log("idle: dark (%s)" % reason)


def lit(s, app):
    """The clock and the LEDs' supply back (before any LED is written: the chain's
    timing is the chip's)."""
    if s.awake_hz:
        s.machine.freq(s.awake_hz)
        s.awake_hz = 0
    if s.led_power is not None:
        s.led_power.value(1)
    app.dirty = True


def wake(s, app, now):
    """A pit went down: the state left is shown at once; its press is dropped."""
    lit(s, app)
    shift(s, app, app.clock.diff(now, s.t_sleep))
    s.state = s.WAKING
    s.t_wake = now
    app.log("idle: awake")
    app.render()


def shift(s, app, d):
    """Every timer of the App moved on by `d` ms: the board goes on where it stopped
    (a mode's time, a blink, the full-flash code, the frame's, the battery warning's)."""
    if d <= 0:
        return
    add = ticks_add if ticks_add is not None and type(app.clock).__name__ == "Clock" \
        else _plus  # (the chip's ticks wrap: time.ticks_add)
    app.t_mode = add(app.t_mode, d)
    app.t_flash = add(app.t_flash, d)
    app.t_blink = add(app.t_blink, d)
    app.t_count = add(app.t_count, d)
    app.t_unsaved = add(app.t_unsaved, d)
    app.t_frame = add(app.t_frame, d)
    if s.watch is not None:
        s.watch.t_low = add(s.watch.t_low, d)


def _plus(t, d):
    return t + d
