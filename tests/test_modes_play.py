"""modes/play.py and modes/game.py alone, on a fake App and a manual clock: the person's
move, the guided sowing, the animation after a move, the end screen, the gestures."""

from modes_helpers import FakeApp, mode

from mancala import modes as M
from mancala.hw import pits as P
from mancala.modes import game as G
from mancala.modes import play


def test_select_rejects_a_pit_that_is_not_the_movers_and_lights_the_legal_ones():
    app = FakeApp()
    sel = mode(M.SELECT)
    sel.on_event(app, P.TAP, 9)  # North's pit on South's turn
    assert app.calls == [("no", 1 << 9)] and app.mode == M.SELECT
    counts, bgs = app.draw()
    assert counts[:6] == [4] * 6 and bgs[:6] == ["south"] * 6 and bgs[7] is None


def test_a_tap_on_a_legal_pit_starts_the_guided_sowing_and_each_right_tap_drops_a_stone():
    app = FakeApp()
    mode(M.SELECT).on_event(app, P.TAP, 1)  # S2: 4 stones to S3 S4 S5 S6
    assert app.modes_asked() == [M.SOW] and app.shown[1] == 0
    assert ("set_pause", M.PAUSE_SOWING, 1) in app.calls
    assert bytes(app.sow_path) == bytes([2, 3, 4, 5])
    sow = mode(M.SOW)
    assert app.draw()[1][2] == "white"  # the next pit lit white
    sow.on_event(app, P.TAP, 4)  # not the next pit
    assert app.calls[-1] == ("no", 1 << 4) and app.sow_i == 0
    for pit in (2, 3, 4, 5):
        sow.on_event(app, P.TAP, pit)
    assert app.game.ply == 1 and app.mode == M.ANIM or app.mode == M.SELECT
    assert ("save_game", 1) in app.calls


def test_quick_sowing_drops_a_stone_every_quick_ms_by_itself():
    app = FakeApp(quick=1)
    play.begin_move(app, 0)
    play.start_sow(app)
    sow = mode(M.SOW)
    sow.on_event(app, P.TAP, 1)  # taps are not wanted
    assert app.sow_i == 0 and ("no", 2) not in app.calls
    for _ in range(4):
        app.clock.advance(app.QUICK_MS)
        sow.tick(app, app.clock.now(), app.since(app.t_mode))
    assert app.game.ply == 1


def test_the_animation_waits_its_time_then_the_turn_goes_on():
    app = FakeApp()
    app.game.play(2)  # S3: the last stone in the store, an extra turn
    app.flags = 1  # EXTRA
    app.mode = M.ANIM
    anim = mode(M.ANIM)
    anim.tick(app, app.clock.now(), 100)
    assert app.modes_asked() == []
    anim.tick(app, app.clock.now(), app.ANIM_MS)
    assert app.modes_asked() == [M.SELECT] and ("turn_mode",) in app.calls


def test_over_taps_open_the_menu_and_long_stores_do_in_every_game_mode():
    app = FakeApp()
    mode(M.OVER_).on_event(app, P.TAP, 3)
    for n in (M.SELECT, M.SOW, M.THINK, M.SHOW, M.ANIM, M.GRADE, M.BLUNDER, M.OVER_):
        mode(n).on_event(app, P.LONG, G.STORES)
    assert app.calls.count(("toggle_menu",)) == 9


def test_chords_takeback_hint_and_a_chord_that_is_no_gesture():
    app = FakeApp()
    app.game.play(0)  # South moved (kalah S1): North to move, both people
    app.refresh()
    mode(M.SELECT).on_event(app, P.CHORD, (1 << 7) | (1 << 12))  # takeback chord
    assert app.game.ply == 0 and app.modes_asked() == [M.SELECT]
    mode(M.SELECT).on_event(app, P.CHORD, (1 << 0) | (1 << 1))
    assert app.calls[-1] == ("no", 3)


def test_a_held_pit_blinks_its_count_on_one_led_builds_only():
    app = FakeApp(profile="pico_cheap")
    mode(M.SELECT).on_event(app, P.HOLD, 3)
    assert app.show_count_pit == 3
    app2 = FakeApp()
    mode(M.SELECT).on_event(app2, P.HOLD, 3)
    assert app2.show_count_pit == -1
