"""What every mode of a game in progress shares: GameMode (the counts drawn, the gestures
of a game), the chords (takeback, the hint, the ranok agreement) and the takeback.

  pit 1 + pit 6 of a row together ... take back
  pit 3 + pit 4 of a row together ... hint (a Master search, give_hint)
  both stores together (ranok) ...... end by agreement
  hold both stores (2.5 s) .......... menu (new game); again to go back
  hold a pit (one-LED builds) ....... the pit blinks its count
"""

from mancala.game import IllegalMove
from mancala.hw import pits as P
from mancala.hw.pixels import GREEN, LAPS, NORTH, SOUTH, WHITE
from mancala.modes import OVER_, SELECT, SOW, THINK, Mode
from mancala.rules import N_STORE, S_STORE

STORES = (1 << S_STORE) | (1 << N_STORE)
SIDE_COLOURS = (SOUTH, NORTH)
TAKEBACK = ((1 << 0) | (1 << 5), (1 << 7) | (1 << 12))
HINT = ((1 << 2) | (1 << 3), (1 << 9) | (1 << 10))


class GameMode(Mode):
    """A mode of the game in progress: the gestures of a game (on_event), the counts
    (draw); a mode adds its taps (tap) and its lights (draw: draw_pits, its own lights,
    draw_marks)."""

    game_frame = True

    def on_event(self, app, kind, arg):
        if kind == P.LONG:
            if arg == STORES:
                app.toggle_menu()
            return
        if kind == P.HOLD:
            if app.single and app.game is not None:
                app.show_count_pit = arg
                app.t_count = app.clock.now()
                app.dirty = True
            return
        if app.game is None:
            return
        if kind == P.CHORD:
            chord(app, arg)
        elif kind == P.TAP:
            self.tap(app, arg)

    def tap(self, app, pit):
        app.no(1 << pit)

    # draw: each mode's own (draw_pits, its lights, draw_marks)


def draw_pits(app, px, legal, phase):
    """Every pit's count; the playable pits on their side's colour, the hinted one green."""
    g = app.game
    shown = app.shown
    side = g.side
    bg_col = SIDE_COLOURS[side] if legal else SOUTH
    single = app.single
    for i in range(14):
        bg = None
        if legal >> i & 1:
            bg = bg_col
            if single and phase and shown[i]:
                px.fill(i, bg_col)  # one LED: a playable pit blinks its side's colour
                continue
        if i == app.hint_pit and phase:
            bg = GREEN
            if single and shown[i]:
                px.fill(i, GREEN)
                continue
        px.count(i, shown[i], bg)
    if app.hinting and phase:
        st = side * 7 + 6
        px.count(st, shown[st], GREEN)


def draw_marks(app, px, phase):
    """Over a mode's lights: the pits a takeback changed blink white; on one-LED builds
    a held pit blinks its count."""
    if app.blink_mask and phase:
        for i in range(14):
            if app.blink_mask >> i & 1:
                px.fill(i, WHITE)
    i = app.show_count_pit
    if i >= 0:
        t = app.since(app.t_count) // 300
        c = app.shown[i]
        if t >= 2 * c + 2:
            app.show_count_pit = -1
            return
        px.fill(i, LAPS[0] if t & 1 == 0 and t < 2 * c else (0, 0, 0))


def chord(app, mask):
    for k in range(len(CHORDS)):
        c = CHORDS[k]
        if mask == c[0] or mask == c[1]:
            c[2](app)
            return
    if mask == STORES and (app.mode == SELECT or app.mode == THINK):
        try:
            app.game.agree()
        except IllegalMove as e:
            app.log("no agreement: %s" % e)
            app.no(STORES)
            return
        if app.engine is not None:
            app.engine.stop()
        app.save_game()
        app.set_mode(OVER_)
    else:
        app.no(mask)  # pits pressed together are never a move


def takeback(app):
    g = app.game
    if app.mode == SOW and app.human(app.sow_side):
        mark_changes(app)
        app.refresh()
        app.set_pause(0)
        app.set_mode(SELECT)
        return
    if g.ply == 0:
        app.no((1 << 0) | (1 << 5) | (1 << 7) | (1 << 12))
        return
    if app.engine is not None:
        app.engine.stop()
    g.undo()
    while g.ply and not app.human(g.side):
        g.undo()
    mark_changes(app)
    app.refresh()
    app.pause = 0  # stale: the next move's sowing writes over it (and its ply differs)
    app.save_game()
    app.hint_pit = -1
    app.set_mode(app.turn_mode())


def mark_changes(app):
    """The pits whose count the takeback changes blink white."""
    pos = app.game.pos
    m = 0
    for i in range(14):
        if app.shown[i] != pos[i]:
            m |= 1 << i
    app.blink_mask = m
    app.blink_ms = 6 * app.BLINK_MS
    app.t_blink = app.clock.now()



def give_hint(app):
    g = app.game
    if app.mode != SELECT or app.engine is None:
        app.no(HINT[0] | HINT[1])
        return
    if app.meta["hints"] <= 0:
        app.no(HINT[g.side])
        return
    if app.hinting:
        return
    if app.hint_pit >= 0:  # asked again in the same position: shown again, free
        app.t_mode = app.clock.now()
        app.dirty = True
        return
    app.meta["hints"] -= 1
    app.save_game()
    # a master search, a slice per loop turn (the pits stay live); the mover's
    # store blinks green until the hinted pit lights (modes/game.py draw_pits)
    app.engine.start(g.pos, level=3, clock=app.clock.now)
    app.hinting = True
    app.dirty = True


# A chord's (South row mask, North row mask, what it does); a mode family adds its own.
CHORDS = [(TAKEBACK[0], TAKEBACK[1], takeback), (HINT[0], HINT[1], give_hint)]
