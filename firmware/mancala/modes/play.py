"""The person's move and the guided sowing, what a move shows after it (a capture, the
extra turn, the sweep) and the end of the game (docs/PLAYER_GUIDE.md):

  tap a lit pit ..................... play it / drop the next stone there
  tap a store while the computer thinks .. move now (modes/computer.py)
"""

from mancala.game import END_AGREEMENT, END_REPETITION
from mancala.hw.pixels import AMBER, NORTH, SOUTH, WHITE
from mancala.modes import ANIM, GRADE, OVER_, PAUSE_SOWING, SELECT, SOW, draw_move_made, put
from mancala.modes.game import SIDE_COLOURS, GameMode, draw_marks, draw_pits
from mancala.rules import MASK, N_STORE, S_STORE

# -- a move, stone by stone -----------------------------------------------------------

def begin_move(app, pit):
    g = app.game
    app.sow_side = g.side
    app.sow_pit = pit
    path = g.rules.paths[g.side * 6 + pit]
    n = g.pos[g.side * 7 + pit]
    if g.rules.name == "mangala" and n == 1:
        app.sow_path = path[1:2]
    else:
        app.sow_path = path[:n]
    app.sow_n = len(app.sow_path)
    app.sow_i = 0


def start_sow(app):
    app.shown[app.sow_side * 7 + app.sow_pit] = 0  # the stones are in the hand
    app.hint_pit = -1
    app.set_pause(PAUSE_SOWING, app.sow_side * 7 + app.sow_pit)
    app.set_mode(SOW)


def drop_stone(app):
    app.shown[app.sow_path[app.sow_i]] += 1
    app.sow_i += 1
    app.t_mode = app.clock.now()
    app.dirty = True
    if app.sow_i >= app.sow_n:
        finish_move(app)


def finish_move(app):
    g = app.game
    app.before[:] = g.pos
    mover = g.side
    app.flags = g.play(app.sow_pit)
    app.anim_side = mover
    app.pause = 0  # pause.json is stale now: its ply is the one before the move
    app.save_game()
    app.grade = None
    app.set_mode(ANIM)
    if app.human(mover) and app.settings["coaching"] and app.engine is not None:
        from mancala.modes.coach import start_grade  # (only with the coach on)

        start_grade(app)
    if not (app.flags or g.end or app.grading):
        after_anim(app)


def after_anim(app):
    app.refresh()
    if app.grade is not None:
        app.set_mode(GRADE)
    else:
        app.set_mode(app.turn_mode())


class Select(GameMode):
    """A person chooses a pit: the legal pits lit in the mover's colour."""

    name = "select"

    def tap(self, app, pit):
        g = app.game
        side = g.side
        if pit < side * 7 or pit >= side * 7 + 6 or not g.pos[MASK] >> (pit - side * 7) & 1:
            app.no(1 << pit)
            return
        begin_move(app, pit - side * 7)
        start_sow(app)
        if app.settings["coaching"]:
            from mancala.modes.coach import early_grade

            early_grade(app)

    def tick(self, app, now, el):
        if app.hinting and app.engine.done:
            app.hinting = False
            app.hint_pit = app.game.side * 7 + app.engine.best_move
            app.dirty = True

    def draw(self, app, px, el, phase):
        draw_pits(app, px, app.game.pos[MASK] << (app.game.side * 7), phase)
        draw_marks(app, px, phase)


class Sow(GameMode):
    """The sowing guided stone by stone: the next pit lit white (quick: the board drops
    a stone every QUICK_MS by itself)."""

    name = "sow"
    animated = True

    def tap(self, app, pit):
        if app.settings["quick"] or app.sow_path[app.sow_i] != pit:
            if not app.settings["quick"]:
                app.no(1 << pit)
            return
        drop_stone(app)

    def tick(self, app, now, el):
        if app.settings["quick"] and el >= app.QUICK_MS:
            drop_stone(app)

    def draw(self, app, px, el, phase):
        draw_pits(app, px, 0, phase)
        tgt = app.sow_path[app.sow_i]
        px.count(tgt, app.shown[tgt], WHITE)
        if app.shown[tgt] >= app.spans[tgt][1] and phase:
            px.fill(tgt, WHITE)
        draw_marks(app, px, phase)

class Anim(GameMode):
    """A capture (the pits flash in the mover's colour), an extra turn (dots run round
    the store), the game's end (the store flashes), while the coach grades."""

    name = "anim"

    def __init__(self):
        self.animated = True  # (its slot made here: enter() allocates nothing in a game)

    def enter(self, app):
        # A move with nothing to show (no capture, no extra turn, not the end) is here
        # only while its grade is awaited: no frames of its own then, and the grade's
        # slices run as long as a think's (App.search_slice)
        self.animated = bool(app.flags or app.game.end)

    def tick(self, app, now, el):
        if app.grading and app.engine.done:
            from mancala.modes.coach import finish_grade

            finish_grade(app)
        if not app.grading and (el >= app.ANIM_MS or not (app.flags or app.game.end)):
            after_anim(app)

    def draw(self, app, px, el, phase):
        draw_pits(app, px, 0, phase)
        draw_move_made(px, app.flags, app.anim_side, SIDE_COLOURS[app.anim_side], el, phase)
        draw_marks(app, px, phase)

class Over(GameMode):
    """The end: every pit in the winner's colour (both alternate: a draw; amber blinks:
    ended by repetition or agreement), the stores their final counts; a tap: the menu."""

    name = "over"
    animated = True

    def tap(self, app, pit):
        app.toggle_menu()

    def draw(self, app, px, el, phase):
        draw_pits(app, px, 0, phase)
        g = app.game
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
        px.count(S_STORE, app.shown[S_STORE], SOUTH)
        px.count(N_STORE, app.shown[N_STORE], NORTH)
        draw_marks(app, px, phase)

put(SELECT, Select())
put(SOW, Sow())
put(ANIM, Anim())
put(OVER_, Over())
