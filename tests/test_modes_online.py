"""modes/online.py alone, on the fake App (tests/modes_helpers.py) with a fake session: the
code shown, the code entered (too short, no game), the other side's move shown and
waited for until carried out, this side's move sent in the quiet turn after its light,
the presence and whose turn in light, refused and ignored messages flashed and said,
the chords of a local game refused online; the settings as `mancala wifi` writes them;
the menu's "online" choice only on a board with Wi-Fi and its settings; and the Pico W's
start (its status LED, its profile by the chip's name)."""

import sys

from modes_helpers import FakeApp

from host_tools.fakes.memfs import MemFs
from mancala import modes as M
from mancala.hw import pits as P
from mancala.hw.storage import Storage
from mancala.modes import online as O
from mancala.online.link import FakeLink

S_STORE, N_STORE = 6, 13


class FakeClient:
    connected = True
    finished = 0

    def finish(self):
        self.finished += 1


class FakeSession:
    """What the mode asks of online/session.Session, recorded."""

    def __init__(self, game, seat=0):
        self.game = game
        self.seat = seat
        self.side = "a" if seat == 0 else "b"
        self.phase = "playing"
        self.client = FakeClient()
        self.peer_present = True
        self.game_id = "0123456789abcdef"
        self.archived = 0
        self.ignored = self.refused = 0
        self.peer_ply = -1
        self.polls = []
        self.said = []
        self.played = []
        self.joined = []
        self.created = []
        self.left = False

    def poll(self, busy=False):
        self.polls.append(busy)

    def events(self):
        ev, self.said = self.said, []
        return ev

    def say(self, kind, text=""):
        self.said.append((kind, text))

    def my_turn(self):
        return self.phase == "playing" and not self.game.over and self.game.side == self.seat

    def play(self, pit):
        if not self.my_turn():
            return "it is the other side's turn"
        self.game.play(pit)
        self.played.append(pit)
        return None

    def join(self, code):
        self.joined.append(code)
        self.phase = "joining"

    def create(self, variant, first):
        self.created.append((variant, first))
        self.phase = "offering"

    def leave(self):
        self.left = True


class FakePits:
    down = 0

    def touched(self):
        return self.down


class OnlineApp(FakeApp):
    idle = None

    def __init__(self, **kw):
        FakeApp.__init__(self, **kw)
        self.pits = FakePits()
        self.booted = 0

    def boot_game(self):
        self.booted += 1

    class rng:  # (by lot: the App's generator)
        @staticmethod
        def next():
            return 7


def online_app(seat=0, stage=O.LOBBY, **kw):
    app = OnlineApp(**kw)
    o = O.MODE
    o.session = FakeSession(app.game, seat)
    o.client = o.session.client
    o.link = FakeLink()
    o.digits = 0
    o.t_leave = -1
    o.shown_due = False
    app.mode = O.ONLINE
    o.set_stage(app, stage)
    app.calls.clear()
    return app, o


def tick(app, ms=20):
    app.clock.advance(ms)
    app.dirty = False
    O.MODE.tick(app, app.clock.now(), 0)


def tap(app, pit):
    O.MODE.on_event(app, P.TAP, pit)


def test_the_code_is_shown_on_the_south_row_until_the_other_board_joins():
    app, o = online_app(stage=O.OFFER)
    counts, bgs = app.draw(phase=1)
    assert counts[:6] == [0] * 6 and bgs[N_STORE] == "amber"  # waiting, no code yet
    o.session.say("code", "314625")
    tick(app)
    assert any("the code is 314625" in line for line in app.log_lines)
    for phase in (0, 1):  # shown steadily, a digit a pit, as that many stones
        assert app.draw(phase=phase)[0][:6] == [3, 1, 4, 6, 2, 5]
    tick(app, 5000)
    assert app.draw()[0][:6] == [3, 1, 4, 6, 2, 5] and o.stage == O.OFFER
    o.session.say("paired", "b joined")
    tick(app)
    assert o.stage == O.SELECT and app.meta["human"] == 1  # a moves first: this side
    counts, bgs = app.draw()
    assert bgs[:6] == ["south"] * 6 and counts[:6] == [4] * 6


def test_the_code_entered_with_six_taps_a_short_one_refused_a_wrong_one_said():
    app, o = online_app()
    counts, bgs = app.draw(phase=1)
    assert bgs[:6] == ["white"] * 6  # the keypad's places
    tap(app, 2)
    tap(app, 0)
    assert app.draw()[0][:2] == [3, 1]  # shown as entered, as the other board shows them
    tap(app, N_STORE)  # two digits: "wrong code"
    assert app.calls[-1] == ("no", 0b11 | 1 << N_STORE)
    assert app.log_lines[-1] == "online: wrong code: a code is six digits, 2 entered"
    tap(app, S_STORE)  # the last digit back
    assert o.digits == 1 and app.draw()[0][:2] == [3, 0]
    tap(app, S_STORE)
    tap(app, S_STORE)  # none left: "no"
    assert app.calls[-1] == ("no", 1 << S_STORE)
    tap(app, 9)  # the North row is no keypad
    assert app.calls[-1] == ("no", 1 << 9)
    for d in "451234":
        tap(app, int(d) - 1)
    assert o.session.joined == ["451234"] and o.stage == O.JOIN
    o.session.say("failed", "no game with the code 451234")
    tick(app)
    assert o.stage == O.FAILED and app.log_lines[-1] == "online: no game with the code 451234"
    counts, bgs = app.draw(phase=1)
    assert bgs[:6] == ["red"] * 6 and counts[:6] == [None] * 6  # the row blinks red
    assert app.draw(phase=0)[1][:6] == [None] * 6
    tick(app, O.FAIL_MS)
    assert o.stage == O.LOBBY and o.digits == 0


def test_a_game_is_offered_with_the_menus_variant_and_who_starts():
    app, o = online_app(variant="oware", starter=1)
    tap(app, N_STORE)
    assert o.session.created == [("oware", "b")] and o.stage == O.OFFER
    app, o = online_app(variant="kalah3", starter=2)  # by lot (the App's generator: 7)
    tap(app, N_STORE)
    assert o.session.created == [("kalah3", "b")]


def test_the_other_sides_move_is_shown_and_waited_for_until_carried_out():
    app, o = online_app(seat=1)  # b: North, a moves first
    o.begin_game(app, 0)
    assert o.stage == O.WAIT
    counts, bgs = app.draw(el=0)
    assert bgs[0] == "south" and bgs[S_STORE] == "south"  # their light runs; they are here
    tap(app, 9)
    assert app.calls[-1] == ("no", 1 << 9)  # their turn
    app.game.play(0)  # their move arrives: S1, four stones to S2..S5
    o.session.say("move", "1")
    tick(app)
    assert o.stage == O.SHOW and app.log_lines[-1] == "online: the other side played pit 1 (move 1)"
    assert list(app.shown[:6]) == [4] * 6  # the stones are still where they were
    counts, bgs = app.draw(phase=1)
    assert counts[0] is None and bgs[0] == "south"  # its pit blinks in their colour
    for _ in range(50):  # ... until the person takes the stones
        tick(app, 100)
    assert o.stage == O.SHOW
    tap(app, 1)
    assert app.calls[-1] == ("no", 1 << 1)
    tap(app, 0)
    assert o.stage == O.SOW and app.shown[0] == 0
    for pit in (1, 2, 3, 4):
        assert app.draw()[1][pit] == "white"  # the next stone's pit
        tap(app, pit)
    assert o.carried == 1 and o.stage == O.SELECT  # carried out: this side's turn
    assert list(app.shown) == list(app.game.pos[:14])
    assert app.draw()[1][7:13] == ["north"] * 6
    tick(app)  # the next quiet turn: how far the stones followed, on the flash
    assert app.store.saved[O.SHOWN_FILE] == {"g": o.session.game_id, "ply": 1}


def test_this_sides_move_is_sent_in_the_quiet_turn_after_its_last_stone():
    app, o = online_app(seat=0)
    o.begin_game(app, 0)
    tap(app, 0)
    for pit in (1, 2, 3, 4):
        tap(app, pit)
    assert o.stage == O.SEND and o.session.played == []
    app.pits.down = 1 << 3  # a pit is down: the session neither reads nor saves
    tick(app)
    assert o.session.played == [] and o.session.polls[-1] is True
    app.pits.down = 0
    app.partial = 1  # a frame is due (a press's light): the same
    O.MODE.tick(app, app.clock.now(), 0)
    assert o.session.played == [] and o.session.polls[-1] is True
    app.partial = 0
    tick(app)
    assert o.session.played == [0] and o.session.polls[-1] is True  # (one flash write a turn)
    assert o.stage == O.WAIT and o.carried == 1
    tick(app)
    assert o.session.polls[-1] is False


def test_the_other_sides_presence_is_always_in_their_store():
    app, o = online_app(seat=0)
    o.begin_game(app, 0)
    s = o.session
    assert app.draw(phase=0)[1][N_STORE] == "north" == app.draw(phase=1)[1][N_STORE]
    s.peer_present = False  # away: amber blinks
    assert app.draw(phase=1)[1][N_STORE] == "amber" and app.draw(phase=0)[1][N_STORE] is None
    s.client.connected = False  # this board not online: red blinks
    assert app.draw(phase=1)[1][N_STORE] == "red" and app.draw(phase=0)[1][N_STORE] is None
    s.client = FakeClient()
    s.peer_present = True
    app.game.play(0)  # (their turn now: the store still says it)
    o.carried = 1
    tick(app)
    assert o.stage == O.WAIT and app.draw()[1][N_STORE] == "north"


def test_refused_and_ignored_messages_are_flashed_and_said():
    app, o = online_app(seat=0)
    o.begin_game(app, 0)
    o.session.say("refused", "refused the other side's move: illegal move 3: pit N3 is empty")
    tick(app)
    assert app.calls[-1] == ("no", 0x3F << 7 | 1 << N_STORE)  # their row and store
    assert app.log_lines[-1] == "online: refused the other side's move: illegal move 3: pit N3 is empty"
    o.session.say("ignored", "ignored a forged message: the signature does not match this game's key")
    tick(app)
    assert app.calls[-1] == ("no", 1 << N_STORE)
    assert "ignored a forged message" in app.log_lines[-1]
    o.session.say("repeat", "ignored a repeated move (ply 1)")  # quietly
    n = len(app.log_lines)
    tick(app)
    assert len(app.log_lines) == n and app.calls[-1] == ("no", 1 << N_STORE)


def test_takeback_hints_and_agreement_are_off_online_and_said():
    app, o = online_app(seat=0)
    o.begin_game(app, 0)
    O.MODE.on_event(app, P.CHORD, 1 << 0 | 1 << 5)
    assert app.calls[-1] == ("no", 0x21) and "no takeback" in app.log_lines[-1]
    O.MODE.on_event(app, P.CHORD, 1 << 9 | 1 << 10)
    assert app.calls[-1] == ("no", 0x600) and "no hints" in app.log_lines[-1]
    O.MODE.on_event(app, P.CHORD, 1 << S_STORE | 1 << N_STORE)
    assert "no end by agreement" in app.log_lines[-1]
    assert o.stage == O.SELECT and app.game.ply == 0


def test_leaving_a_game_takes_a_second_hold_the_end_a_tap():
    app, o = online_app(seat=0)
    o.begin_game(app, 0)
    stores = 1 << S_STORE | 1 << N_STORE
    O.MODE.on_event(app, P.LONG, stores)
    assert not o.session.left and "hold both stores again" in app.log_lines[-1]
    assert app.draw(phase=1)[1][S_STORE] == "red"
    tick(app, O.LEAVE_MS)
    O.MODE.on_event(app, P.LONG, stores)  # too late: asked again
    assert not o.session.left
    s = o.session
    O.MODE.on_event(app, P.LONG, stores)
    assert s.left and app.modes_asked()[-1] == M.MENU and app.booted == 1
    assert s.client.finished == 1  # the leave's clears taken before the socket went
    app, o = online_app(seat=0, stage=O.OVER_)
    s = o.session
    tap(app, 3)
    assert s.left and app.modes_asked()[-1] == M.MENU and o.session is None


def test_a_power_cut_resumes_with_the_moves_not_yet_carried_out():
    app, o = online_app(seat=1)
    store = app.store = Storage(MemFs())
    g = app.game
    for pit in (0, 0, 1):  # a: S1; b: N1; a: S2 (b's board had carried out only a's first)
        g.play(pit)
    store.save(O.SHOWN_FILE, {"g": o.session.game_id, "ply": 1})
    assert o.read_shown(app) == 2  # (b's own move: sown before it was sent)
    store.save(O.SHOWN_FILE, {"g": "another game", "ply": 0})
    assert o.read_shown(app) == 3
    o.begin_game(app, 2)
    assert o.stage == O.SHOW and (o.sow_side, o.sow_pit) == (0, 1)
    assert list(app.shown) == list(g.position_at(2)[:14])


def test_the_settings_as_mancala_wifi_writes_them_are_read():
    from host_tools.command.wifi import settings_json

    store = Storage(MemFs())
    assert O.read_settings(store) is None
    with store.fs.open_write("/data/online.json") as f:
        f.write(settings_json("home", "wifi-pass-123", "10.0.0.2:1884", "alice", "pw", True))
    s = O.read_settings(store)
    assert (s["ssid"], s["wifi_password"], s["broker"], s["port"], s["user"], s["password"],
            s["tls"]) == ("home", "wifi-pass-123", "10.0.0.2", 1884, "alice", "pw", True)
    store.save("online.json", {"ssid": "x", "wifi_password": "y", "broker": "b.example"})
    assert O.read_settings(store)["port"] == 1883  # the port's default
    with store.fs.open_write("/data/online.json") as f:  # damaged: plain JSON, no checksum
        f.write(b'{"ssid": "home", "broker": "10.0.0.2"}')
    assert O.read_settings(store) is None


def board(profile, online_json=False, game=False):
    from host_tools.fakes import machine, neopixel
    from host_tools.fakes.board import SimBoard

    fs = MemFs()
    if online_json:
        from host_tools.command.wifi import settings_json

        with fs.open_write("/data/online.json") as f:
            f.write(settings_json("home", "wifi-pass-123", "127.0.0.1:1"))
    return SimBoard(profile, machine, neopixel, fs=fs)


def test_online_is_a_menu_choice_only_on_a_board_with_wifi_and_its_settings():
    try:
        b = board("pico_w", online_json=True)
        assert b.app.choices("play") == 4 and M.ACTIVITIES[-1][0] == O.ONLINE
    finally:  # (the PC keeps the lists from board to board: the next boards' menus)
        M.ACTIVITIES[:] = [a for a in M.ACTIVITIES if a[0] != O.ONLINE]
    b = board("pico_w")
    assert b.app.choices("play") == 3
    assert any("set them with `mancala wifi`" in line for line in b.lines)
    b = board("pico_buttons")
    assert b.app.choices("play") == 3 and not any("online" in line for line in b.lines)
    assert "mancala.modes.online" in sys.modules  # (this test's import: the board's own
    # start never imports it; tests/test_online_board.py enters it through the menu)


def test_the_pico_w_status_led_is_its_named_pin_and_its_chip_picks_its_profile(monkeypatch):
    from host_tools.fakes import machine, neopixel
    from host_tools.fakes.board import SimBoard

    class NamedPin(machine.Pin):  # the rp2 port's Pin("LED") (the fake takes numbers only)
        def __init__(self, id, mode=-1, pull=-1, value=None):
            if id != "LED":
                machine.Pin.__init__(self, id, mode, pull, value)
                return
            self.id, self.mode, self.pull = id, mode, pull

    class Machine:
        Pin = NamedPin

        def __getattr__(self, name):
            return getattr(machine, name)

    b = SimBoard("pico_w", Machine(), neopixel, fs=MemFs())
    assert b.app.status is not None and b.app.status.id == "LED"
    b.app.set_status(type("M", (), {"status_blink": True}), 1)
    assert machine.level("LED") == 1  # it is driven
    from mancala.modes import start

    class Impl:
        _machine = "Raspberry Pi Pico W with RP2040"

    monkeypatch.setattr(sys, "implementation", Impl)
    monkeypatch.setattr(sys, "platform", "rp2")
    assert start.default_profile() == "pico_w"
    Impl._machine = "Raspberry Pi Pico with RP2040"
    assert start.default_profile() == "pico_buttons"


def test_a_firmware_sent_without_the_online_package_says_so_and_lists_no_online(monkeypatch):
    """deploy sends mancala/online/ only to a chip with a radio (deploy_plan.for_chip):
    a Wi-Fi profile on such a flash (a pico_w profile on a plain Pico) plays on."""
    import sys

    from mancala import modes as M
    from mancala.modes import activities

    said = []

    class App:
        log = staticmethod(said.append)
        next_mode = None

        class store:  # noqa: N801 - a stand-in with a settings file and a saved game
            class fs:  # noqa: N801
                read = staticmethod(lambda path: b"{}")
            path = staticmethod(lambda name: "/data/" + name)

    monkeypatch.setitem(sys.modules, "mancala.online", None)  # as if never sent
    before = list(M.ACTIVITIES)
    activities.online_menu(App)
    activities.online_resume(App)
    assert said == ["online: this firmware has no online package (deploy sends it only to a "
                    "board with Wi-Fi: a Pico W or an ESP32)"]
    assert M.ACTIVITIES == before and App.next_mode is None
