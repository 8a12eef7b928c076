"""modes/coach.py alone: the grade's colour, the blunder pause, the hint, the sliced grade."""

from modes_helpers import FakeApp, mode

from mancala import modes as M
from mancala.hw import pits as P
from mancala.modes import coach


def graded(grade):
    app = FakeApp(human=1, level=1)
    app.before[:] = app.game.pos
    app.game.play(1)
    app.sow_pit = 1
    app.grade = grade
    app.mode = M.GRADE
    return app


def test_the_grade_colour_lights_the_pit_played_then_the_turn_goes_on():
    app = graded((0, 0, -1))
    counts, bgs = app.draw()
    assert counts[1] is None and counts[0] == 4  # the pit played is all grade colour
    first = app.profile["leds"][1][0]
    lit = app.np[first]
    app.grade = (5, 0, -1)
    app.draw()
    assert app.np[first] != lit  # another grade, another colour
    app.grade = (0, 0, -1)
    mode(M.GRADE).tick(app, app.clock.now(), app.GRADE_MS - 1)
    assert app.modes_asked() == []
    mode(M.GRADE).tick(app, app.clock.now(), app.GRADE_MS)
    assert app.modes_asked() == [M.SELECT]


def test_a_blunder_pauses_with_the_threat_red_and_the_store_offering_the_takeback():
    app = graded((5, 9, 2))
    mode(M.GRADE).on_event(app, P.TAP, 4)  # a tap: on at once
    assert app.modes_asked() == [M.BLUNDER] and ("set_pause", M.PAUSE_BLUNDER, 2) in app.calls
    counts, bgs = app.draw(phase=1)
    assert bgs[9] == "red" and bgs[6] == "white"
    mode(M.BLUNDER).on_event(app, P.TAP, 6)  # the mover's store: take it back
    assert app.game.ply == 0 and app.modes_asked()[-1] == M.SELECT


def test_any_other_pit_keeps_the_blundered_move():
    app = graded((5, 9, 2))
    app.mode = M.BLUNDER
    mode(M.BLUNDER).on_event(app, P.TAP, 3)
    assert app.game.ply == 1 and ("set_pause", 0, -1) in app.calls


def test_hints_are_counted_a_search_then_the_pit_lights_green():
    app = FakeApp(human=3)
    sel = mode(M.SELECT)
    sel.on_event(app, P.CHORD, coach.HINT[0])
    assert app.hinting and app.meta["hints"] == 1 and app.engine.calls[0][2] == 3
    app.engine.done = True
    app.engine.best_move = 4
    sel.tick(app, app.clock.now(), 0)
    assert app.hint_pit == 4 and not app.hinting
    assert app.draw(phase=1)[1][4] == "green"
    sel.on_event(app, P.CHORD, coach.HINT[0])  # again, the same position: free
    assert app.meta["hints"] == 1
    app.meta["hints"] = 0
    app.hint_pit = -1
    sel.on_event(app, P.CHORD, coach.HINT[0])
    assert app.calls[-1] == ("no", coach.HINT[0])


def test_the_grade_begun_at_the_tap_goes_on_and_its_result_is_taken():
    app = FakeApp(human=1, level=2, coaching=1)
    app.sow_pit = 2
    coach.early_grade(app)
    assert app.pregrade and app.engine.calls[-1][0] == "start_grade"
    coach.start_grade(app)  # at the move's end: the same search goes on
    assert app.grading and not app.pregrade and len(app.engine.calls) == 1
    app.engine.result = (3, 40, -1)
    coach.finish_grade(app)
    assert app.grade == (3, 40, -1) and not app.grading
