"""Play on the board: wrong presses at every stage, sensors misbehaving, gestures."""

import random

import pytest
from board_helpers import board, play_game, settled, shown_counts, start, to_select

from host_tools.fakes.board import index
from mancala import app as A
from mancala.engine import Engine
from mancala.game import END_AGREEMENT
from mancala.hw.pits import Pits


def snapshot(b):
    g = b.app.game
    return (bytes(g.pos), g.ply, A.MODE_NAMES[b.app.mode], bytes(b.app.shown),
            b.app.sow_i)


def flashes_red(b, pit, action):
    """Do `action`; the pit must flash red within the next frames, nothing change."""
    before = snapshot(b)
    frames = []
    b.app.on_frame = lambda app: frames.append(b.frame())
    action()
    b.app.on_frame = None
    assert any(f["bg"][pit] == "red" and f["counts"][pit] is None for f in frames), frames[-3:]
    assert snapshot(b) == before


def test_select_rejects_other_pits_with_a_red_flash():
    b = board(variant="kalah", opponent=0, starter=0)
    start(b)
    for name in ("N1", "N6", "SS", "NS"):
        flashes_red(b, index(name), lambda n=name: b.tap(n))
    b.play_move(0)  # S1: empty it
    to_select(b)
    b.play_move(7)  # North plays N1
    to_select(b)
    assert b.app.game.pos[0] == 0 and b.app.game.side == 0
    flashes_red(b, 0, lambda: b.tap("S1"))  # an empty pit


def test_sowing_guide_waits_on_wrong_taps():
    b = board(variant="oware", opponent=0, starter=0)
    start(b)
    b.tap("S2")
    assert b.mode() == "sow"
    target = b.target()
    assert target == index("S3")
    for name in ("S1", "S2", "N1", "SS", "NS", "S4"):
        flashes_red(b, index(name), lambda n=name: b.tap(n))
        assert b.target() == target
    assert b.sow() == 4
    assert b.app.game.ply == 1


def test_computer_turn_stages_reject_wrong_pits():
    b = board(variant="kalah", opponent=4, starter=1)
    b.app.SLICE = 4  # a slow "device": the search spans many loop turns
    start(b)
    assert b.mode() == "think"
    flashes_red(b, 0, lambda: b.tap("S1"))
    assert b.until(("show",))
    pit = b.app.sow_side * 7 + b.app.sow_pit
    other = 7 if pit != 7 else 8
    flashes_red(b, other, lambda: b.tap(other))
    assert b.mode() == "show"
    b.sow()
    assert b.app.game.ply == 1


def test_move_now_by_tapping_a_store_while_thinking():
    b = board(variant="oware", opponent=4, starter=1)
    b.app.SLICE = 2
    start(b)
    b.run(200)
    assert b.mode() == "think"
    b.tap("NS")
    assert b.mode() == "show"
    assert b.app.engine.nodes < 1000  # ~0.7 s of a Pico (Master: 2800)


def test_pits_pressed_together_are_not_a_move():
    b = board(variant="kalah", opponent=0)
    start(b)
    before = snapshot(b)
    frames = []
    b.app.on_frame = lambda app: frames.append(b.frame())
    b.chord(("S2", "S5"))
    assert snapshot(b) == before
    assert any(f["bg"][1] == "red" and f["bg"][4] == "red" for f in frames)


def test_bouncing_press_plays_once():
    b = board(variant="kalah", opponent=0)
    start(b)
    for _ in range(6):  # contact bounce shorter than the debounce
        b.press("S3")
        b.run(A.App.FRAME_MS)
        b.release("S3")
        b.run(A.App.FRAME_MS)
    assert b.mode() == "select"
    b.press("S3")
    b.run(100)
    for _ in range(3):  # bounce on release
        b.release("S3")
        b.run(A.App.FRAME_MS)
        b.press("S3")
        b.run(A.App.FRAME_MS)
    b.release("S3")
    b.run(100)
    assert b.mode() == "sow" and b.app.sow_pit == 2 and b.app.sow_i == 0


def test_stuck_sensor_is_reported_and_ignored():
    b = board(variant="kalah", opponent=0)
    start(b)
    b.press("N3")
    b.run(Pits.STUCK_MS + 200)
    assert any("stuck" in line for line in b.lines)
    assert b.app.game.ply == 0
    b.play_move(index("S3"))  # the other pits still play (no chord with N3)
    assert b.app.game.ply == 1
    b.release("N3")
    b.run(100)
    play_game(b, random.Random(2))


def test_noisy_hall_sensors_play_a_game():
    b = board("pico_hall", variant="mangala", opponent=1, noise=1500)
    start(b)
    play_game(b, random.Random(4))


def test_pit_lights_under_the_finger_at_once():
    b = board(variant="kalah", opponent=0)
    start(b)
    b.run(500)
    b.press("N4")
    t0 = b.clock.now()
    i = index("N4")
    while b.decoded()[1][i] != "white":  # its first LED turns white
        b.run(A.App.FRAME_MS)
        assert b.clock.now() - t0 <= Pits.DEBOUNCE_MS + 2 * A.App.FRAME_MS
    b.release("N4")


def test_takeback_against_the_computer_returns_to_the_persons_turn():
    b = board(variant="kalah", opponent=1, starter=0)
    start(b)
    b.play_move(index("S2"))
    to_select(b)
    assert b.app.game.ply >= 2 and b.app.game.side == 0
    start_pos = list(b.app.game.rules.start())
    b.chord(("S1", "S6"))
    assert b.app.game.ply == 0 and b.mode() == "select"
    b.run(2000)
    assert b.counts() == start_pos[:14]
    assert b.app.store.load("game.json")[1]["record"] == "kalah"
    b.chord(("N1", "N6"))  # nothing left to take back
    assert b.app.game.ply == 0


def test_takeback_while_sowing_and_while_thinking():
    b = board(variant="oware", opponent=3, starter=0)
    b.app.SLICE = 2
    start(b)
    b.tap("S4")
    b.tap(b.target())
    b.chord(("S1", "S6"))  # cancel the move being sown
    assert b.mode() == "select" and b.app.game.ply == 0
    b.run(2000)
    assert b.counts() == [4] * 6 + [0] + [4] * 6 + [0]
    b.play_move(index("S4"))
    assert b.mode() == "think"
    b.chord(("S1", "S6"))
    assert b.mode() == "select" and b.app.game.ply == 0


def test_hints_are_counted_and_shown():
    b = board(variant="kalah", opponent=0, hints=1)
    b.app.SLICE = 4  # a slow device: the hint takes many loop turns
    start(b)
    b.chord(("S3", "S4"))
    assert b.app.hinting and b.app.meta["hints"] == 0
    stores = set()
    while b.app.hinting:  # the South store blinks green while the coach searches
        b.run(60)
        stores.add(b.decoded()[1][6])
    assert "green" in stores
    hp = b.app.hint_pit
    assert 0 <= hp < 6 and b.app.game.pos[15] >> hp & 1
    seen = set()
    for _ in range(10):
        b.run(60)
        seen.add(b.decoded()[1][hp])
    assert "green" in seen
    flashes_red(b, index("S3"), lambda: b.chord(("S3", "S4")))  # none left
    b.play_move(hp)
    assert b.app.hint_pit == -1


def test_ranok_agreement_and_not_in_other_variants():
    b = board(variant="kalah", opponent=0)
    start(b)
    flashes_red(b, 6, lambda: b.chord(("SS", "NS")))
    b = board(variant="ranok", opponent=2)
    start(b)
    b.play_move(index("S1"))
    to_select(b)
    b.chord(("SS", "NS"))
    assert b.mode() == "over" and b.app.game.end == END_AGREEMENT
    rec = b.app.store.read_game(b.app.meta["number"])
    assert rec.endswith("agreed")
    b.run(600)
    assert b.counts()[6] == b.app.game.pos[6] and b.counts()[13] == b.app.game.pos[13]


def test_menu_gesture_and_back_to_the_game():
    b = board(variant="kalah", opponent=0)
    start(b)
    b.play_move(index("S1"))
    to_select(b)
    ply = b.app.game.ply
    b.hold(("SS", "NS"), Pits.LONG_MS + 200)
    assert b.mode() == "menu"
    b.hold(("SS", "NS"), Pits.LONG_MS + 200)
    assert b.mode() == "select" and b.app.game.ply == ply


def test_menu_sets_everything_and_starts_a_new_game():
    b = board(variant="kalah", opponent=0)
    start(b)
    b.hold(("SS", "NS"), Pits.LONG_MS + 200)
    choices = [("S1", "N4"), ("S2", "N5"), ("S3", "N2"), ("S4", "N2"), ("S5", "N6"),
               ("S6", "N4"), ("SS", "N2")]
    for item, value in choices:
        b.tap(item)
        b.tap(value)
    flashes_red(b, index("N3"), lambda: (b.tap("SS"), b.tap("N3")))  # quick: 2 choices
    assert b.app.settings == {"variant": "oware", "opponent": 4, "starter": 1, "coaching": 1,
                              "hints": 9, "brightness": 3, "quick": 1, "play": 0,
                              "idle": 10}
    assert b.app.store.load("settings.json")[1] == b.app.settings
    b.tap("NS")
    g = b.app.game
    assert g.rules.name == "oware" and g.side == 1 and g.ply == 0
    assert b.app.meta["level"] == 4 and b.app.meta["hints"] == 9
    assert b.mode() in ("think", "show")


def test_starter_by_lot_uses_both_sides():
    sides = set()
    for seed in range(8):
        b = board(seed=seed, variant="kalah", opponent=0, starter=2)
        start(b)
        sides.add(b.app.game.side)
    assert sides == {0, 1}


class BlunderEngine:
    """The real engine (it still searches the grade in slices), except that every
    move it grades comes out a blunder with the threat North pit 3."""

    def __init__(self, rules, tt_bits=12, seed=0):
        self.rules = rules
        self.e = Engine(rules, tt_bits, seed)

    def __getattr__(self, name):
        return getattr(self.e, name)

    def grade_result(self):
        self.e.grade_result()
        return 5, 9, 2

    def grade(self, pos, pit, nodes=None):
        return 5, 9, 2


@pytest.mark.parametrize("take", [True, False])
def test_coach_pauses_on_a_blunder_and_offers_a_takeback(take):
    b = board(variant="kalah", opponent=1, coaching=1, engine_cls=BlunderEngine)
    start(b)
    frames = []
    b.app.on_frame = lambda app: frames.append(b.frame())
    b.play_move(index("S2"))
    assert b.until(("blunder",), 5000)
    assert any(f["mode"] == "grade" and f["bg"][1] == "red" for f in frames)  # its colour
    b.run(600)
    assert any(f["mode"] == "blunder" and f["bg"][9] == "red" for f in frames)  # threat N3
    assert any(f["mode"] == "blunder" and f["bg"][6] == "white" for f in frames)  # offer
    b.run(3000)
    assert b.mode() == "blunder"  # it waits for the person
    if take:
        b.tap("SS")
        assert b.mode() == "select" and b.app.game.ply == 0
    else:
        b.tap("S5")
        assert b.mode() in ("think", "show") and b.app.game.ply == 1


def test_grades_shown_after_each_move_with_coaching():
    b = board(variant="mangala", opponent=2, coaching=1)
    start(b)
    grades = []
    b.app.on_frame = lambda app: grades.append(app.grade) if app.mode == A.GRADE else None
    for _ in range(4):
        to_select(b)
        g = b.app.game
        b.play_move(random.Random(1).choice([k for k in range(6) if g.pos[15] >> k & 1]))
        settled(b)
    assert grades and all(0 <= gr[0] <= 5 for gr in grades)


def test_game_end_shows_winner_and_stores_then_menu():
    b = board(variant="kalah3", opponent=0)
    start(b)
    ref, _ = play_game(b, random.Random(5))
    w = b.app.game.winner()
    b.run(600)
    bgs = b.decoded()[1]
    names = {0: "south", 1: "north"}
    if w in names:
        assert all(bgs[i] == names[w] for i in range(14) if i not in (6, 13))
    assert b.counts()[6] == ref[6] and b.counts()[13] == ref[13]
    b.tap("S1")
    assert b.mode() == "menu"


def test_sensor_test_at_boot_lights_every_touched_pit():
    b = board(held=("SS", "NS"), variant="kalah")
    assert b.mode() == "sensor_test"
    b.release("SS")
    b.release("NS")
    b.run(200)
    for i in range(14):
        b.press(i)
        b.run(100)
        counts, bgs = b.decoded()
        assert counts[i] is None and bgs[i] == "white", i  # lit white
        assert all(bgs[j] == "south" for j in range(14) if j != i)
        b.release(i)
        b.run(100)
    b.hold(("SS", "NS"), Pits.LONG_MS + 200)
    assert b.mode() == "menu"


def test_led_test_at_boot_then_normal():
    b = board(held=("SS",), variant="kalah")
    assert b.mode() == "led_test"
    b.release("SS")
    b.run(4 * A.App.LED_TEST_STEP_MS + 100)
    assert b.counts() == [i + 1 for i in range(14)]
    assert b.until(("menu",), 10000)


def test_hold_blinks_the_count_on_one_led_builds():
    b = board("pico_cheap", variant="kalah", opponent=0)
    start(b)
    b.press("S1")
    b.run(Pits.HOLD_MS + 100)
    b.release("S1")
    seen = []
    for _ in range(40):
        b.run(60)
        seen.append(b.counts()[0])
    assert seen.count(1) > 0 and seen.count(0) > 0  # on/off blinks (4 of them)
    assert b.app.game.ply == 0


def test_firmware_error_never_stops_the_board():
    b = board(variant="kalah", opponent=0, strict=False)
    start(b)
    b.play_move(index("S1"))
    to_select(b)

    def boom(ev):
        raise RuntimeError("bug")

    b.app.on_event = boom
    b.tap("S2")
    assert any("bug" in line for line in b.lines)
    del b.app.on_event
    assert b.mode() == "select" and b.app.game.ply == 1
    assert b.counts() == shown_counts(b, b.app.game.pos)


def test_run_confirms_the_boot_after_healthy_loop_turns(monkeypatch):
    b = board(variant="kalah", opponent=0)
    calls = []

    class Done(BaseException):
        pass

    def sleep(ms):
        b.clock.advance(max(ms, 0))
        if b.clock.now() > 5000:
            raise Done()

    monkeypatch.setattr(A, "confirm_boot", lambda: calls.append(b.clock.now()))
    b.app.clock.sleep = sleep
    try:
        b.app.run()
    except Done:
        pass
    assert len(calls) == 1


OWARE_REPEATS = ("oware 5 4 3 3 4 2 5 1 1 2 5 5 3 4 5 3 1 4 3 5 2 3 6 4 1 6 4 1 6 4 2 6 5 3 1 5 3 "
                 "5 1 3 2 6 3 4 4 4 5 1 6 2 5 4 3 5 1 3 3 4 5 6 3 5 5 1 4 1 6 5 5 3 2 1 6 1 3 5 4 "
                 "6 1 2 5 5 1 6 6 1 1 3 2 4 1 2 3 3 2 4 3 6 4 5 5 1 6 6 1 1 2 2 3 3 4 4 5 5 6")


def test_repetition_ends_the_game_on_the_board():
    from host_tools.fakes.memfs import MemFs
    from mancala.game import END_REPETITION
    from mancala.hw.storage import Storage
    from mancala.notation import parse_record

    words = OWARE_REPEATS.split()
    fs = MemFs()
    Storage(fs).save("game.json", {"record": " ".join(words[:-1]), "number": 7, "human": 3,
                                   "level": 0, "hints": 3})
    b = board(fs=fs, variant="oware", opponent=0)
    b.run(200)
    assert b.mode() == "select" and b.app.game.ply == len(words) - 2
    g = b.app.game
    frames = []
    b.app.on_frame = lambda app: frames.append(b.frame())
    b.play_move(g.side * 7 + int(words[-1]) - 1)
    assert b.until(("over",), 5000)
    assert b.app.game.end == END_REPETITION
    b.run(1000)
    final = parse_record(OWARE_REPEATS).pos
    assert b.counts()[6] == final[6] and b.counts()[13] == final[13]
    assert any(f["mode"] == "over" and f["bg"][0] == "amber" for f in frames)  # distinct end
    assert b.app.store.read_game(7) == OWARE_REPEATS


def test_presses_during_an_animation_flash_red_and_change_nothing():
    b = board(variant="kalah", opponent=0)
    start(b)
    b.tap("S3")
    for _ in range(3):
        b.tap(b.target())
    b.press(b.target())  # the last stone: into the store, an extra turn
    b.run(60)
    b.release("SS")
    b.run(60)
    assert b.mode() == "anim"
    flashes_red(b, index("N2"), lambda: b.tap("N2"))
    assert b.until(("select",), 3000) and b.app.game.side == 0 and b.app.game.ply == 1


def test_playing_while_the_hint_searches_cancels_it():
    b = board(variant="oware", opponent=0, hints=3)
    b.app.SLICE = 1
    start(b)
    b.chord(("S3", "S4"))
    assert b.app.hinting
    b.play_move(index("S1"))
    assert not b.app.hinting and b.app.hint_pit == -1 and b.app.game.ply == 1
    assert b.app.meta["hints"] == 2


@pytest.mark.parametrize("variant", ["kalah", "oware", "ranok", "mangala"])
def test_sliced_coach_grades_exactly_like_engine_grade(variant):
    from mancala.game import Game

    b = board(variant=variant, opponent=0, coaching=1)
    start(b)
    app = b.app
    rules = app.game.rules
    rng = random.Random(variant)
    seen = set()
    for _ in range(6):
        g = Game(rules)
        for _ in range(rng.randrange(2, 20)):
            if g.over:
                break
            g.play(rng.choice([k for k in range(6) if g.pos[15] >> k & 1]))
        if g.over:
            continue
        for pit in [k for k in range(6) if g.pos[15] >> k & 1]:
            app.before[:] = g.pos
            app.sow_pit = pit
            app.start_grade()
            while not app.engine.step(7):
                pass
            app.finish_grade()
            sliced = app.grade
            want = app.engine.grade(bytes(g.pos), pit, nodes=app.COACH_NODES)
            assert tuple(sliced) == tuple(want), (list(g.pos), pit)
            seen.add(sliced[0])
    assert len(seen) >= 2  # not all "best"


def test_out_of_range_settings_fall_back_to_defaults():
    from host_tools.fakes.memfs import MemFs
    from mancala.hw.storage import Storage

    fs = MemFs()
    Storage(fs).save("settings.json", {"variant": "chess", "opponent": 9, "starter": -1,
                                       "coaching": 2, "hints": 4, "brightness": 17,
                                       "quick": True})
    b = board(fs=fs)
    assert b.app.settings == A.DEFAULTS
    start(b)
    assert b.mode() in ("select", "think", "show")


def test_an_error_that_keeps_coming_back_ends_in_the_menu():
    b = board(variant="kalah", opponent=0, strict=False)
    start(b)

    def boom():
        raise RuntimeError("bug in update")

    b.app.update = boom
    b.run(200)
    assert b.mode() == "menu" and b.app.game is None
    assert sum("bug in update" in line for line in b.lines) >= 3


def test_hall_build_stones_on_both_stores_at_power_up_start_the_sensor_test():
    """hardware/bringup.md: on the hall build a stone set on each store before
    power-up enters the sensor test, as holding both stores does on a button build."""
    b = board("pico_hall", held=("SS", "NS"), variant="kalah")
    assert b.mode() == "sensor_test"
    b.release("SS")
    b.release("NS")
    b.run(200)
    b.press("S3")
    b.run(100)
    assert b.decoded()[1][2] == "white"  # the stores work again from their real rest
    b.release("S3")
    b.run(100)
    b.hold(("SS", "NS"), Pits.LONG_MS + 200)
    assert b.mode() == "menu"
