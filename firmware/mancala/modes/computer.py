"""The computer's turn: it thinks (a light runs along its row; a store's tap: move now;
the search runs in the rest of each loop turn, App.search_slice), then its pit blinks
until the person takes the stones and sows them as guided."""

from mancala.modes import SHOW, THINK, put
from mancala.modes.game import SIDE_COLOURS, GameMode, draw_marks, draw_pits
from mancala.modes.play import begin_move, start_sow
from mancala.rules import MASK, N_STORE, S_STORE


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


def light_step(app, el):
    """The thinking light's step `el` ms into the think (one ahead when the step came
    early, on a frame that went out anyway: Think.tick)."""
    f = el // app.THINK_STEP_MS
    if app.think_frame == f + 1:
        f += 1
    return f


def light_pit(app, el):
    """The pit the thinking light is on, `el` ms into the think."""
    return app.game.side * 7 + light_step(app, el) % 6


class Think(GameMode):
    """The computer searches: a light runs along its row (drawn only when it moves: the
    turns between frames go to the search)."""

    name = "think"
    status_blink = True
    pitwise = True

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
            step = app.THINK_STEP_MS
            f = el // step
            shown = app.think_frame
            if shown != f and shown != f + 1:  # the animation moved (a frame of the
                app.think_frame = f  # chain: the pit it leaves and the one it comes to)
                app.redraw(1 << app.think_light | 1 << light_pit(app, el))
            elif shown == f and step - el % step <= app.THINK_SHARE_MS and \
                    (step - el % step < app.FRAME_MS or app.frame_pending()):
                # its next step rides on a frame that goes out anyway (a press's, the
                # red flash's blinks: one frame), or falls due within this turn (whose
                # slice runs at least the rest of it: a few ms early, not a turn late)
                app.think_frame = f + 1
                app.redraw(1 << app.think_light | 1 << light_pit(app, el))
            app.set_status(self, self.phase(app, el))  # (its own pin: no frame)

    def phase(self, app, el):
        """The status LED's blink (and the marks') turns with the light's steps, early
        when a step comes early (Think.tick): no loop turn of its own for the blink
        after a step shared a tap's frame."""
        return light_step(app, el) & 1

    def draw(self, app, px, el, phase):
        draw_pits(app, px, 0, phase)
        app.think_frame = light_step(app, el)  # (the step this frame shows: not again)
        k = app.think_light = light_pit(app, el)
        if not app.touch_drawn >> k & 1:  # a finger's dot stays readable on its pit
            px.count(k, app.shown[k], SIDE_COLOURS[app.game.side])
        draw_marks(app, px, phase)

    def draw_pit(self, app, px, i, el):
        """Pit i as draw() draws it (no hint, takeback blink or held count: the App
        draws pits alone only then)."""
        k = light_pit(app, el)
        if i == k and not app.touch_drawn >> k & 1:
            app.think_light = k
            px.count(k, app.shown[k], SIDE_COLOURS[app.game.side])
        else:
            px.count(i, app.shown[i], None)

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

    def draw(self, app, px, el, phase):
        draw_pits(app, px, 0, phase)
        if phase:
            px.fill(app.sow_side * 7 + app.sow_pit, SIDE_COLOURS[app.sow_side])
        draw_marks(app, px, phase)

put(THINK, Think())
put(SHOW, Show())
