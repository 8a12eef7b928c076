"""Issue 44, items 1 and 2, on the board as a person uses it: two boards with Wi-Fi (the
firmware's whole App on the pico_w profile, unix-port processes on the fakes:
host_tools/online/appboard.py) pair through a real Mosquitto with pit presses (board A
shows the code in light, the test reads it from A's LEDs and presses it on B's pits),
then their persons play a whole game through the light alone (each carrying out the
other's move as its board shows it), and both archives hold the same record, which
`mancala analyse` reads.  And a power cut of one board mid-game, which resumes, then a
Wi-Fi drop of the other.

Press to light is measured on each board's own clock (SimBoard's Pico cost model; a
flash save charged 60 ms, as the RP2040's flash takes 24-120 ms)."""

import os

import pytest

from host_tools.command.wifi import settings_json
from host_tools.online.app_boards import AppBoard, AppLib, BoardTimeout, write_flash
from host_tools.runners import mpunix
from mancala.game import Game
from mancala.hw.storage import game_record
from mancala.notation import parse_record
from mancala.rules import get_rules

pytestmark = pytest.mark.skipif(not mpunix.available(), reason="run `make setup`")

# Board A's menu: kalah with 3 seeds (a short game), South (this board) first; B's says
# kalah: the variant and who starts are A's, agreed at pairing
SETTINGS = {"variant": "kalah3", "opponent": 0, "starter": 0, "coaching": 0, "hints": 3,
            "brightness": 1, "quick": 0, "idle": 10, "play": 0}
S_STORE, N_STORE = 6, 13
PRESS_TO_LIGHT_MS = 40


@pytest.fixture(scope="module")
def app_lib():
    lib = AppLib()
    try:
        yield lib
    finally:
        lib.close()


def online_lobby(board):
    """From the menu to the online lobby with pit presses: the South store twice (its
    second item, "play"), N4 (its fourth choice: online), the North store (start)."""
    board.tap(S_STORE)
    board.tap(S_STORE)
    leds = board.leds()
    assert leds["leds"][7:11] == [1, 2, 3, 4], leds  # the play item: four choices here
    board.tap(10)
    board.tap(N_STORE)
    assert board.run(100)["stage"] == "lobby"


def read_code(board):
    """The code as board A shows it: its South row's counts, one digit a pit."""
    for _ in range(100):
        leds = board.leds()
        row = leds["leds"][:6]
        if leds["stage"] == "offer" and all(isinstance(c, int) and 1 <= c <= 6 for c in row):
            return "".join(str(c) for c in row)
        board.run(100)
    raise BoardTimeout("no code on A's South row: %r" % (leds,))


def enter_code(board, code):
    for d in code:
        board.tap(int(d) - 1)


def pair(app_lib, tmp_path, broker):
    a_dir, b_dir = str(tmp_path / "a"), str(tmp_path / "b")
    wifi = settings_json("home-net", "wifi-pass-123", "127.0.0.1:%d" % broker.port)  # mancala wifi's
    write_flash(a_dir, wifi, SETTINGS)
    write_flash(b_dir, wifi, dict(SETTINGS, variant="kalah", starter=1))
    a = AppBoard(app_lib, a_dir, seed=1)
    b = AppBoard(app_lib, b_dir, seed=2)
    online_lobby(a)
    online_lobby(b)
    a.tap(N_STORE)  # offer a game
    code = read_code(a)
    assert a.log_has("the code is %s" % code)  # the console says it too
    return a, b, code


def archived(folder, number):
    with open(os.path.join(folder, "data", "games", "g%05d.txt" % number), "rb") as f:
        record, checked = game_record(f.read())
    assert checked
    return record


def reference(record):
    """The record replayed by the rules: a whole game, over."""
    words = record.split()
    g = Game(get_rules(words[0]))
    for w in words[1:]:
        g.play(int(w) - 1)
    return g


def test_two_boards_pair_by_code_and_play_a_whole_game_through_their_pits(app_lib, mqtt_broker,
                                                                         tmp_path):
    a, b, code = pair(app_lib, tmp_path, mqtt_broker)
    try:
        online_lobby_checks(b, code)
        enter_code(b, code)
        assert b.until_stage(("wait", "select"), 20000) == "wait"  # A moves first
        assert a.until_stage(("select",), 20000) == "select"
        assert b.log_has("paired (joined): kalah3; you play North, the other side moves first")
        # whose turn and the other side's presence, in light: A's playable pits glow in
        # South's colour, B's store (the other side's) in North's: B is there
        leds = a.leds()
        assert leds["bg"][:6] == ["south"] * 6 and leds["bg"][N_STORE] == "north", leds
        # a turn and a frame of the mode (the session's and the client's polls inside)
        # allocate nothing: 300 of each, on both sides of the turn (a keepalive's ping
        # and its answer may come in between: a few bytes, once)
        for board in (a, b):
            assert board.ask("alloc 300", "alloc")["alloc"] <= 64
        a.send("play")
        b.send("play")
        da = a.wait_for("done", timeout=60)
        db = b.wait_for("done", timeout=60)
    finally:
        for x in (a, b):
            x.kill()
    assert da["done"] == db["done"] and da["ply"] == db["ply"] > 10
    assert (da["seat"], db["seat"]) == (0, 1)
    g = reference(da["done"])
    assert g.over and g.rules.id == "kalah3"
    for board, d in ((a, da), (b, db)):
        assert d["refused"] == 0 and d["ignored"] == 0, d
        # no press in the game was refused (B's one red flash: the short code, in its lobby)
        assert [st for st, mask in d["no"]] == ([] if board is a else ["lobby"]), d
        assert d["after"] == "menu"  # the end tapped: back to the menu
        assert archived(board.cfg["data"], d["archived"]) == d["done"]
        # each side's moves were made on its own board, the other's carried out there
        assert d["press_game_ms"] <= PRESS_TO_LIGHT_MS, d
    assert da["moves"] + db["moves"] == da["ply"]
    from host_tools.command.cli import main as cli

    path = os.path.join(a.cfg["data"], "data", "games", "g%05d.txt" % da["archived"])
    assert cli(["analyse", path, "--nodes", "300", "--no-tables"]) == 0
    assert parse_record(da["done"]).over
    print("a whole %s game of %d plies; press to light at most %d / %d ms (A / B, in the game),"
          " %d / %d presses" % (g.rules.id, da["ply"], da["press_game_ms"], db["press_game_ms"],
                                da["presses"], db["presses"]))


def online_lobby_checks(b, code):
    """B's code entry refuses, in light, a code too short and a code of no game."""
    enter_code(b, code[:3])
    b.tap(N_STORE)  # three digits only: "wrong code"
    leds = b.leds()
    assert leds["bg"][N_STORE] == "red" and leds["bg"][:3] == ["red"] * 3, leds
    assert b.log_has("wrong code: a code is six digits, 3 entered")
    for _ in range(3):
        b.tap(S_STORE)  # each takes the last digit back
    wrong = "".join(str(int(d) % 6 + 1) for d in code)  # every digit another
    enter_code(b, wrong)
    assert b.until_stage(("failed",), 20000) == "failed"
    assert b.log_has("no game with the code %s" % wrong)
    reds = set()
    for _ in range(6):
        reds.add(tuple(b.leds()["bg"][:6]))
        b.run(130)
    assert ("red",) * 6 in reds  # the row blinks red
    assert b.until_stage(("lobby",), 5000) == "lobby"


def test_a_board_cut_off_mid_game_comes_back_into_it_and_a_wifi_drop_is_lived_through(
        app_lib, mqtt_broker, tmp_path):
    a, b, code = pair(app_lib, tmp_path, mqtt_broker)
    boards = [a, b]
    try:
        enter_code(b, code)
        assert b.until_stage(("wait",), 20000) == "wait"
        a.send("play")
        b.send("play")
        # B's power goes once A's fifth move has reached it
        b.wait_for("log", lambda m: m["log"].startswith("online: the other side played") and
                   int(m["log"].split("(move ")[1].rstrip(")")) >= 5, timeout=30)
        b.kill()
        a.wait_for("log", lambda m: m["log"] == "online: the other side is away", timeout=10)
        seen = {a.leds()["bg"][N_STORE] for _ in range(8)}
        assert "amber" in seen, seen  # A: the other side's store blinks amber
        b2 = AppBoard(app_lib, b.cfg["data"], seed=2)
        boards.append(b2)
        assert b2.started["resumed"] == "online"  # its start goes back into the game
        b2.send("play")
        b2.wait_for("log", lambda m: m["log"] == "online: the other side is here", timeout=20)
        a.send("down")  # then A's Wi-Fi drops a while: B sees A away, the game waits
        b2.wait_for("log", lambda m: m["log"] == "online: the other side is away", timeout=20)
        a.send("up")
        da = a.wait_for("done", timeout=60)
        db = b2.wait_for("done", timeout=60)
    finally:
        for x in boards:
            x.kill()
    assert da["done"] == db["done"] and reference(da["done"]).over
    assert b2.log_has("online: back to the online game (playing")
    for board, d in ((a, da), (b2, db)):
        assert archived(board.cfg["data"], d["archived"]) == d["done"]
        assert d["refused"] == 0 and d["ignored"] == 0
