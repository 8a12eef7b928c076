"""The coach: the grade of each move (its colour on the pit played) and the pause after
a blunder (the threat shown, a takeback offered); the hint is modes/game.py's
(give_hint).  Imported when it first grades: a game without the coach does not hold it.

The coach grades in slices like any search (the pits stay live): Engine.grade() taken
apart, checked against it in tests/test_board_play.py; the engine's slices are given by
App.search_slice().
"""

from mancala.hw.pixels import RED, WHITE
from mancala.modes import BLUNDER, GRADE, PAUSE_BLUNDER, put
from mancala.modes.game import HINT, GameMode, draw_marks, draw_pits, give_hint, takeback  # noqa: F401
from mancala.rules import SIDE

# best green, excellent sky blue, good white, inaccuracy lime, mistake amber, blunder red
# (none of them a count colour, so a graded pit never reads as a count)
GRADE_COLOURS = ((0, 255, 110), (0, 200, 255), (255, 255, 255), (200, 255, 0), (255, 140, 0),
                 (255, 0, 0))


def start_grade(app):
    app.grading = True
    if app.pregrade:  # begun at the tap (early_grade): it goes on
        app.pregrade = False
        return
    app.engine.keep = False  # from an empty table: the grade is the position's alone
    app.engine.start_grade(app.before, app.sow_pit, nodes=app.COACH_NODES,
                           clock=app.clock.now)


def early_grade(app):
    """The coach grades the person's move from the tap on, on their sowing time
    (finish_move's start_grade() then goes on with it)."""
    if app.engine is None or not app.settings["coaching"] or not app.human(app.game.side):
        return
    app.pondering = False
    # From an empty table, against every level: the grade then depends on the position,
    # the move and the budget alone, so `mancala analyse` gives the same grade
    # (docs/ENGINE.md, "The board and the report").  (A table pondered on, Master's,
    # graded deeper by chance of what pondering had reached; Master's think after the
    # move starts from the grade's table instead, which searched its position first.)
    app.engine.keep = False
    app.before[:] = app.game.pos
    app.engine.start_grade(app.before, app.sow_pit, nodes=app.COACH_NODES,
                           clock=app.clock.now)
    app.pregrade = True


def finish_grade(app):
    app.grading = False
    app.grade = app.engine.grade_result()


def after_grade(app):
    if app.grade[0] == 5 and not app.game.over:
        app.set_pause(PAUSE_BLUNDER, app.grade[2])
        app.set_mode(BLUNDER)
    else:
        app.set_mode(app.turn_mode())


class Grade(GameMode):
    """The grade's colour on the pit played, GRADE_MS (a tap: on at once)."""

    name = "grade"

    def tap(self, app, pit):
        after_grade(app)

    def tick(self, app, now, el):
        if el >= app.GRADE_MS:
            after_grade(app)

    def draw(self, app, px, el, phase):
        draw_pits(app, px, 0, phase)
        px.fill(app.before[SIDE] * 7 + app.sow_pit, GRADE_COLOURS[app.grade[0]])
        draw_marks(app, px, phase)

class Blunder(GameMode):
    """After a blunder: the threat blinks red, the mover's store white; its tap takes the
    move back, any other pit keeps it."""

    name = "blunder"
    animated = True

    def tap(self, app, pit):
        if pit == app.before[SIDE] * 7 + 6:
            takeback(app)
        else:
            app.set_pause(0)
            app.set_mode(app.turn_mode())

    def draw(self, app, px, el, phase):
        draw_pits(app, px, 0, phase)
        th = app.grade[2]
        if th >= 0 and phase:
            px.fill((app.before[SIDE] ^ 1) * 7 + th, RED)
        st = app.before[SIDE] * 7 + 6
        px.count(st, app.shown[st], WHITE if phase else None)
        draw_marks(app, px, phase)

put(GRADE, Grade())
put(BLUNDER, Blunder())
