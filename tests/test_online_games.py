"""Two boards (unix-port MicroPython processes running the firmware's online session on
its own MQTT client) play whole kalah games through a real Mosquitto broker, with the
faults of issue 44 thrown in: the connection cut at a message, the broker restarted,
either board's power cut at a ply, the Wi-Fi dropped, a proxy that delays, duplicates
and reorders, a third client publishing forged, replayed and malformed moves.

Each side's chooser is a function of the position and a seed (host_tools/online/
mpboard.py `choose`), so whatever happens on the way, the game must end with exactly
the record the two choosers make undisturbed (`reference_record`), on both boards, in
both archives.  `make test` runs one game and one fault of each kind; the sweeps over
every message, every ply and both sides are marked `long` (make test-long)."""

import os
import random
import threading
import time

import pytest

from host_tools.online.boards import Match
from host_tools.online.fault_proxy import FaultProxy
from mancala.game import Game
from mancala.hw.clock import Clock
from mancala.notation import parse_record
from mancala.online import protocol as p
from mancala.online.mqtt import Client
from mancala.rules import get_rules

SEEDS = (1, 2)
FAST = {"sleep_ms": 1, "linger_ms": 150}


def choose(game, seed):  # the same as mpboard.choose
    legal = [k for k in range(6) if game.legal_mask() >> k & 1]
    if seed < 0:
        return legal[0]
    return legal[(seed * 7 + game.ply * 13 + game.pos[0] * 3) % len(legal)]


def reference_record(seeds=SEEDS, variant="kalah", resumed=(None, None)):
    """The record the two choosers make; resumed: the ply each side's board first
    resumed at after a power cut (a, b), from which it chooses with seed + 100
    (mpboard.py): a board that lost a move it had sent would choose it again otherwise
    the same, and no test would see the loss."""
    g = Game(get_rules(variant))
    while not g.over:
        seat = g.side  # a creates and moves first: a is South (0)
        seed = seeds[seat]
        if resumed[seat] is not None and g.ply >= resumed[seat]:
            seed += 100
        g.play(choose(g, seed))
    return p.record_of(variant, g.moves())


REFERENCE = reference_record()
PLIES = len(REFERENCE.split()) - 1


def check_same_game(match, want=None):
    """Both boards ended with the reference record (its seeds switched where a board
    resumed after a power cut), each archived once, the same."""
    if want is None:
        want = reference_record(resumed=(match.resumed_at("a"), match.resumed_at("b")))
    for side in ("a", "b"):
        done = match.done[side]
        assert done["done"] == want, side
        folder = os.path.join(match.folder, side, "data", "games")
        files = sorted(os.listdir(folder))
        assert files == ["g%05d.txt" % done["archived"]], side
        with open(os.path.join(folder, files[0])) as f:
            sum_line, record = f.read().splitlines()
        assert record == want
        assert parse_record(record).over
    return match.done


def play(board_lib, tmp_path, port, hook=None, port_b=None, timeout=60, **cfg):
    cfg = dict(FAST, **cfg)
    m = Match(board_lib, str(tmp_path), port, port_b=port_b, seeds=SEEDS, **cfg)
    try:
        m.start()
        m.run(hook, timeout=timeout)
    finally:
        m.close()
    return m


def at_ply(side, ply, action):
    """A hook doing `action(match)` once, when board `side` first reports ply `ply`
    (its own move played, or the other's arrived)."""
    fired = []

    def hook(match, s, msg):
        if fired or s != side:
            return
        if msg.get("played") == ply or (msg.get("ev") in ("move", "caught up") and msg.get("ply") == ply):
            fired.append(ply)
            action(match)
    hook.fired = fired
    return hook


# -- a whole game ------------------------------------------------------------------


def test_two_boards_play_a_whole_kalah_game_through_mosquitto(board_lib, mqtt_broker, tmp_path):
    t0 = time.monotonic()
    m = play(board_lib, tmp_path, mqtt_broker.port)
    done = check_same_game(m)
    for side in ("a", "b"):
        assert done[side]["ignored"] == 0 and done[side]["refused"] == 0
        assert done[side]["drops"] == 0
    lines_a = m.lines("a")
    assert any(x.get("ev") == "peer" and x["text"] == "here" for x in lines_a)  # a saw b arrive
    assert any(x.get("ev") == "paired" for x in lines_a)
    from host_tools.command.cli import main as cli

    path = os.path.join(str(tmp_path), "a", "data", "games", "g%05d.txt" % done["a"]["archived"])
    assert cli(["analyse", path, "--nodes", "300", "--no-tables"]) == 0  # mancala analyse reads it
    heap = [x for x in lines_a if "heap_online" in x][0]
    print("whole game: %d plies in %.1f s; a's online heap %d B" % (PLIES, time.monotonic() - t0,
                                                                    heap["heap_online"]))
    assert retained_left(mqtt_broker.port) == []  # both left: nothing of the game stays


def retained_left(port, wait_s=0.5):
    """The retained messages (topic, payload) the broker holds under mancala/v1/: read
    by a client of its own for wait_s (a retained message comes at the subscription)."""
    clock = Clock()
    c = Client("m" + p.new_nonce(), "127.0.0.1", port, clock=clock, keepalive_s=10)
    held = []
    c.on_message = lambda topic, payload, retained: held.append((topic, bytes(payload)))
    c.start()
    subscribed_at = None
    end = time.monotonic() + 10
    while time.monotonic() < end:
        c.poll()
        if c.connected and subscribed_at is None and c.subscribe("mancala/v1/#"):
            subscribed_at = time.monotonic()
        if subscribed_at is not None and time.monotonic() - subscribed_at > wait_s:
            break
        time.sleep(0.005)
    c.stop()
    assert subscribed_at is not None, c.last_error
    return held


# -- the connection cut at a message --------------------------------------------------


def _game_cut_at(board_lib, tmp_path, broker, n, must_cut=True):
    """A game whose connection is cut at its nth message.  must_cut=False (the last
    messages of a sweep): a game's count varies with timing (retained copies, resends,
    475-545 for one of ~510), so a game with fewer than n has no cut to make."""
    with FaultProxy(broker.port) as proxy:
        proxy.cut_after(n)
        m = play(board_lib, tmp_path, proxy.port)
        cuts, publishes = proxy.cuts, proxy.publishes
    check_same_game(m)
    assert cuts == 1 or (not must_cut and publishes < n), "no cut at message %d (%d in the game)" % (n, publishes)
    return m


def test_connection_cut_at_one_message(board_lib, mqtt_broker, tmp_path):
    _game_cut_at(board_lib, tmp_path, mqtt_broker, 57)


def _publishes_of_a_game(board_lib, tmp_path, broker):
    with FaultProxy(broker.port) as proxy:
        play(board_lib, tmp_path, proxy.port)
        return proxy.publishes


CUT_CHUNKS = 12


@pytest.mark.long
@pytest.mark.parametrize("chunk", range(CUT_CHUNKS))
def test_connection_cut_at_every_message_of_a_game(board_lib, mqtt_broker, tmp_path, chunk):
    total = _publishes_of_a_game(board_lib, tmp_path / "clean", mqtt_broker)
    assert total > 4 * PLIES // 2
    cut = 0
    for n in range(1 + chunk, total + 1, CUT_CHUNKS):
        _game_cut_at(board_lib, tmp_path / ("cut%d" % n), mqtt_broker, n, must_cut=n <= total * 0.85)
        cut += 1
    assert cut >= total // CUT_CHUNKS


# -- the broker restarted -----------------------------------------------------------------


def _restart(broker):
    def action(match):
        broker.restart()
    return action


def test_broker_restarted_mid_game(board_lib, mqtt_broker, tmp_path):
    hook = at_ply("a", PLIES // 2, _restart(mqtt_broker))
    m = play(board_lib, tmp_path, mqtt_broker.port, hook=hook)
    assert hook.fired
    done = check_same_game(m)
    assert done["a"]["connects"] >= 2 and done["b"]["connects"] >= 2


@pytest.mark.long
@pytest.mark.parametrize("persist", [False, True])
def test_broker_restarted_at_every_ply(board_lib, tmp_path, persist):
    from host_tools.online.broker import Broker

    with Broker(persist=persist) as broker:
        seen = set()

        def hook(match, side, msg):
            ply = msg.get("played") or (msg.get("ply") if msg.get("ev") in ("move", "caught up") else None)
            if side == "a" and ply and ply not in seen:
                seen.add(ply)
                broker.restart()
        m = play(board_lib, tmp_path, broker.port, hook=hook, timeout=240)
        check_same_game(m)
        assert len(seen) >= PLIES - 2  # (a ply a learnt only with the next is one restart)


# -- a power cut on either board ------------------------------------------------------------


def _cut_power(side, delay_ms=0):
    def action(match):
        if delay_ms:
            time.sleep(delay_ms / 1000)
        match.power_cut(side)
    return action


@pytest.mark.parametrize("side", ["a", "b"])
def test_power_cut_on_one_board_mid_game(board_lib, mqtt_broker, tmp_path, side):
    hook = at_ply(side, 9 if side == "a" else 14, _cut_power(side))
    m = play(board_lib, tmp_path, mqtt_broker.port, hook=hook)
    assert hook.fired and m.starts[side] == 2
    check_same_game(m)
    # the resumed board chose with another seed: a move it lost would show
    assert reference_record(resumed=(m.resumed_at("a"), m.resumed_at("b"))) != REFERENCE
    resumed = [x for x in m.lines(side) if "resumed" in x]
    assert resumed and resumed[0]["phase"] in ("playing", "over")


@pytest.mark.long
@pytest.mark.parametrize("side", ["a", "b"])
@pytest.mark.parametrize("part", range(4))
def test_power_cut_at_every_ply(board_lib, mqtt_broker, tmp_path, side, part):
    rng = random.Random(part * 2 + (side == "b"))
    for ply in range(1 + part, PLIES + 1, 4):
        hook = at_ply(side, ply, _cut_power(side, rng.randrange(0, 12)))
        m = play(board_lib, tmp_path / ("ply%d" % ply), mqtt_broker.port, hook=hook)
        assert hook.fired, ply
        check_same_game(m)


@pytest.mark.long
def test_power_cut_while_pairing(board_lib, mqtt_broker, tmp_path):
    """b's power cut as it joins, a's before anyone joined: the pairing goes on."""
    def hook(match, side, msg):
        if side == "b" and match.starts["b"] == 1 and msg.get("ev") == "paired":
            match.power_cut("b")
    m = Match(board_lib, str(tmp_path), mqtt_broker.port, seeds=SEEDS, **FAST)
    try:
        m._start("a")
        m.code = m.boards["a"].wait_for("ev", lambda x: x["ev"] == "code")["text"]
        m.power_cut("a")  # a, offering, cut: it offers the same code again
        assert m.boards["a"].wait_for("resumed")["phase"] == "offering"
        m._start("b")
        m.run(hook, timeout=60)
    finally:
        m.close()
    assert m.starts == {"a": 2, "b": 2}
    check_same_game(m)


# -- the Wi-Fi dropped -----------------------------------------------------------------------


def test_wifi_dropped_and_back(board_lib, mqtt_broker, tmp_path):
    """b's link goes down for 0.25 s mid-game: a sees b go and come back; nothing lost."""
    def action(match):
        match.send("b", "down")
        threading.Timer(0.25, match.send, ("b", "up")).start()
    hook = at_ply("b", 12, action)
    m = play(board_lib, tmp_path, mqtt_broker.port, hook=hook)
    check_same_game(m)
    peer = [x["text"] for x in m.lines("a") if x.get("ev") == "peer"]
    assert peer[0] == "here" and "here" in peer[peer.index("away"):]  # b went, b came back
    assert m.done["b"]["drops"] == 1


@pytest.mark.long
def test_wifi_dropped_at_every_third_ply(board_lib, mqtt_broker, tmp_path):
    seen = set()

    def hook(match, side, msg):
        ply = msg.get("played")
        if side == "b" and ply and ply % 3 == 0 and ply not in seen:
            seen.add(ply)
            match.send("b", "down")
            threading.Timer(0.2, match.send, ("b", "up")).start()
    m = play(board_lib, tmp_path, mqtt_broker.port, hook=hook, timeout=120)
    check_same_game(m)
    assert m.done["b"]["drops"] == len(seen) > 3


# -- delays, duplicates, reordering ------------------------------------------------------------


def test_proxy_delays_duplicates_and_reorders(board_lib, mqtt_broker, tmp_path):
    with FaultProxy(mqtt_broker.port) as proxy:
        proxy.delay_ms, proxy.dup_every, proxy.reorder_every = 2, 3, 5
        m = play(board_lib, tmp_path, proxy.port)
        assert proxy.dups > 10 and proxy.reorders > 5
    done = check_same_game(m)
    assert done["a"]["repeats"] + done["b"]["repeats"] > 0  # duplicates seen and ignored quietly
    assert done["a"]["refused"] == done["b"]["refused"] == 0


@pytest.mark.long
@pytest.mark.parametrize("delay,dup,reorder", [(0, 2, 0), (0, 0, 2), (0, 2, 3), (20, 0, 0), (5, 3, 4), (1, 1, 0)])
def test_proxy_faults_sweep(board_lib, mqtt_broker, tmp_path, delay, dup, reorder):
    with FaultProxy(mqtt_broker.port) as pa, FaultProxy(mqtt_broker.port) as pb:
        for proxy in (pa, pb):
            proxy.delay_ms, proxy.dup_every, proxy.reorder_every = delay, dup, reorder
        m = play(board_lib, tmp_path, pa.port, port_b=pb.port, timeout=120)
    check_same_game(m)


# -- a third client ------------------------------------------------------------------------------


def test_third_client_forged_replayed_and_malformed_moves_change_nothing(board_lib, mqtt_broker, tmp_path):
    """A client that reads the game's topics (it knows the game id, not the key)
    publishes forged moves, replays of real ones and garbage on both sides' topics while
    the game goes on.  The record is the undisturbed game's; both boards said they
    ignored what they ignored."""
    clock = Clock()
    attacker = Client("mallory", "127.0.0.1", mqtt_broker.port, clock=clock, keepalive_s=10)
    seen = []
    attacker.on_message = lambda topic, payload, retained: seen.append((topic, payload))
    attacker.start()
    stop = []
    sent = {"forged": 0, "replayed": 0, "malformed": 0}

    def send(topic, payload, kind):
        """Publish (QoS 1), waiting for a free slot: bounded."""
        for _ in range(500):
            if attacker.publish(topic, payload):
                sent[kind] += 1
                return
            attacker.poll()
            time.sleep(0.002)

    def attack():
        end = time.monotonic() + 60
        subscribed = False
        done_once = False
        while not stop and time.monotonic() < end:
            attacker.poll()
            if attacker.connected and not subscribed:
                subscribed = bool(attacker.subscribe("mancala/v1/g/#"))
            moves = [(t, pl) for t, pl in seen if "/m/" in t]
            if len(moves) >= 4 and not done_once:
                done_once = True
                for topic, payload in moves[:4]:
                    text = payload.decode()
                    words = text.split()
                    forged = " ".join(words[:4] + [str(int(words[4]) % 6 + 1)] + words[5:])
                    g = words[1]
                    for out in (forged,  # a move changed, the signature kept
                                text[:-4] + "0000",  # a signature changed
                                p.move_text(os.urandom(16), g, words[2], int(words[3]) + 1, 1, words[5])):
                        send(topic, out, "forged")
                    send(topic, payload, "replayed")  # the real move again
                    for junk in (b"hello", b"\xff\x00", ("M " + g + " a 999 9 zz").encode(), b"S " + g.encode()):
                        send(topic, junk, "malformed")
            time.sleep(0.002)

    th = threading.Thread(target=attack, daemon=True)
    th.start()
    try:
        m = play(board_lib, tmp_path, mqtt_broker.port, think_ms=8)
    finally:
        stop.append(1)
        th.join(timeout=5)
        attacker.stop()
    assert sent["forged"] == 12 and sent["replayed"] == 4 and sent["malformed"] == 16
    done = check_same_game(m)  # nothing changed
    ignored = done["a"]["ignored"] + done["b"]["ignored"]
    assert ignored == sent["forged"] + sent["malformed"]
    assert done["a"]["repeats"] + done["b"]["repeats"] >= sent["replayed"]
    said = [x["text"] for side in ("a", "b") for x in m.lines(side) if x.get("ev") == "ignored"]
    assert any("forged" in t for t in said) and any("malformed" in t for t in said)
    assert done["a"]["refused"] == done["b"]["refused"] == 0
