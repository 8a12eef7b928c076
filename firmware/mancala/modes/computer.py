"""The computer's turn: it thinks (a light runs along its row; a store's tap: move now),
then its pit blinks until the person takes the stones and sows them as guided; and the
engine's share of every loop turn (search_slice: the computer's search, a hint, a grade,
pondering against Master on the person's time)."""

from mancala.modes import ANIM, BLUNDER, GRADE, SELECT, SHOW, SOW, THINK, put
from mancala.modes.game import SIDE_COLOURS, GameMode
from mancala.modes.play import begin_move, start_sow
from mancala.rules import MASK, N_STORE, S_STORE


def start_thinking(app):
    if app.engine is None:
        return
    li = app.meta["level"] - 1
    app.pondering = False
    app.engine.keep = li == 3  # Master starts from the table pondered on
    if li == 3:  # Master: by the board's clock (the lower levels count nodes)
        app.engine.start(app.game.pos, level=li, nodes=app.MASTER_CAP,
                         deadline_ms=app.MASTER_MS, clock=app.clock.now)
    else:
        app.engine.start(app.game.pos, level=li, clock=app.clock.now)


def computer_moves(app):
    g = app.game
    pit = -1 if app.engine is None else app.engine.best_move
    mask = g.pos[MASK]
    if not (0 <= pit < 6 and mask >> pit & 1):
        for k in range(6):
            if mask >> k & 1:
                pit = k
                break
    begin_move(app, pit)
    app.set_mode(SHOW)


class Think(GameMode):
    """The computer searches: a light runs along its row (drawn only when it moves: the
    turns between frames go to the search)."""

    name = "think"
    status_blink = True

    def tap(self, app, pit):
        if pit == S_STORE or pit == N_STORE:
            if app.engine is not None:
                app.engine.stop()
        else:
            app.no(1 << pit)

    def tick(self, app, now, el):
        if app.engine is None or app.engine.done:
            computer_moves(app)
        else:
            f = (el // app.THINK_STEP_MS) * 2 + ((el // app.BLINK_MS) & 1)
            if f != app.think_frame:  # the animation (or the status LED) moved
                app.think_frame = f
                app.dirty = True

    def overlay(self, app, px, el, phase):
        side = app.game.side
        comp = side * 7
        k = (el // app.THINK_STEP_MS) % 6
        px.count(comp + k, app.shown[comp + k], SIDE_COLOURS[side])


class Show(GameMode):
    """The computer's pit blinks: the person takes its stones (a tap on it; quick: by
    itself after SHOW_MS)."""

    name = "show"
    animated = True

    def tap(self, app, pit):
        if pit == app.sow_side * 7 + app.sow_pit:
            start_sow(app)
        else:
            app.no(1 << pit)

    def tick(self, app, now, el):
        if app.settings["quick"] and el >= app.SHOW_MS:
            start_sow(app)

    def overlay(self, app, px, el, phase):
        if phase:
            px.fill(app.sow_side * 7 + app.sow_pit, SIDE_COLOURS[app.sow_side])


put(THINK, Think())
put(SHOW, Show())


def search_slice(app, t0):
    """The rest of the loop turn begun at `t0` goes to the engine while the
    computer thinks (no turn sleeps then; a turn may end a chunk late), a hint
    or a grade searches (short of PONDER_RESERVE_MS: while a person may act, no
    turn runs late).  The result is taken up by the mode's tick in the next turn.
    Otherwise, against Master, the engine ponders (ponder_slice)."""
    e = app.engine
    if e is None:
        return
    if app.pregrade and app.mode != SOW:  # the move being sown was taken back
        app.pregrade = False
        e.stop()
    if not (app.mode == THINK or app.hinting or app.grading or app.pregrade):
        ponder_slice(app, t0)
        return
    app.pondering = False  # the engine is someone else's: ponder again after
    if e.done:
        return
    clock = app.clock
    left = app.FRAME_MS - clock.diff(clock.now(), t0)
    t = clock.now()
    if app.mode != THINK:  # a grade, a hint: the person's turn is never late
        left -= app.PONDER_RESERVE_MS
        if left > 0:
            e.step_for(left, app.PONDER_CHUNK)
    elif left > 0:
        e.step_for(left, app.SLICE)
    else:  # a long turn (a save): still a little progress
        e.step(app.SLICE)
    app.search_ms += clock.diff(clock.now(), t)


def ponder_slice(app, t0):
    """Thinking on the person's time: against Master, while the person carries
    out the computer's move, thinks and sows, the engine searches the position
    the next move is made in (keeping its table, so the computer's think starts
    warm).  It takes only what a loop turn has left short of PONDER_RESERVE_MS,
    so it never delays a press, a frame or a save; a new target (a move, a
    takeback, a new game) restarts it."""
    g = app.game
    e = app.engine
    mode = app.mode
    if not app.PONDER or g is None or g.over or app.meta["level"] != 4 or \
            not (mode == SELECT or mode == SOW or mode == SHOW or mode == ANIM or
                 mode == GRADE or mode == BLUNDER):
        if app.pondering:
            app.pondering = False
            e.stop()
        return
    clock = app.clock
    left = app.FRAME_MS - app.PONDER_RESERVE_MS - clock.diff(clock.now(), t0)
    if left <= 0:
        return
    target = app.ponder_target
    if target is None:
        target = app.ponder_target = bytearray(16)
        app.pondered = bytearray(16)
    target[:] = g.pos
    if mode == SOW or mode == SHOW:  # the move being carried out: after it
        g.rules.move(target, app.sow_pit)
    if not target[MASK]:
        return
    if not app.pondering or target != app.pondered:
        app.pondered[:] = target
        e.keep = True
        e.start(target, nodes=app.PONDER_NODES, clock=clock.now)
        app.pondering = True
    if not e.done:
        t = clock.now()
        e.step_for(left, app.PONDER_CHUNK)
        app.ponder_ms += clock.diff(clock.now(), t)
