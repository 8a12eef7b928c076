"""The page as a player (issue 44, docs/ONLINE.md "The page as a player"): the page, built
as static files by `make web-dist` and served by a plain static server
(`python -m http.server`), runs in real headless Chromium; it creates a game on a real
Mosquitto through its WebSocket listener, a board (the unix-port MicroPython process of
tests/test_online_games.py, on the broker's TCP listener) joins with the code the page
shows, and they play a whole kalah game to the end: the same record on both, the page's
clicks guided by the pits it drew as playable.  A third client publishes a forged move
and a move signed with the game's key but out of turn: the page ignores the one,
refuses the other (and a signed record that parts from the game's), says each and
flashes the stores red.  The page also joins a game a
board created (make test-long)."""

import json
import os
import re
import subprocess
import sys
import time

import pytest
from online_helpers import board_lib  # noqa: F401
from web_helpers import browser_or_skip, drawn, skip_module_without_browser, wait_for

from host_tools.online import broker as broker_mod
from host_tools.online.boards import BoardProcess
from host_tools.online.broker import free_port, wait_listening
from host_tools.runners import mpvm
from host_tools.simulators import web_serve
from mancala.game import Game
from mancala.hw.clock import Clock
from mancala.hw.storage import OK, OsFs, Storage
from mancala.online import protocol as p
from mancala.online.mqtt import Client
from mancala.rules import get_rules

skip_module_without_browser()

FAST = {"sleep_ms": 1, "linger_ms": 150}


def first_legal_record(variant="kalah"):
    """Both sides play their first legal pit (the page's clicks, the board's seed -1)."""
    g = Game(get_rules(variant))
    while not g.over:
        m = g.legal_mask()
        g.play([k for k in range(6) if m >> k & 1][0])
    return p.record_of(variant, g.moves())


def _need(ok, why):
    if ok:
        return
    if os.environ.get("CI"):
        pytest.fail("CI must run the page's online tests: " + why)
    pytest.skip(why)


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """The page as `make web-dist` builds it (its command, `web_serve --dist`), in a folder
    of its own."""
    _need(mpvm.available(), "MicroPython VM not installed: run `make setup` (npm ci)")
    out = str(tmp_path_factory.mktemp("web-dist"))
    assert web_serve.main(["--dist", "--out", out]) == 0  # (in this process: no interpreter to start)
    return out


@pytest.fixture(scope="module")
def static_site(dist):
    """The dist folder served by Python's plain static server on 127.0.0.1."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                             "--directory", dist], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert wait_listening(port, 10), "python -m http.server did not start"
        yield "http://127.0.0.1:%d/" % port
    finally:
        proc.terminate()
        proc.wait(timeout=5)


@pytest.fixture(scope="module")
def broker():
    _need(broker_mod.available(), "mosquitto not installed: make online-deps (apt-get install mosquitto)")
    b = broker_mod.Broker().start()
    try:
        yield b
    finally:
        b.close()


@pytest.fixture(scope="module")
def browser():
    br = browser_or_skip()
    try:
        yield br
    finally:
        br.quit()


def open_page(browser, url, broker):
    browser.get(url + "?fresh&broker=ws://127.0.0.1:%d" % broker.ws_port)
    wait_for(lambda: browser.js("return !!(window.mancala && window.mancala.stats.loadMs && window.mancala.online)"),
             what="the page's first frame and its online panel")
    return browser.js("return window.mancala.layout")


def status(browser):
    return json.loads(browser.js("return window.mancala.online.py.status()"))


def wait_status(browser, pred, what, timeout=20):
    return wait_for(lambda: (lambda s: s if pred(s) else None)(status(browser)), timeout=timeout,
                    every=0.01, what=what)


def click(browser, selector):
    browser.find_element("css selector", selector).click()


def panel_says(browser, *words):
    text = browser.find_element("id", "onlineLog").text
    return all(w in text for w in words)


def said(st, kind):
    return [t for k, t in st["log"] if k == kind]


class Third:
    """A third client on the broker's TCP listener (the firmware's client in CPython)."""

    def __init__(self, port):
        self.c = Client("a-third-client", "127.0.0.1", port, clock=Clock(), keepalive_s=10)
        self.c.start()

    def publish(self, topic, text):
        end = time.monotonic() + 5
        pid = 0
        while time.monotonic() < end:
            self.c.poll()
            if self.c.connected and not pid:
                pid = self.c.publish(topic, text, False)
            if pid and self.c.delivered(pid):
                return
            time.sleep(0.002)
        raise AssertionError("the third client could not publish on %s" % topic)

    def close(self):
        self.c.stop()


def board_saved_game(folder):
    status_, obj = Storage(OsFs(folder), "/data").load("online_game.json")
    assert status_ == OK
    return obj


def play_page_turn(browser, layout, seat):
    """Click the first pit the page drew as playable (on this side's colour); the move
    must be taken (the page's ply goes on)."""
    st = status(browser)
    g = Game(get_rules(st["variant"]))
    for pit in p.record_moves(st["record"])[1] if st["record"] else ():
        g.play(pit)
    legal = [k for k in range(6) if g.legal_mask() >> k & 1]
    colour = ("south", "north")[seat]
    first = 7 * seat

    def drawn_ok():
        """The page drew this position: the playable pits on this side's colour, the
        counts of the game (a pit blinking the other side's move reads as no count)."""
        mode, counts, bgs = drawn(browser, layout)
        rings = [k for k in range(6) if bgs[first + k] == colour]
        wrong = [i for i, c in enumerate(counts) if c is not None and c != g.pos[i]]
        return mode == "online" and rings == legal and not wrong

    wait_for(drawn_ok, timeout=5, every=0.01, what="the page to draw the position after ply %d" % g.ply)
    click(browser, '#hits [data-pit="%d"]' % (first + legal[0]))
    wait_status(browser, lambda s: s["ply"] > st["ply"], "the page's move to be taken")


# -- the page creates, a board joins -------------------------------------------------------


def test_the_page_creates_a_game_a_board_joins_and_they_play_it_to_the_end(
        browser, static_site, broker, board_lib, tmp_path):  # noqa: F811
    t0 = time.monotonic()
    layout = open_page(browser, static_site, broker)
    url = browser.find_element("id", "brokerUrl").get_attribute("value")
    browser.find_element("id", "brokerUrl").clear()
    browser.find_element("id", "brokerUrl").send_keys("127.0.0.1:%d" % broker.port)  # not a WebSocket's
    click(browser, "#onlineCreate")
    assert "ws://host:port" in browser.find_element("id", "onlineWhy").text
    assert not status(browser)["active"]
    browser.find_element("id", "brokerUrl").clear()
    browser.find_element("id", "brokerUrl").send_keys(url)
    click(browser, "#onlineCreate")  # kalah, this page moves first: the defaults
    st = wait_status(browser, lambda s: s["code"], "the code")
    code = st["code"]
    assert p.code_ok(code) and st["side"] == "a" and st["phase"] == "offering"
    # the code as text, and in light as the board shows it: one digit per South pit
    wait_for(lambda: browser.find_element("id", "onlineCode").text.replace(" ", "") == code,
             what="the code shown as text")
    mode, counts, _bgs = drawn(browser, layout)
    assert mode == "online" and counts[:6] == [int(d) for d in code], (counts, code)

    folder = str(tmp_path / "b")
    board = BoardProcess(board_lib, folder, "b", broker.port, code=code, seed=-1, **FAST)
    third = Third(broker.port)
    try:
        st = wait_status(browser, lambda s: s["phase"] == "playing" and s["my_turn"], "the board to join")
        assert st["seat"] == "South" and st["turn"].startswith("your turn")
        st = wait_status(browser, lambda s: s["peer"] is True, "the board said to be here")
        assert st["peer_words"] == "here"
        forged = False
        while True:
            st = wait_status(browser, lambda s: s["over"] or s["my_turn"], "the page's turn or the end")
            if st["over"]:
                break
            if st["ply"] >= 2 and not forged:
                forged = True
                before = st
                saved = board_saved_game(folder)
                g, key = saved["g"], p.key_bytes(saved["k"])
                topic = p.game_topic(g, "m", "b")
                # not signed with the game's key: ignored and said
                third.publish(topic, p.move_text(os.urandom(16), g, "b", st["ply"] + 1, 1, "0" * 8))
                st = wait_status(browser, lambda s: s["ignored"] == 1, "the forged move ignored")
                assert any("forged" in t for t in said(st, "ignored")), st["log"]
                # signed with the key (someone who holds it), but the page's turn: refused
                third.publish(topic, p.move_text(key, g, "b", st["ply"] + 1, 1, "0" * 8))
                st = wait_status(browser, lambda s: s["refused"] == 1, "the out-of-turn move refused")
                assert any("not the other side's turn" in t for t in said(st, "refused")), st["log"]
                # a whole record signed with the key that parts from the game's: refused
                variant, moves = p.record_moves(st["record"])
                other = p.record_of(variant, [m ^ 1 for m in moves])  # (S2 for S1: legal, another game)
                third.publish(p.game_topic(g, "s", "b"), p.state_text(key, g, "b", len(moves), other,
                                                                     p.record_sum(other)))
                st = wait_status(browser, lambda s: s["refused"] == 2, "the record that parts refused")
                assert any("records part at ply 1" in t for t in said(st, "refused")), st["log"]
                assert st["record"] == before["record"]  # nothing changed
                # the game waits until the records agree: the board, seeing a state not its
                # own under its name, sends its own again, and the page plays on
                st = wait_status(browser, lambda s: s["my_turn"], "the page's turn again")
                # ... said in light too: both stores flash red
                wait_for(lambda: (lambda d: d[2][6] == d[2][13] == "red")(drawn(browser, layout)),
                         timeout=5, every=0.01, what="the stores flashing red")
                wait_for(lambda: panel_says(browser, "forged", "not the other side's turn", "records part"),
                         timeout=5, what="the panel's lines")
            play_page_turn(browser, layout, 0)
        done = board.wait_for("done", timeout=20)
    finally:
        third.close()
        if board.proc.poll() is None:
            board.kill()
    want = first_legal_record()
    assert st["record"] == done["done"] == want
    assert forged and done["ignored"] == 0 and done["refused"] == 0
    assert st["result"] and "game over" in browser.find_element("id", "onlineTurn").text
    # the page archived the game as a board does, in its /data (kept in the browser)
    files = json.loads(browser.js("return window.mancala.wb.files_json()"))
    games = [v for k, v in files.items() if k.startswith("/data/games/")]
    assert len(games) == 1 and games[0].splitlines()[-1] == want
    # leaving gives the LEDs back to the board's own loop
    click(browser, "#onlineLeave")
    wait_for(lambda: browser.find_element("id", "mode").get_attribute("data-mode") != "online",
             what="the board's own mode back")
    print("page vs board: %d plies, %.1f s with the page's load" % (len(want.split()) - 1, time.monotonic() - t0))


def test_the_broker_address_is_read_and_a_wrong_one_said():
    from host_tools.simulators.web.webonline import parse_url

    assert parse_url("ws://127.0.0.1:9001") == ("ws://127.0.0.1", 9001, "ws://127.0.0.1:9001/")
    assert parse_url(" wss://broker.example:8884/mqtt ") == (
        "wss://broker.example", 8884, "wss://broker.example:8884/mqtt")
    assert parse_url("wss://host") == ("wss://host", 443, "wss://host:443/")
    assert parse_url("ws://[::1]:9001/") == ("ws://[::1]", 9001, "ws://[::1]:9001/")
    for bad, why in (("127.0.0.1:1883", "ws://host:port"), ("mqtt://h:1883", "ws://host:port"),
                     ("ws://", "no host"), ("ws://h:99999", "1..65535"), ("ws://h:x", "1..65535")):
        with pytest.raises(ValueError, match=re.escape(why)):
            parse_url(bad)


def test_make_web_dist_writes_the_static_site(dist):
    """`make web-dist` runs the command the fixture ran; its folder holds the whole page
    (nothing else is needed: the game above played from it on a plain static server)."""
    out = subprocess.run(["make", "-n", "web-dist"], cwd=web_serve.ROOT, capture_output=True, text=True,
                         timeout=60).stdout
    assert "host_tools.simulators.web_serve --dist" in out
    for name in ("index.html", "board.js", "online.js", "board.css", "vm/micropython.mjs", "vm/micropython.wasm",
                 "py/bundle.json"):
        assert os.path.getsize(os.path.join(dist, name)) > 0, name
    bundle = json.load(open(os.path.join(dist, "py", "bundle.json")))
    for n in ("webonline.py", "wssocket.py"):
        assert "/lib/" + n in bundle
    for rel in ("online/session.py", "online/mqtt.py", "online/protocol.py"):  # the firmware's, unchanged
        with open(os.path.join(web_serve.ROOT, "firmware", "mancala", rel)) as f:
            assert bundle["/lib/mancala/" + rel] == f.read()
    for name in ("index.html", "board.js", "online.js"):
        text = open(os.path.join(dist, name)).read()
        assert "@BUNDLE_VERSION@" not in text
        for bad in ("https://", "http://cdn", "//cdn", "//unpkg"):
            assert bad not in text, (name, bad)


# -- a board creates, the page joins (make test-long) ----------------------------------------


@pytest.mark.long
def test_a_board_creates_the_page_joins_by_code_survives_a_reload_and_sees_the_board_go(
        browser, static_site, broker, board_lib, tmp_path):  # noqa: F811
    """The page as side b, North: the code typed in; the board's Wi-Fi dropped and back
    (the page says the other side is away, then here, and draws it); the page reloaded
    mid-game (a power cut: its /data kept in the browser) takes the game up; the same
    record at the end on both."""
    board = BoardProcess(board_lib, str(tmp_path / "a"), "a", broker.port, seed=-1, **FAST)
    try:
        code = board.wait_for("ev", lambda m: m["ev"] == "code", timeout=15)["text"]
        layout = open_page(browser, static_site, broker)
        browser.find_element("id", "onlineCodeIn").send_keys(code)
        click(browser, "#onlineJoin")
        st = wait_status(browser, lambda s: s["phase"] == "playing", "the page to join")
        assert st["side"] == "b" and st["seat"] == "North" and st["code"] == code
        dropped = reloaded = False
        while True:
            st = wait_status(browser, lambda s: s["over"] or s["my_turn"], "the page's turn or the end")
            if st["over"]:
                break
            if st["ply"] >= 2 and not dropped:
                dropped = True
                board.send("down")
                st = wait_status(browser, lambda s: s["peer"] is False, "the board said to be away")
                assert st["peer_words"].startswith("away")
                wait_for(lambda: "away" in browser.find_element("id", "onlinePeer").text, what="away shown")
                board.send("up")
                wait_status(browser, lambda s: s["peer"] is True, "the board said to be back")
            elif st["ply"] >= 5 and not reloaded:
                reloaded = True
                before = st["record"]
                browser.refresh()
                wait_for(lambda: browser.js("return !!(window.mancala && window.mancala.online)"),
                         what="the page again")
                wait_for(lambda: browser.find_element("id", "onlineResumeBox").is_displayed(),
                         what="the saved online game offered")
                click(browser, "#onlineResume")
                st = wait_status(browser, lambda s: s["phase"] == "playing" and s["my_turn"], "the game taken up")
                assert st["record"] == before
            play_page_turn(browser, layout, 1)
        done = board.wait_for("done", timeout=20)
    finally:
        if board.proc.poll() is None:
            board.kill()
    assert dropped and reloaded
    assert st["record"] == done["done"] == first_legal_record()
