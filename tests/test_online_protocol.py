"""The online protocol (firmware/mancala/online/protocol.py): signatures against CPython's
hmac, every rejection with its reason, the receive rules; and the same module, unchanged,
in both real MicroPython builds (the page's WebAssembly VM and the unix port)."""

import hashlib
import hmac
import json
import random

import pytest
from mp_builds import BUILDS

from mancala.game import Game
from mancala.online import protocol as p
from mancala.rules import get_rules

KEY = bytes(range(16))
G = "0123456789abcdef"


def test_hmac_matches_the_standard_library_for_every_key_and_message_length():
    rng = random.Random(5)
    for klen in (0, 1, 16, 63, 64, 65, 100):
        for mlen in (0, 1, 55, 56, 64, 200):
            k = bytes(rng.randrange(256) for _ in range(klen))
            m = bytes(rng.randrange(256) for _ in range(mlen))
            assert p.hmac_sha256(k, m) == hmac.new(k, m, hashlib.sha256).digest()
    assert p.mac(KEY, "M x") == hmac.new(KEY, b"M x", hashlib.sha256).hexdigest()[:32]


def test_sum_is_the_first_8_hex_digits_of_sha256_of_the_record():
    assert p.record_sum("kalah 3 1 4") == hashlib.sha256(b"kalah 3 1 4").hexdigest()[:8]


def test_ids_keys_codes_nonces_have_their_shapes_and_are_unbiased():
    assert p.is_hex(p.new_game_id(), 16) and p.is_hex(p.new_key(), 32)
    assert p.is_hex(p.new_nonce(), 8)
    codes = [p.new_code() for _ in range(3000)]
    assert all(p.code_ok(c) for c in codes)
    assert len(set(codes)) > 2850  # 46,656 codes: ~96 collisions expected in 3000 (sd ~10)
    digits = "".join(codes)
    for d in "123456":  # 18,000 digits: each ~3000 (6 sigma ~ 300)
        assert 2700 < digits.count(d) < 3300
    assert not p.code_ok("123457") and not p.code_ok("12345") and not p.code_ok(123456)


def test_random_source_can_be_injected_and_codes_redraw_bytes_above_251():
    feed = iter([bytes([252, 253, 254, 255, 0, 1]), bytes([2, 3, 4, 5, 6, 7])])
    p.set_random_source(lambda n: next(feed))
    try:
        assert p.new_code() == "123456"  # 252..255 dropped, 0..3 then 4..5 -> 1..6
    finally:
        p.set_random_source(None)


def test_topics():
    assert p.pair_topic("123456") == "mancala/v1/pair/123456"
    assert p.game_topic(G, "m", "a") == "mancala/v1/g/%s/m/a" % G
    assert p.game_topic(G, "join") == "mancala/v1/g/%s/join" % G


def test_every_message_round_trips():
    m = p.parse(p.move_text(KEY, G, "a", 3, 4, "deadbeef"), KEY, G, "a")
    assert (m.kind, m.side, m.ply, m.move, m.total) == ("M", "a", 3, 4, "deadbeef")
    rec = "kalah 3 1 4"
    m = p.parse(p.state_text(KEY, G, "b", 3, rec, p.record_sum(rec)).encode(), KEY, G, "b")
    assert (m.kind, m.ply, m.record) == ("S", 3, rec)
    m = p.parse(p.state_text(KEY, G, "b", 0, "kalah", p.record_sum("kalah")), KEY, G)
    assert (m.ply, m.record) == (0, "kalah")
    assert p.parse(p.join_text(KEY, G, "00ff00ff"), KEY, G).nonce == "00ff00ff"
    assert p.parse(p.ack_text(KEY, G, "00ff00ff"), KEY, G).kind == "A"
    assert p.parse(p.here_text(KEY, G, "a", False), KEY, G).present is False
    assert p.parse(p.here_text(KEY, G, "a", True), KEY, G).present is True
    o = p.parse_offer(p.offer_text(G, KEY.hex(), "oware", "b"))
    assert (o.game_id, o.key_hex, o.variant, o.first) == (G, KEY.hex(), "oware", "b")


def _rejected(data, side=None, key=KEY):
    with pytest.raises(p.Rejected) as e:
        p.parse(data, key, G, side)
    return e.value.kind, e.value.why


def test_each_rejection_says_why():
    good = p.move_text(KEY, G, "a", 3, 4, "deadbeef")
    assert _rejected(good, key=bytes(16)) == (p.FORGED, "the signature does not match this game's key")
    assert _rejected(good[:-1] + ("0" if good[-1] != "0" else "1"))[0] == p.FORGED
    assert _rejected(good.replace(" 4 ", " 5 "))[0] == p.FORGED  # a word changed, mac kept
    other = "fedcba9876543210"
    assert _rejected(p.move_text(KEY, other, "a", 3, 4, "deadbeef")) == (p.FOREIGN, "a message of another game")
    assert _rejected(good, side="b") == (p.FOREIGN, "side a's message on side b's topic")
    assert _rejected("")[0] == p.MALFORMED
    assert _rejected(b"\xff\xfe") == (p.MALFORMED, "not text")
    assert _rejected("X " + G)[1] == "unknown kind 'X'"
    assert _rejected("M " + G + " a 3")[1] == "M takes 7 words, not 4"
    assert _rejected("M zz a 3 4 deadbeef " + "0" * 32)[1] == "the game id is not 16 hex digits"
    assert _rejected("M %s a 3 4 deadbeef nomac" % G)[1] == "no signature"
    assert _rejected(p.signed(KEY, "M %s c 3 4 deadbeef" % G))[1] == "side 'c' is not a or b"
    assert _rejected(p.signed(KEY, "M %s a 3 7 deadbeef" % G))[1] == "move 7 is out of 1..6"
    assert _rejected(p.signed(KEY, "M %s a 0 1 deadbeef" % G))[1] == "ply 0 is out of 1..999"
    assert _rejected(p.signed(KEY, "M %s a x1 1 deadbeef" % G))[1] == "ply 'x1' is not a number"
    assert _rejected(p.signed(KEY, "M %s a 1 1 DEADBEEF" % G))[1] == "the sum is not 8 hex digits"
    assert _rejected("M" * 2000)[1] == "2000 bytes: longer than any message"
    bad_sum = p.signed(KEY, "S %s a 1 kalah_3 deadbeef" % G)
    assert _rejected(bad_sum)[1] == "the state's sum does not match its record"
    short = p.signed(KEY, "S %s a 2 kalah_3 %s" % (G, p.record_sum("kalah 3")))
    assert _rejected(short)[1] == "state of ply 2 with 1 moves"
    assert _rejected(p.signed(KEY, "S %s a 1 kalah_9 00000000" % G))[1] == "state: move 1: '9' is not a pit 1..6"
    assert _rejected(p.signed(KEY, "J %s a 00ff00ff" % G))[1] == "a join comes from b, an ack from a"
    assert _rejected(p.signed(KEY, "H %s a 2" % G))[1] == "presence is 0 or 1"
    for bad, why in (("O %s %s kalah" % (G, KEY.hex()), "an offer is"),
                     ("O %s %s kalah9 a" % (G, KEY.hex()), "variant 'kalah9' is unknown"),
                     ("O %s %s kalah c" % (G, KEY.hex()), "first side is not a or b"),
                     ("O %s 00 kalah a" % G, "key is not 32 hex digits"),
                     ("O x %s kalah a" % KEY.hex(), "game id is not 16 hex digits")):
        with pytest.raises(p.Rejected) as e:
            p.parse_offer(bad)
        assert why in e.value.why and e.value.kind == p.MALFORMED


def _game(variant="kalah", moves=()):
    g = Game(get_rules(variant))
    for m in moves:
        g.play(m)
    return g


def _sum(variant, moves):
    return p.record_sum(p.record_of(variant, bytes(moves)))


def test_receive_move_applies_the_next_ply_and_checks_its_record():
    g = _game()
    # kalah: South (seat 0) starts; pit 3 from South ends in the store: South again
    assert p.receive_move(g, 1, 1, 3, _sum("kalah", [2])) == (p.REFUSED, "ply 1 is not the other side's turn")
    assert g.ply == 0
    assert p.receive_move(g, 0, 1, 3, _sum("kalah", [1])) == (
        p.REFUSED, "the record after ply 1 does not match the other side's")
    assert g.ply == 0  # taken back
    assert p.receive_move(g, 0, 1, 3, _sum("kalah", [2])) == (p.APPLIED, "")
    assert g.moves() == bytes([2])
    assert p.receive_move(g, 0, 1, 3, _sum("kalah", [2])) == (p.DUPLICATE, "")
    assert p.receive_move(g, 0, 1, 2, _sum("kalah", [1])) == (
        p.REFUSED, "ply 1 does not match our record (we have 3 there)")
    assert p.receive_move(g, 0, 3, 1, "00000000")[0] == p.GAP
    # pit 3 again is empty: illegal
    assert p.receive_move(g, 0, 2, 3, _sum("kalah", [2, 2])) == (
        p.REFUSED, "illegal move 3: pit S3 is empty")
    assert g.ply == 1


def test_receive_state_catches_up_refuses_a_parting_record_and_knows_when_the_peer_is_behind():
    g = _game(moves=[2])
    assert p.receive_state(g, "kalah 3 1 4") == (p.APPLIED, "")
    assert g.moves() == bytes([2, 0, 3])
    assert p.receive_state(g, "kalah 3 1 4") == (p.DUPLICATE, "")
    assert p.receive_state(g, "kalah 3") == (p.BEHIND, "")
    assert p.receive_state(g, "kalah 3 2 4 1") == (p.REFUSED, "the records part at ply 2")
    assert p.receive_state(g, "oware 3 1 4") == (p.REFUSED, "the other side plays oware, we play kalah")
    before = g.moves()
    legal = [k for k in range(6) if g.legal_mask() >> k & 1]
    g2 = _game(moves=[2, 0, 3])
    g2.play(legal[0])
    bad = [k for k in range(6) if not g2.legal_mask() >> k & 1][0]
    verdict, why = p.receive_state(g, "kalah 3 1 4 %d %d" % (legal[0] + 1, bad + 1))
    assert verdict == p.REFUSED and why.startswith("ply 5: pit ")
    assert g.moves() == before


def test_a_scripted_game_carried_by_moves_alone_ends_with_equal_records():
    """Both sides of a whole game, each applying the other's move messages as parsed
    from their signed text, with duplicates and stale copies thrown in."""
    rng = random.Random(11)
    for variant in ("kalah", "oware", "ranok", "mangala", "kalah6"):
        sides = {"a": _game(variant), "b": _game(variant)}
        seat = {"a": 0, "b": 1}
        sent = []
        while not sides["a"].over:
            mover = "a" if sides["a"].side == 0 else "b"
            g = sides[mover]
            legal = [k for k in range(6) if g.legal_mask() >> k & 1]
            g.play(rng.choice(legal))
            text = p.move_text(KEY, G, mover, g.ply, g.moves()[-1] + 1, _sum(variant, g.moves()))
            sent.append(text)
            peer = "b" if mover == "a" else "a"
            for t in [text] + rng.sample(sent, min(2, len(sent))):  # the move, then old copies
                m = p.parse(t, KEY, G)
                if m.side == peer:
                    continue  # the peer's own message echoed back
                verdict, why = p.receive_move(sides[peer], seat[m.side], m.ply, m.move, m.total)
                assert verdict in (p.APPLIED, p.DUPLICATE), why
            assert sides["a"].moves() == sides["b"].moves()
        assert sides["b"].over


# -- in MicroPython --------------------------------------------------------------

MP_SCRIPT = r"""
import json, sys
from mancala.online import protocol as p
from mancala.game import Game
from mancala.rules import get_rules
key = bytes(range(16))
G = "0123456789abcdef"
out = {"impl": sys.implementation.name}
out["hmac"] = [p.hexstr(p.hmac_sha256(bytes([i] * k), bytes([7]) * m)) for i, k, m in
               ((1, 0, 0), (2, 16, 55), (3, 64, 64), (4, 65, 200))]
out["move"] = p.move_text(key, G, "a", 3, 4, p.record_sum("kalah 3 1 4"))
out["state"] = p.state_text(key, G, "b", 3, "kalah 3 1 4", p.record_sum("kalah 3 1 4"))
codes = [p.new_code() for _ in range(50)]
out["codes_ok"] = all(p.code_ok(c) for c in codes) and len(set(codes)) > 45
out["id"] = len(p.new_game_id()), len(p.new_key())
rej = []
for bad in (out["move"].replace(" 4 ", " 5 "), "M " + G + " a 3", b"\xff\xfe"):
    try:
        p.parse(bad, key, G)
    except p.Rejected as e:
        rej.append([e.kind, e.why])
out["rejected"] = rej
g = Game(get_rules("kalah"))
v1 = p.receive_move(g, 0, 1, 3, p.record_sum("kalah 3"))
v2 = p.receive_move(g, 0, 1, 3, p.record_sum("kalah 3"))
v3 = p.receive_state(g, "kalah 3 1 4")
out["rules"] = [list(v1), list(v2), list(v3), p.record_of("kalah", g.moves())]
print(json.dumps(out))
"""


@BUILDS
def test_the_protocol_runs_unchanged_in_micropython(build):
    res = json.loads(build.run(MP_SCRIPT).strip().splitlines()[-1])
    assert res["impl"] == "micropython"
    want = [hmac.new(bytes([i] * k), bytes([7]) * m, hashlib.sha256).hexdigest()
            for i, k, m in ((1, 0, 0), (2, 16, 55), (3, 64, 64), (4, 65, 200))]
    assert res["hmac"] == want
    assert res["move"] == p.move_text(KEY, G, "a", 3, 4, p.record_sum("kalah 3 1 4"))
    assert res["state"] == p.state_text(KEY, G, "b", 3, "kalah 3 1 4", p.record_sum("kalah 3 1 4"))
    assert res["codes_ok"] is True and res["id"] == [16, 32]
    assert res["rejected"] == [[p.FORGED, "the signature does not match this game's key"],
                               [p.MALFORMED, "M takes 7 words, not 4"],
                               [p.MALFORMED, "not text"]]
    assert res["rules"] == [["applied", ""], ["duplicate", ""], ["applied", ""], "kalah 3 1 4"]


def test_a_state_with_a_move_of_our_own_seat_we_lack_is_refused():
    """A side saves each move before sending it: a move of its seat it lacks was chosen
    by someone else (the peer, or whoever read the key), and is refused."""
    g = _game(moves=[0])  # South played pit 1, North (seat 1) to move
    assert g.side == 1
    assert p.receive_state(g, "kalah 1 1 5", own_seat=1) == (p.REFUSED, "ply 2: a move of ours we never made")
    assert g.moves() == bytes([0])
    # the other side's own moves are taken, up to the first of ours
    g2 = _game()
    assert p.receive_state(g2, "kalah 1", own_seat=1) == (p.APPLIED, "")
    assert p.receive_state(g2, "kalah 1 1", own_seat=0) == (p.APPLIED, "")  # (we are South here)


def test_numbers_are_ascii_digits_only():
    for word in ("²", "１２", "1²"):
        assert _rejected(p.signed(KEY, "M %s a %s 1 deadbeef" % (G, word)))[1].endswith("is not a number")
