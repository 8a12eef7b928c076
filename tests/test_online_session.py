"""The online session (firmware/mancala/online/session.py) on a fake client: no broker,
no socket, a clock the test moves.  What it must never do (send a move it did not save,
play a move of ours the other side chose, leave the offer and its key on the broker,
archive a game twice, say it holds a move it could still lose) and what it must give up
on (a refused subscription, a creator that never answers).  Each runs in milliseconds."""

import pytest

from mancala.game import Game
from mancala.hw.clock import ManualClock
from mancala.hw.storage import OsFs, Storage
from mancala.online import protocol as p
from mancala.online import session as S
from mancala.rules import get_rules

KEY_HEX = "00112233445566778899aabbccddeeff"
KEY = bytes.fromhex(KEY_HEX)
G = "0123456789abcdef"


class FakeClient:
    """What the session asks of mqtt.Client, recorded: every publish is taken (unless
    `full`), every sync is answered at once."""

    def __init__(self):
        self.connected = True
        self.client_id = "m-new"
        self.published = []  # (topic, payload, retain)
        self.subscribed = []
        self.inbox = []  # (topic, payload) handed over in the next poll(deliver=True)
        self.full = False  # no slot: publish returns 0
        self.pid = 0
        self.pings = 0
        self.refused_subs = 0
        self.last_error = ""
        self.on_message = self.on_connect = None
        self.will = None

    def publish(self, topic, payload, retain=False, qos=1):
        if self.full:
            return 0
        self.pid += 1
        self.published.append((topic, payload.encode() if isinstance(payload, str) else payload, retain))
        return self.pid

    def has_slot(self):
        return not self.full

    def subscribe(self, topic, qos=1):
        self.subscribed.append(topic)
        return 1

    def unsubscribe(self, topic):
        return 1

    def sync(self):
        self.pings += 1
        return self.pings

    def synced(self, token):
        return True

    def delivered(self, pid):
        return True

    def set_will(self, topic, payload, retain=True):
        self.will = (topic, payload, retain)

    def start(self):
        pass

    def stop(self):
        self.connected = False

    def reconnect(self):
        pass

    def poll(self, deliver=True):
        if deliver and self.inbox:
            topic, payload = self.inbox.pop(0)
            self.on_message(topic, payload.encode(), False)

    def sent(self, topic):
        return [pl for t, pl, _ in self.published if t == topic]


class Flaky(Storage):
    """A storage whose saves can be made to fail (a full flash) or to stop the board
    (a power cut) at a chosen call."""

    def __init__(self, folder):
        super().__init__(OsFs(folder), "/data")
        self.fail_saves = False
        self.cut_after_add_game = False

    def save(self, name, obj):
        if self.fail_saves:
            raise OSError(28)
        return super().save(name, obj)

    def add_game(self, number, record):
        ok = super().add_game(number, record)
        if self.cut_after_add_game:
            raise PowerCut()
        return ok


class PowerCut(Exception):
    pass


def session(tmp_path, clock=None, client=None):
    clock = clock or ManualClock()
    client = client or FakeClient()
    st = Flaky(str(tmp_path))
    return S.Session(client, st, Game(get_rules("kalah")), clock), client, st


def playing(tmp_path, side="a", moves=(), **kw):
    """A session of game G under KEY, paired, `moves` played, saved as a board's."""
    s, c, st = session(tmp_path, **kw)
    s.storage.save(S.FILE, {"v": 1, "phase": S.PLAYING, "side": side, "first": "a", "g": G, "k": KEY_HEX,
                            "code": "123456", "nonce": "00ff00ff", "archived": 0,
                            "record": p.record_of("kalah", bytes(moves))})
    assert s.resume()
    return s, c, st


def topic(kind, side):
    return p.game_topic(G, kind, side)


def state_of(side, moves):
    rec = p.record_of("kalah", bytes(moves))
    return p.state_text(KEY, G, side, len(moves), rec, p.record_sum(rec))


def move_of(side, moves):
    rec = p.record_of("kalah", bytes(moves))
    return p.move_text(KEY, G, side, len(moves), moves[-1] + 1, p.record_sum(rec))


# -- C1: a move of ours is ours ---------------------------------------------------------


def test_a_state_holding_a_move_of_ours_we_never_made_is_refused(tmp_path):
    # b is North; a (South) played pit 1 (ply 1); North to move.  a's state adds
    # North's move and then a South move: the North move is one b never made.
    s, c, st = playing(tmp_path, side="b", moves=[0])
    assert s.game.side == 1 and s.seat == 1
    c.inbox.append((topic("s", "a"), state_of("a", [0, 0, 4])))
    s.poll()
    assert s.game.moves() == bytes([0])
    ev = s.events()
    assert (S.EV_REFUSED, "refused the other side's record: ply 2: a move of ours we never made") in ev
    # and the game waits (S11): no move of ours on a record the other side does not share
    assert s.diverged and not s.my_turn()
    assert s.play(2) == "the boards' records differ: waiting"
    # the other side's record agrees again (its state is a prefix of ours): play goes on
    c.inbox.append((topic("s", "a"), state_of("a", [0])))
    s.poll()
    assert not s.diverged and s.my_turn() and s.play(2) is None


def test_a_move_that_could_not_be_saved_is_not_sent(tmp_path):
    s, c, st = playing(tmp_path, side="a")
    c.published.clear()
    st.fail_saves = True
    assert s.play(2) == "the move could not be saved: not sent"
    assert s.game.ply == 0 and s.phase == S.PLAYING
    assert c.published == []
    assert any(k == S.EV_SAVE_FAILED for k, _ in s.events())
    st.fail_saves = False
    assert s.play(2) is None and s.game.ply == 1
    assert c.sent(topic("m", "a")) and c.sent(topic("s", "a"))


# -- C2: the offer, key included, is cleared ----------------------------------------------


def test_a_resumed_creator_clears_its_offer_again(tmp_path):
    """A power cut between the save of PLAYING and the offer's clearing: the next boot
    clears it (an empty retained message on the code's topic)."""
    s, c, st = playing(tmp_path, side="a")
    s.poll()
    assert c.sent(p.pair_topic("123456")) == [b""]
    assert c.sent(p.game_topic(G, "ack"))  # (and the ack again: b may have missed it)


def test_a_repeated_join_sends_the_ack_and_clears_the_offer_again(tmp_path):
    s, c, st = playing(tmp_path, side="a")
    s.poll()
    c.published.clear()
    c.inbox.append((p.game_topic(G, "join"), p.join_text(KEY, G, "00ff00ff")))
    s.poll()
    s.poll()
    assert c.sent(p.pair_topic("123456")) == [b""] and c.sent(p.game_topic(G, "ack"))


def test_an_expired_offer_fails_only_once_its_clearing_is_taken(tmp_path):
    clock = ManualClock()
    s, c, st = session(tmp_path, clock=clock)
    s.create("kalah", "a")
    for _ in range(4):
        s.poll()
    code = s.code
    assert c.sent(p.pair_topic(code))[-1].startswith(b"O ")
    c.full = True
    clock.advance(p.OFFER_LIFE_S * 1000 + 1)
    s.poll()
    assert s.phase == S.OFFERING  # the clearing could not go: not given up yet
    c.full = False
    s.poll()
    assert s.phase == S.FAILED and c.sent(p.pair_topic(code))[-1] == b""


# -- S1: archived once -----------------------------------------------------------------------


def _finish_from(s, c):
    """Play the game out: a plays every move of both seats (its own and, as the other
    side's move messages, b's), as the seed-1 chooser of the board tests would."""
    g = s.game
    while not g.over:
        legal = [k for k in range(6) if g.legal_mask() >> k & 1]
        if g.side == s.seat:
            assert s.play(legal[0]) is None
        else:
            c.inbox.append((topic("m", "b"), move_of("b", list(g.moves()) + [legal[-1]])))
            s.poll()
            s.poll()


def test_a_power_cut_between_the_archive_and_the_save_archives_the_game_once(tmp_path):
    s, c, st = playing(tmp_path, side="a")
    st.cut_after_add_game = True
    with pytest.raises(PowerCut):
        _finish_from(s, c)
    st.cut_after_add_game = False
    s2, c2, st2 = session(tmp_path)
    assert s2.resume() and s2.phase == S.OVER
    files = st2.fs.listdir("/data/games")
    assert files == ["g%05d.txt" % s2.archived], (files, s2.archived)


# -- S2: a state never claims a move not yet on flash ------------------------------------


def test_the_state_waits_for_the_save_of_a_move_that_arrived(tmp_path):
    s, c, st = playing(tmp_path, side="a", moves=[0])  # a played pit 1 (no extra turn): b to move
    s.poll()
    assert s.game.side == 1
    c.published.clear()
    s._due |= S._STATE  # (a state still due when the move arrives)
    c.inbox.append((topic("m", "b"), move_of("b", [0, 0])))
    s.poll()  # the move is played: not yet saved, so no state says we hold it
    assert s.game.ply == 2
    assert [x for x in c.sent(topic("s", "a")) if b" 2 " in x] == []
    s.poll()  # saved, then the state
    assert st.load(S.FILE)[1]["record"] == "kalah 1 1"
    assert any(b" 2 kalah_1_1 " in x for x in c.sent(topic("s", "a")))


# -- S6, S8: giving up with a reason -----------------------------------------------------------


def test_a_refused_subscription_fails_pairing_with_the_brokers_word(tmp_path):
    s, c, st = session(tmp_path)
    s.join("123456")
    s.poll()
    c.refused_subs = 1
    c.last_error = "the broker refused subscription to mancala/v1/pair/123456"
    s.poll()
    assert s.phase == S.FAILED and s.why == c.last_error


def test_a_joiner_gives_up_on_a_creator_that_never_acks(tmp_path):
    clock = ManualClock()
    s, c, st = session(tmp_path, clock=clock)
    s.join("123456")
    c.inbox.append((p.pair_topic("123456"), p.offer_text(G, KEY_HEX, "kalah", "a")))
    s.poll()
    assert s.phase == S.JOINING and s.game_id == G
    for _ in range(19):  # 57 s: a join every 3 s
        clock.advance(3000)
        s.poll()
    assert len(c.sent(p.game_topic(G, "join"))) >= 9 and s.phase == S.JOINING
    clock.advance(3001)
    s.poll()
    assert s.phase == S.FAILED and s.why == "the game's creator does not answer"


def test_the_lookup_time_counts_from_the_first_connected_lookup(tmp_path):
    """A board that takes 10 s to reach the broker still looks for the offer 5 s."""
    clock = ManualClock()
    s, c, st = session(tmp_path, clock=clock)
    c.connected = False
    s.join("123456")
    for _ in range(10):
        clock.advance(1000)
        s.poll()
    c.connected = True
    s.poll()
    s.poll()
    assert s.phase == S.JOINING
    for _ in range(60):
        clock.advance(100)
        s.poll()
    assert s.phase == S.FAILED and s.why == "no game with the code 123456"


# -- S7 and the rest ---------------------------------------------------------------------------


def test_the_game_client_id_fits_mqtt_311s_23_bytes(tmp_path):
    s, c, st = playing(tmp_path, side="b")
    assert c.client_id == "m%sb" % G and len(c.client_id) <= 23


def test_a_damaged_saved_game_is_said_not_raised(tmp_path):
    s, c, st = session(tmp_path)
    st.save(S.FILE, {"v": 1, "side": "a", "first": "a", "g": G, "k": KEY_HEX, "record": "kalah"})
    assert s.resume() is False
    assert [k for k, _ in s.events()] == [S.EV_FAILED]
    st.save(S.FILE, {"v": 1, "phase": "playing", "side": "c", "first": "a", "g": G, "k": KEY_HEX, "record": "kalah"})
    assert s.resume() is False


def test_no_events_is_no_new_object(tmp_path):
    s, c, st = playing(tmp_path, side="a")
    s.events()
    assert s.events() is s.events() == ()


def test_a_state_not_ours_under_our_name_is_answered_with_ours(tmp_path):
    """Someone holding the key publishes a record that parts from ours on our state
    topic: the other side refuses it and waits; we send our own state again."""
    s, c, st = playing(tmp_path, side="b", moves=[0])
    s.poll()
    assert topic("s", "b") in c.subscribed
    c.published.clear()
    c.inbox.append((topic("s", "b"), state_of("b", [0])))  # our own, echoed: nothing
    s.poll()
    s.poll()
    assert c.sent(topic("s", "b")) == []
    c.inbox.append((topic("s", "b"), state_of("b", [1, 0])))  # not ours
    s.poll()
    s.poll()
    assert c.sent(topic("s", "b")) == [state_of("b", [0]).encode()]


def test_leaving_a_finished_game_clears_every_retained_message_of_ours(tmp_path):
    """The state, the presence, and (a's) the ack: nothing of a finished game stays on
    the broker (docs/ONLINE.md "Scale": what a game leaves retained)."""
    s, c, st = playing(tmp_path, side="a")
    s.phase, s.peer_ply = S.OVER, s.game.ply
    s.poll()
    c.published.clear()
    s.leave()
    cleared = {t for t, pl, retain in c.published if pl == b"" and retain}
    assert cleared == {topic("s", "a"), topic("here", "a"), p.game_topic(G, "ack")}
