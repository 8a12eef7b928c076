"""Issue 26 item 9: the page says at least what the terminal says.  The words come
from mancala/words.py, the terminal's lines with clicks for keys, computed by the glue
(host_tools/simulators/web/webboard.py) in CPython here and in the MicroPython VM the page runs:
the menu's settings and values (and no stone counts made of menu lights), the
computer's move naming its pit, the coach's grade, game over with winner and score."""

import json
import os

import pytest

from host_tools.benches.web_measure import _saved_game
from host_tools.runners import mpvm
from host_tools.simulators import web_serve
from host_tools.simulators.web.webboard import WebBoard
from mancala.notation import parse_record
from mancala.rules import SIDE, get_rules
from mancala.words import GRADE_WORDS

# South to move; S1 is a blunder of about 10 stones (host_tools/simulators/sim_screens.py)
# South to move; the board's coach (a Pico's native 48,000 nodes): S5 a blunder (14 stones),
# S1 an inaccuracy (4), S6 the best
BLUNDER_RECORD = "kalah 1 4 3 2 2 6 5 2 6"
# South to move; S6 ends the game
LAST_MOVE_RECORD = "kalah 0,0,0,0,0,1,30,0,0,0,0,0,1,16 S"


def step_until(wb, want, limit=30000):
    t = 0
    while not want():
        assert t < limit, "never (mode %s): %s" % (wb.board.mode(), wb.words())
        wb.step(20)
        t += 20


def tap(wb, pit):
    wb.down(pit)
    wb.up(pit)
    step_until(wb, wb.quiet, 2000)


def words(wb):
    return json.loads(wb.words())


def test_the_menu_says_its_settings_and_their_values_not_counts():
    wb = WebBoard("pico_buttons", "", 1, json.dumps({"variant": "oware", "opponent": 4}))
    step_until(wb, lambda: wb.board.mode() == "menu")
    w = words(wb)
    text = "\n".join(w["lines"])
    assert w["lines"][0].startswith("MENU: a South pit") and "North store starts" in text
    for said in ("S1 variant: oware", "S2 opponent: master", "S3 who starts: South",
                 "N4=oware*", "N1=ranok"):
        assert said in text, text
    # the LEDs show settings in the menu: read back as stones they said N6 "6" ... S1 "12"
    assert [c for c in wb.board.counts() if c] and w["counts"] == [""] * 14
    assert [0, "variant", "oware", True] in w["menu"]["items"]
    assert [10, "oware", True] in w["menu"]["values"]
    tap(wb, "S2")  # the opponent item: its values on the North pits
    w = words(wb)
    assert [1, "opponent", "master", True] in w["menu"]["items"]
    assert [11, "master", True] in w["menu"]["values"] and \
        w["lines"][-1] == "opponent: N1=a person  N2=beginner  N3=amateur  N4=strong  N5=master*"


def test_the_computers_move_names_the_pit_it_blinks():
    wb = WebBoard("pico_buttons", "", 1, json.dumps({"variant": "kalah3", "opponent": 1,
                                                    "starter": 1, "coaching": 0}))
    step_until(wb, lambda: wb.board.mode() == "menu")
    tap(wb, "NS")
    step_until(wb, lambda: wb.board.mode() == "show" and wb.board.shown_pit() is not None)
    pit = wb.board.shown_pit()  # read from the LEDs: the pit blinking in North's colour
    name = "N%d" % (pit - 6)
    w = words(wb)
    assert w["lines"][0] == "the computer plays %s: take the blinking pit's stones and " \
        "click it" % name
    assert w["event"] == "the computer (North) played %s" % name
    assert w["counts"] == [str(c) for c in get_rules("kalah3").start(1)[:14]]


def _from_saved(record, human, level, **settings):
    wb = WebBoard("pico_buttons", _saved_game(record, human, level, settings), 1)
    step_until(wb, lambda: wb.board.mode() == "select")
    return wb


def test_game_over_says_who_won_and_the_score():
    wb = _from_saved(LAST_MOVE_RECORD, 3, 0, quick=1)
    tap(wb, "S6")
    step_until(wb, lambda: wb.board.mode() == "over")
    game = parse_record(LAST_MOVE_RECORD + " 6")
    s, n = game.pos[6], game.pos[13]
    assert s > n and (s, n) == (31, 17)
    w = words(wb)
    assert w["lines"][0] == "game over: South wins, 31-17; any pit for the menu"
    assert w["event"] == "game over: South wins, 31-17"


def test_the_coachs_grade_is_in_words():
    wb = _from_saved(BLUNDER_RECORD, 1, 2, coaching=1, quick=1)
    tap(wb, "S5")
    step_until(wb, lambda: wb.board.mode() == "blunder")
    w = words(wb)
    assert w["lines"][0].startswith("blunder (") and "the red pit N" in w["lines"][0] and \
        "your store (SS) takes the move back, any pit keeps it" in w["lines"][0]
    assert w["event"].startswith("coach: the move S5 was a blunder (") and \
        w["event"].endswith(" stones lost)")
    # any pit keeps the move; another move is graded in GRADE (the colour on its pit)
    wb2 = _from_saved(BLUNDER_RECORD, 1, 2, coaching=1, quick=1)
    g = parse_record(BLUNDER_RECORD)
    assert g.pos[SIDE] == 0
    tap(wb2, "S1")
    step_until(wb2, lambda: wb2.board.mode() in ("grade", "blunder"))
    w = words(wb2)
    said = w["event"]
    assert said.startswith("coach: the move S1 was ") and \
        any(said[len("coach: the move S1 was "):].startswith(gw) for gw in GRADE_WORDS), said
    if wb2.board.mode() == "grade":
        assert w["lines"][0].startswith(said) and w["lines"][0].endswith("(any pit goes on)")


def test_the_words_come_from_the_micropython_vm_too():
    if not mpvm.available():
        pytest.skip("MicroPython VM not installed: run `make setup` (npm ci)")
    root = web_serve.ROOT
    code = r'''
import json
from webboard import WebBoard
wb = WebBoard("pico_buttons", "", 1, json.dumps({"variant": "kalah3", "opponent": 1,
                                                 "starter": 1, "coaching": 0}))
for _ in range(100):
    wb.step(20)
menu = json.loads(wb.words())
wb.down(13); wb.up(13)
t = 0
while wb.board.mode() != "show" and t < 60000:
    wb.step(20); t += 20
print(json.dumps([menu, json.loads(wb.words()), wb.app.sow_pit]))
'''
    out = mpvm.run(code, mounts=[(os.path.join(root, "host_tools", "fakes"), "/lib"),
                                 (os.path.join(root, "host_tools", "simulators", "web", "webboard.py"),
                                  "/lib/webboard.py")])
    menu, show, pit = json.loads(out.strip().splitlines()[-1])
    assert "S3 who starts: North" in menu["lines"][1] and menu["counts"] == [""] * 14
    assert show["lines"][0].startswith("the computer plays N%d: " % (pit + 1))
    assert show["event"] == "the computer (North) played N%d" % (pit + 1)
