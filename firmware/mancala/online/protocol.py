"""The online game's wire protocol, v1 (docs/ONLINE.md "Protocol"): topics, message texts,
their signatures, and what a side does with a message it receives.

Pure: no socket, no clock, no storage.  It runs unchanged on the boards, in CPython (the
`mancala` command) and in the page's MicroPython WebAssembly VM.

Every message after the offer is one line of ASCII words, signed: its last word is the
first 32 hex digits of HMAC-SHA256(key, the text before " <mac>"), the key being the 16
random bytes the two sides share from pairing.  MicroPython has hashlib.sha256 but no
hmac module, so HMAC (RFC 2104) is written out here.
"""

import binascii
import hashlib

PREFIX = "mancala/v1"
SIDES = ("a", "b")  # a: the side that created the game; b: the side that joined it

ID_BYTES = 8  # the game id: 16 hex digits, in every topic, unguessable
KEY_BYTES = 16  # the shared key: 32 hex digits in the offer
NONCE_BYTES = 4  # a join's nonce: 8 hex digits
CODE_DIGITS = 6  # the pairing code: six digits 1..6 (one per pit of a row)
MAC_HEX = 32
SUM_HEX = 8
MAX_PLY = 999
MAX_TEXT = 1024  # the longest message a side accepts (a long game's state: ~2 chars a ply)
OFFER_LIFE_S = 600  # the creator clears its offer after this, or once b has joined

# What a signed message's parse may reject, with the reason said
MALFORMED = "malformed"
FORGED = "forged"
FOREIGN = "foreign"  # another game's id, or the wrong side on a side's topic

# What the receive rules decide about a peer's move or state
APPLIED = "applied"  # the game moved on
DUPLICATE = "duplicate"  # seen already (a resend, a late copy): ignored quietly
GAP = "gap"  # a move beyond the next one: read the peer's retained state
REFUSED = "refused"  # illegal, out of turn, or a record that does not match: said
BEHIND = "behind"  # the peer's state is older than ours: it will catch up from ours


class Rejected(ValueError):
    """A message that is not taken: `kind` is MALFORMED, FORGED or FOREIGN, the text
    says why in one line."""

    def __init__(self, kind, why):
        super().__init__("%s: %s" % (kind, why))
        self.kind = kind
        self.why = why


# -- random bytes ------------------------------------------------------------------

_random_source = None


def set_random_source(fn):
    """Use `fn(n) -> n bytes` for ids, keys, codes and nonces (tests; a port with its own
    generator).  None: the default (os.urandom, else the browser's crypto)."""
    global _random_source
    _random_source = fn


def random_bytes(n):
    """n unpredictable bytes: os.urandom on the boards and the PC; in the page's VM (no
    os.urandom) the browser's crypto.getRandomValues.  Never a seeded PRNG: a game id or a
    key anyone could guess would let them play the moves."""
    if _random_source is not None:
        return bytes(_random_source(n))
    import os

    urandom = getattr(os, "urandom", None)
    if urandom is not None:
        return urandom(n)
    try:
        import js  # type: ignore[import-not-found]  # the WebAssembly VM

        arr = js.Uint8Array.new(n)
        js.crypto.getRandomValues(arr)
        return bytes([arr[i] for i in range(n)])
    except ImportError:
        raise OSError("no source of random bytes on this port (os.urandom)") from None


def hexstr(data):
    return binascii.hexlify(data).decode()


def new_game_id():
    return hexstr(random_bytes(ID_BYTES))


def new_key():
    """The shared key as 32 hex digits (as the offer carries it)."""
    return hexstr(random_bytes(KEY_BYTES))


def new_nonce():
    return hexstr(random_bytes(NONCE_BYTES))


def new_code():
    """Six digits 1..6 as text, e.g. "314625": 46,656 codes.  Unbiased: bytes of 252 and
    above are drawn again."""
    out = ""
    while len(out) < CODE_DIGITS:
        for b in random_bytes(CODE_DIGITS):
            if b < 252 and len(out) < CODE_DIGITS:
                out += "123456"[b % 6]
    return out


def code_ok(code):
    return isinstance(code, str) and len(code) == CODE_DIGITS and all(c in "123456" for c in code)


# -- hashes and signatures ---------------------------------------------------------


def _bytes(x):
    return x.encode() if isinstance(x, str) else bytes(x)


def sha256_hex(data):
    return hexstr(hashlib.sha256(_bytes(data)).digest())


_pads = [b"", b"", b""]  # the last key's (key, inner pad, outer pad): one game's key


def hmac_sha256(key, msg):
    """HMAC-SHA256 (RFC 2104) of bytes `msg` under bytes `key`: 32 bytes."""
    key = _bytes(key)
    if _pads[0] != key or not _pads[1]:
        k = hashlib.sha256(key).digest() if len(key) > 64 else key
        k = k + bytes(64 - len(k))
        _pads[0] = key
        _pads[1] = bytes([b ^ 0x36 for b in k])
        _pads[2] = bytes([b ^ 0x5C for b in k])
    inner = hashlib.sha256(_pads[1])
    inner.update(_bytes(msg))
    outer = hashlib.sha256(_pads[2])
    outer.update(inner.digest())
    return outer.digest()


def mac(key, text):
    """The signature word of `text` under `key` (bytes): 32 hex digits."""
    return hexstr(hmac_sha256(key, text))[:MAC_HEX]


def same(a, b):
    """Compare two signatures in a time that does not depend on where they differ: their
    hashes are compared (two sha256 in C, faster on the chip than a loop in Python)."""
    return hashlib.sha256(_bytes(a)).digest() == hashlib.sha256(_bytes(b)).digest()


def key_bytes(key_hex):
    """The key's bytes from its 32 hex digits; ValueError if it is not that."""
    if not is_hex(key_hex, KEY_BYTES * 2):
        raise ValueError("a key is 32 hex digits")
    return binascii.unhexlify(key_hex)


def record_sum(record):
    """The checksum a move or state carries: the first 8 hex digits of sha256(record)."""
    return sha256_hex(record)[:SUM_HEX]


def is_hex(s, n):
    """`s` is n lower-case hex digits (checked in C: the chip parses a message in time)."""
    if len(s) != n or n & 1 or s.lower() != s:
        return False
    try:
        binascii.unhexlify(s)
    except ValueError:
        return False
    return True


# -- records -----------------------------------------------------------------------


def record_of(variant, moves, n=None):
    """The record of an online game (always the variant's standard start) after its
    first `n` moves (pits 0..5 from the mover's seat): "kalah 3 1 4", as
    mancala.record.format_record writes it."""
    if n is None:
        n = len(moves)
    words = [variant]
    for i in range(n):
        words.append(str(moves[i] + 1))
    return " ".join(words)


def record_moves(record):
    """(variant, bytes of pits 0..5) of an online game's record; ValueError if it is
    not one (a start position or "agreed" is never in an online record)."""
    words = record.split()
    if not words:
        raise ValueError("an empty record")
    out = bytearray(len(words) - 1)
    for i in range(1, len(words)):
        w = words[i]
        if len(w) != 1 or w not in "123456":
            raise ValueError("move %d: %r is not a pit 1..6" % (i, w))
        out[i - 1] = int(w) - 1
    return words[0], bytes(out)


# -- topics ------------------------------------------------------------------------


def other(side):
    return "b" if side == "a" else "a"


def pair_topic(code):
    return "%s/pair/%s" % (PREFIX, code)


def game_topic(game_id, what, side=None):
    """P/g/G/join, P/g/G/ack, P/g/G/m/<side>, P/g/G/s/<side>, P/g/G/here/<side>."""
    if side is None:
        return "%s/g/%s/%s" % (PREFIX, game_id, what)
    return "%s/g/%s/%s/%s" % (PREFIX, game_id, what, side)


# -- message texts -----------------------------------------------------------------


def signed(key, text):
    return text + " " + mac(key, text)


def offer_text(game_id, key_hex, variant, first):
    """The retained offer on P/pair/C (not signed: it carries the key)."""
    return "O %s %s %s %s" % (game_id, key_hex, variant, first)


def join_text(key, game_id, nonce):
    return signed(key, "J %s b %s" % (game_id, nonce))


def ack_text(key, game_id, nonce):
    return signed(key, "A %s a %s" % (game_id, nonce))


def move_text(key, game_id, side, ply, move, total):
    """A move: `move` 1..6, `ply` its number in the game (1-based), `total` the sum of
    the record after it."""
    return signed(key, "M %s %s %d %d %s" % (game_id, side, ply, move, total))


def state_text(key, game_id, side, ply, record, total):
    return signed(key, "S %s %s %d %s %s" % (game_id, side, ply, record.replace(" ", "_"), total))


def here_text(key, game_id, side, present):
    """Presence: "1" when connected, "0" as the last will (retained)."""
    return signed(key, "H %s %s %d" % (game_id, side, 1 if present else 0))


class Offer:
    def __init__(self, game_id, key_hex, variant, first):
        self.game_id = game_id
        self.key_hex = key_hex
        self.variant = variant
        self.first = first


def parse_offer(text):
    """An offer's text -> Offer; Rejected(MALFORMED) with the reason."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode()
        except UnicodeError:
            raise Rejected(MALFORMED, "an offer that is not text") from None
    w = text.split()
    if len(w) != 5 or w[0] != "O":
        raise Rejected(MALFORMED, "an offer is 'O <game> <key> <variant> <first>'")
    if not is_hex(w[1], ID_BYTES * 2):
        raise Rejected(MALFORMED, "the offer's game id is not 16 hex digits")
    if not is_hex(w[2], KEY_BYTES * 2):
        raise Rejected(MALFORMED, "the offer's key is not 32 hex digits")
    try:
        from mancala.rules import get_rules

        get_rules(w[3])
    except ValueError:
        raise Rejected(MALFORMED, "the offer's variant %r is unknown" % w[3][:12]) from None
    if w[4] not in SIDES:
        raise Rejected(MALFORMED, "the offer's first side is not a or b")
    return Offer(w[1], w[2], w[3], w[4])


class Message:
    """A signed message taken apart.  kind: "J" join, "A" ack, "M" move, "S" state,
    "H" presence."""

    def __init__(self, kind, game_id, side):
        self.kind = kind
        self.game_id = game_id
        self.side = side
        self.ply = 0
        self.move = 0  # 1..6
        self.total = ""  # the record's sum
        self.record = ""
        self.nonce = ""
        self.present = False


_FIELDS = {"J": 5, "A": 5, "M": 7, "S": 7, "H": 5}


def _int(word, low, high, what):
    # (not str.isdigit: it takes "²" and fullwidth digits, which int() then reads or refuses)
    if not word or len(word) > 4 or not all("0" <= c <= "9" for c in word):
        raise Rejected(MALFORMED, "%s %r is not a number" % (what, word[:8]))
    n = int(word)
    if not low <= n <= high:
        raise Rejected(MALFORMED, "%s %d is out of %d..%d" % (what, n, low, high))
    return n


def parse(data, key, game_id, side=None):
    """A signed message (bytes or text) of game `game_id` under `key` (bytes) ->
    Message.  `side`: the side whose topic it came on (its messages must say so).
    Rejected: MALFORMED (not a message of this protocol), FORGED (the signature does not
    match: not made with this game's key), FOREIGN (another game, the wrong side)."""
    if len(data) > MAX_TEXT:
        raise Rejected(MALFORMED, "%d bytes: longer than any message" % len(data))
    if isinstance(data, (bytes, bytearray, memoryview)):
        try:
            text = bytes(data).decode()
        except UnicodeError:
            raise Rejected(MALFORMED, "not text") from None
    else:
        text = data
    w = text.split(" ")
    kind = w[0]
    n = _FIELDS.get(kind)
    if n is None:
        raise Rejected(MALFORMED, "unknown kind %r" % kind[:8])
    if len(w) != n:
        raise Rejected(MALFORMED, "%s takes %d words, not %d" % (kind, n, len(w)))
    if not is_hex(w[1], ID_BYTES * 2):
        raise Rejected(MALFORMED, "the game id is not 16 hex digits")
    if not is_hex(w[-1], MAC_HEX):
        raise Rejected(MALFORMED, "no signature")
    if w[2] not in SIDES:
        raise Rejected(MALFORMED, "side %r is not a or b" % w[2][:4])
    if not same(mac(key, text[:len(text) - MAC_HEX - 1]), w[-1]):
        raise Rejected(FORGED, "the signature does not match this game's key")
    if w[1] != game_id:
        raise Rejected(FOREIGN, "a message of another game")
    if side is not None and w[2] != side:
        raise Rejected(FOREIGN, "side %s's message on side %s's topic" % (w[2], side))
    m = Message(kind, w[1], w[2])
    if kind == "J" or kind == "A":
        if not is_hex(w[3], NONCE_BYTES * 2):
            raise Rejected(MALFORMED, "the nonce is not 8 hex digits")
        if w[2] != ("b" if kind == "J" else "a"):
            raise Rejected(MALFORMED, "a join comes from b, an ack from a")
        m.nonce = w[3]
    elif kind == "H":
        if w[3] not in ("0", "1"):
            raise Rejected(MALFORMED, "presence is 0 or 1")
        m.present = w[3] == "1"
    else:
        m.ply = _int(w[3], 0 if kind == "S" else 1, MAX_PLY, "ply")
        if not is_hex(w[5], SUM_HEX):
            raise Rejected(MALFORMED, "the sum is not 8 hex digits")
        m.total = w[5]
        if kind == "M":
            m.move = _int(w[4], 1, 6, "move")
        else:
            m.record = w[4].replace("_", " ")
            try:
                variant, moves = record_moves(m.record)
            except ValueError as e:
                raise Rejected(MALFORMED, "state: %s" % e) from None
            if len(moves) != m.ply:
                raise Rejected(MALFORMED, "state of ply %d with %d moves" % (m.ply, len(moves)))
            if record_sum(m.record) != m.total:
                raise Rejected(MALFORMED, "the state's sum does not match its record")
    return m


# -- the receive rules -------------------------------------------------------------


def receive_move(game, peer_seat, ply, move, total):
    """A peer's move `move` (1..6) numbered `ply`, the record after it summing to
    `total`, against `game` (mancala.game.Game, the standard start), where the peer
    plays seat `peer_seat` (0 South, 1 North).  Returns (verdict, why):
    DUPLICATE (a move we hold already, the same: ignore quietly), GAP (beyond the next
    ply: read the peer's retained state), APPLIED (played on `game`), REFUSED (out of
    turn, illegal, or the record after it is not the peer's: `game` unchanged)."""
    n = game.ply
    variant = game.rules.id
    if ply <= n:
        moves = game.moves()
        if moves[ply - 1] == move - 1 and record_sum(record_of(variant, moves, ply)) == total:
            return DUPLICATE, ""
        return REFUSED, "ply %d does not match our record (we have %d there)" % (ply, moves[ply - 1] + 1)
    if ply > n + 1:
        return GAP, "ply %d while we are at %d" % (ply, n)
    if game.over:
        return REFUSED, "the game is over"
    if game.side != peer_seat:
        return REFUSED, "ply %d is not the other side's turn" % ply
    why = game.why_illegal(move - 1)
    if why is not None:
        return REFUSED, "illegal move %d: %s" % (move, why)
    game.play(move - 1)
    if record_sum(record_of(variant, game.moves())) != total:
        game.undo()
        return REFUSED, "the record after ply %d does not match the other side's" % ply
    return APPLIED, ""


def receive_state(game, record, own_seat=None):
    """A peer's whole record (checked already against its sum) against `game`.  Returns
    (verdict, why): APPLIED (the moves we lacked played on `game`), DUPLICATE (the same
    as ours), BEHIND (a prefix of ours: the peer will catch up from our state), REFUSED
    (another variant, a record that leaves ours, an illegal move, or a move of our own
    seat `own_seat` (0 South, 1 North) that we never made: `game` unchanged).
    A side saves each move before it sends it, so a move of ours we lack was never ours:
    the peer (or whoever holds the key) chose it, and it is refused."""
    try:
        variant, moves = record_moves(record)
    except ValueError as e:
        return REFUSED, str(e)
    if variant != game.rules.id:
        return REFUSED, "the other side plays %s, we play %s" % (variant, game.rules.id)
    n = game.ply
    ours = game.moves()
    k = min(n, len(moves))
    for i in range(k):
        if ours[i] != moves[i]:
            return REFUSED, "the records part at ply %d" % (i + 1)
    if len(moves) < n:
        return BEHIND, ""
    if len(moves) == n:
        return DUPLICATE, ""
    for i in range(n, len(moves)):
        why = game.why_illegal(moves[i])
        if why is None and own_seat is not None and game.side == own_seat:
            why = "a move of ours we never made"
        if why is not None:
            while game.ply > n:
                game.undo()
            return REFUSED, "ply %d: %s" % (i + 1, why)
        game.play(moves[i])
    return APPLIED, ""
