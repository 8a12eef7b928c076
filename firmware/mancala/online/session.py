"""One online game between two sides over an MQTT client (docs/ONLINE.md "Session").

Pairing (a offers a code, b joins with it, a acknowledges), moves out and in, the
retained state, the other side's presence, and resuming after a Wi-Fi drop, a broker
restart or a power cut: the game, the ids and the key are saved with the board's
storage (atomically, `Storage.save`) before anything is sent, and on every connection
a side publishes its presence and its whole state again, so the two sides meet on the
longer record whatever was lost.

Pure apart from what is injected: the client (mqtt.Client or any object with its
methods), the storage (hw/storage.Storage), the clock, and the game it plays in (a
mancala.game.Game: the board's own, so a board mode draws it as any game).  A board
mode drives it: `poll()` every loop turn, `play(pit)` for the person's move, `events()`
for what to show.
"""

from mancala.online import protocol as p

FILE = "online_game.json"

# phases
IDLE = "idle"
OFFERING = "offering"  # a: choosing a free code, then waiting for a join
JOINING = "joining"  # b: reading the offer, then sending joins until the ack
PLAYING = "playing"
OVER = "over"
FAILED = "failed"

# events (kind, text): what the board shows in light and the page says
EV_CODE = "code"  # a: the code to show
EV_PAIRED = "paired"
EV_FAILED = "failed"  # pairing did not work: the text says why
EV_MOVE = "move"  # the other side's move was played on the game (text: its ply)
EV_CAUGHT_UP = "caught up"  # moves taken from the other side's state
EV_PEER = "peer"  # the other side came or went (text: "here" / "away")
EV_IGNORED = "ignored"  # forged, malformed or foreign: ignored and said
EV_REPEAT = "repeat"  # a message we had already (a resend or a replay): ignored
EV_REFUSED = "refused"  # an illegal move, or a record that does not match: refused and said
EV_SAVE_FAILED = "save failed"
EV_OVER = "over"
EV_BROKER = "broker"  # the broker refused something while playing (text: what)

JOIN_EVERY_MS = 3000
LOOKUP_MS = 5000  # b looks for the offer this long before "no game with this code"
LOOKUP_AGAIN_MS = 400
JOIN_WAIT_MS = 60000  # b, holding the offer, gives up on a creator that never acks
CODES_MAX = 20  # a draws at most this many codes all taken before giving up
EVENTS_MAX = 16

# what is due to be sent (bits), sent as soon as the client is connected and has room
_SUBSCRIBE = 1
_HERE = 2
_STATE = 4
_OFFER = 8
_CLEAR_OFFER = 16
_ACK = 32
_JOIN = 64
_LOOKUP = 128


class Session:
    def __init__(self, client, storage, game, clock, archive=True):
        self.client = client
        self.storage = storage
        self.game = game
        self.clock = clock
        self.archive = archive
        client.on_message = self._on_message
        client.on_connect = self._on_connect
        self.phase = IDLE
        self.side = ""
        self.game_id = ""
        self.key_hex = ""
        self.key = b""
        self.variant = ""
        self.first = "a"
        self.code = ""
        self.nonce = ""  # b's join nonce; a: the nonce of the join it took
        self.archived = 0  # the finished game's number in the archive
        self.peer_present = None  # None: not known (not connected, or no word yet)
        self.peer_ply = -1  # the ply of the other side's last state we read
        self.why = ""  # why pairing failed
        self._events = []
        self._due = 0
        self._token = 0  # a sync token (code probe, offer lookup)
        self._taken = False  # the probed code holds an offer
        self._offer_seen = None
        self._since = clock.now()
        self._join_at = 0
        self._save_due = False  # a move arrived: saved in the next turn
        self._offer_pid = 0  # a: the offer's message until the broker has it
        self._lookup_at = None  # b: when to look for the offer again
        self._lookup_since = None  # b: the first lookup made while connected
        self._codes = 0  # a: codes drawn for this offer
        self._refused_subs = 0  # the client's count of refused subscriptions, seen
        self.diverged = False  # the other side's record parts from ours: the game waits
        self.ignored = 0  # forged, malformed, foreign messages
        self.repeats = 0
        self.refused = 0
        self._topics = None

    # -- what a board mode asks --------------------------------------------------------

    @property
    def seat(self):
        """This side's seat in the game: 0 South (moves first), 1 North."""
        return 0 if self.side == self.first else 1

    def my_turn(self):
        return self.phase == PLAYING and not self.game.over and self.game.side == self.seat and not self.diverged

    def connected(self):
        return self.client.connected

    def events(self):
        """The events since the last call, oldest first: [(kind, text)]."""
        ev = self._events
        if not ev:
            return ()  # (nothing: no new list, a board's idle turn allocates nothing)
        self._events = []
        return ev

    def _say(self, kind, text=""):
        if len(self._events) >= EVENTS_MAX:
            self._events.pop(0)
        self._events.append((kind, text))

    # -- starting ----------------------------------------------------------------------

    def create(self, variant, first="a"):
        """Offer a new game (side a): `first` ("a" or "b") moves first.  The code comes
        as an EV_CODE event once a free one is found on the broker."""
        from mancala.rules import get_rules

        get_rules(variant)  # (ValueError for an unknown variant)
        self._reset_game(variant)
        self.side, self.first, self.variant = "a", first, variant
        self.game_id = p.new_game_id()
        self.key_hex = p.new_key()
        self.key = p.key_bytes(self.key_hex)
        self.nonce = ""
        self._codes = 0
        self._new_code()
        self._enter(OFFERING)
        self._save()

    def _new_code(self):
        self.code = p.new_code()
        self._codes += 1
        self._taken = False
        self._token = 0
        self._due |= _LOOKUP

    def join(self, code):
        """Join the game offered under `code` (side b)."""
        if not p.code_ok(code):
            raise ValueError("a code is six digits 1..6")
        self.side = "b"
        self.code = code
        self.nonce = p.new_nonce()
        self.game_id = ""
        self._offer_seen = None
        self._token = 0
        self._lookup_since = self._lookup_at = None
        self._due |= _LOOKUP
        self._enter(JOINING)

    def resume(self):
        """Take up the game saved on this board, if there is one: True if so."""
        from mancala.hw.storage import OK

        status, obj = self.storage.load(FILE)
        if status != OK or not isinstance(obj, dict) or obj.get("v") != 1:
            return False
        try:
            phase = obj["phase"]
            if phase not in (OFFERING, JOINING, PLAYING, OVER) or obj["side"] not in p.SIDES or \
                    obj["first"] not in p.SIDES or not p.is_hex(obj["g"], p.ID_BYTES * 2):
                raise ValueError("its phase, side, first side or game id is not one")
            self.side = obj["side"]
            self.first = obj["first"]
            self.game_id = obj["g"]
            self.key_hex = obj["k"]
            self.key = p.key_bytes(self.key_hex)
            self.code = obj.get("code", "")
            self.nonce = obj.get("nonce", "")
            self.archived = obj.get("archived", 0)
            variant, moves = p.record_moves(obj["record"])
            self._reset_game(variant)
            for m in moves:
                self.game.play(m)
        except (KeyError, ValueError, TypeError) as e:
            self._say(EV_FAILED, "the saved online game is damaged: %s" % e)
            return False
        self.variant = variant
        self.diverged = False
        if phase == OFFERING:
            # the same code, probed again: our own offer on it is ours (the same text);
            # another's (ours expired and the code was taken since) means a new code
            self._codes = 1
            self._token = 0
            self._due |= _LOOKUP
        elif phase == JOINING:
            self._due |= _JOIN
        elif self.side == "a" and self.code:
            # a power cut between pairing and the offer's clearing: clear it again (it
            # holds the key; clearing an already empty code costs one message)
            self._due |= _CLEAR_OFFER | _ACK
        self._enter(OVER if self.game.over and phase in (PLAYING, OVER) else phase)
        if self.phase == OVER and self.archive:  # (a power cut between the save and the archive)
            if self.archived:
                self._archive()  # (writes nothing when the game is there already)
            else:
                self._persist()
        return True

    def _reset_game(self, variant):
        from mancala.rules import get_rules

        self.game.reset(get_rules(variant))
        self.diverged = False

    def _enter(self, phase):
        self.phase = phase
        self._since = self.clock.now()
        self._topics = None
        if phase in (PLAYING, OVER, OFFERING, JOINING) and self.game_id:
            t = self._topics = self._make_topics()
            # (18 bytes: MQTT 3.1.1 promises 23; a broker drops the dead connection of a
            # board that comes back under its id)
            self.client.client_id = "m%s%s" % (self.game_id, self.side)
            self.client.set_will(t[4], p.here_text(self.key, self.game_id, self.side, False), True)
            self._due |= _SUBSCRIBE | _HERE | (_STATE if phase in (PLAYING, OVER) else 0)
        self.client.start()

    def _make_topics(self):
        g, me, peer = self.game_id, self.side, p.other(self.side)
        return (p.game_topic(g, "m", peer), p.game_topic(g, "s", peer),
                p.game_topic(g, "here", peer), p.game_topic(g, "m", me),
                p.game_topic(g, "here", me), p.game_topic(g, "s", me),
                p.game_topic(g, "join"), p.game_topic(g, "ack"))

    def leave(self):
        """Stop playing online on this board: the saved online game is removed.  Once the
        game is over and the other side holds the same record, this side's retained
        messages are cleared from the broker too."""
        if self.phase == OVER and self.peer_ply == self.game.ply and self.client.connected and self._topics:
            t = self._topics
            self.client.publish(t[5], b"", True)
            self.client.publish(t[4], b"", True)
            if self.side == "a":  # the ack is a's retained message too
                self.client.publish(t[7], b"", True)
        if self.phase == OFFERING and self.client.connected:
            self.client.publish(p.pair_topic(self.code), b"", True)
        self.storage.remove(FILE)
        self.phase = IDLE
        self.client.stop()

    def _save(self):
        """The online game on flash; False (and said) if the flash refused."""
        obj = {"v": 1, "phase": self.phase, "side": self.side,
               "first": self.first, "g": self.game_id, "k": self.key_hex, "code": self.code,
               "nonce": self.nonce, "archived": self.archived,
               "record": p.record_of(self.game.rules.id, self.game.moves())}
        try:
            self.storage.save(FILE, obj)
        except OSError as e:
            self._say(EV_SAVE_FAILED, "the online game could not be saved (error %s)" % (e.args[0] if e.args else "?"))
            return False
        return True

    # -- the loop's step -----------------------------------------------------------------

    def poll(self, busy=False):
        """One step of the client and of the session's timers; never blocks.  At most
        one message is handled a turn, and the flash save of a move that arrived waits
        for the next turn: no turn does both.  busy=True (a pit is down, stones are being
        sown): only the socket's writes and the connection are kept, nothing is read or
        saved this turn."""
        client = self.client
        if self._save_due and not busy:
            self._save_due = False
            self._persist()  # the other side's move on flash; then our state says we have it
            self._due |= _STATE
            client.poll(False)
        else:
            client.poll(not busy)
        if not client.connected:
            if self.peer_present is not None:
                self.peer_present = None
            return
        now = self.clock.now()
        phase = self.phase
        refused = getattr(client, "refused_subs", 0)
        if refused != self._refused_subs:  # a subscription the broker refused (its ACL)
            self._refused_subs = refused
            if phase == OFFERING or phase == JOINING:
                if phase == OFFERING:
                    client.publish(p.pair_topic(self.code), b"", True)
                self._fail(client.last_error)
                return
            self._say(EV_BROKER, client.last_error)
        if self._due:
            self._send_due()
        if phase == OFFERING:
            if self._token > 0 and client.synced(self._token) is None:
                self._token = 0
                self._due |= _LOOKUP
            elif self._token > 0 and client.synced(self._token):
                self._token = -1
                client.unsubscribe(p.pair_topic(self.code))
                if self._taken and self._codes >= CODES_MAX:
                    self._fail("no free pairing code on the broker (%d tried)" % self._codes)
                    return
                if self._taken:
                    self._new_code()
                else:
                    self._due |= _OFFER
            if self._offer_pid and client.delivered(self._offer_pid):
                self._offer_pid = 0  # the offer is on the broker: the code may be shown
                self._say(EV_CODE, self.code)
            if self.clock.diff(now, self._since) > p.OFFER_LIFE_S * 1000:
                # (failed only once the clearing is taken: the offer holds the key)
                if client.publish(p.pair_topic(self.code), b"", True):
                    self._fail("no one joined in %d minutes" % (p.OFFER_LIFE_S // 60))
        elif phase == JOINING:
            if not self.game_id:
                s = client.synced(self._token) if self._token > 0 else False
                if s is None:
                    self._token = 0
                    self._due |= _LOOKUP
                elif s:
                    self._token = 0
                    # (counted from the first lookup made while connected, not from join())
                    since = self._lookup_since if self._lookup_since is not None else now
                    if self.clock.diff(now, since) < LOOKUP_MS:
                        self._lookup_at = now  # (an offer still on its way: look again)
                    else:
                        client.unsubscribe(p.pair_topic(self.code))
                        self._fail("no game with the code %s" % self.code)
                elif self._lookup_at is not None and self.clock.diff(now, self._lookup_at) >= LOOKUP_AGAIN_MS:
                    self._lookup_at = None
                    self._due |= _LOOKUP
            elif self.clock.diff(now, self._since) > JOIN_WAIT_MS:
                self._fail("the game's creator does not answer")
            elif self.clock.diff(now, self._join_at) >= JOIN_EVERY_MS:
                self._due |= _JOIN
                self._join_at = now

    def _send_due(self):
        c = self.client
        due = self._due
        held = 0
        if due & ~(_LOOKUP | _SUBSCRIBE) and not c.has_slot():
            held = due & ~(_LOOKUP | _SUBSCRIBE)  # (waits for a slot: nothing composed in vain)
            due &= _LOOKUP | _SUBSCRIBE
        t = self._topics
        if due & _LOOKUP:
            if self.phase == OFFERING or not self.game_id:
                if c.subscribe(p.pair_topic(self.code)):
                    tok = c.sync()
                    if tok:  # (no room for the marker now: subscribed again next turn)
                        self._token = tok
                        due &= ~_LOOKUP
                        if self._lookup_since is None and self.phase == JOINING:
                            self._lookup_since = self.clock.now()
            else:
                due &= ~_LOOKUP
        if due & _SUBSCRIBE and t is not None:
            # (our own `here` and `s` too: what the broker holds under our name is checked)
            if self.side == "a":
                subs = (t[0], t[1], t[2], t[4], t[5], t[6])
            else:
                subs = (t[0], t[1], t[2], t[4], t[5], t[7])
            ok = True
            for topic in subs:
                ok = ok and c.subscribe(topic) != 0
            if ok:
                due &= ~_SUBSCRIBE
        if due & _HERE and t is not None:
            if c.publish(t[4], p.here_text(self.key, self.game_id, self.side, True), True):
                due &= ~_HERE
        if due & _STATE and t is not None and not self._save_due:
            # (not while a move that arrived waits for its save: the state would say we
            # hold a move a power cut could still take from us)
            rec = p.record_of(self.game.rules.id, self.game.moves())
            text = p.state_text(self.key, self.game_id, self.side, self.game.ply, rec, p.record_sum(rec))
            if len(text) > p.MAX_TEXT or c.publish(t[5], text, True):
                due &= ~_STATE  # (a game past ~470 plies: its state no longer fits, its moves go on)
        if due & _OFFER and self.phase == OFFERING and self._token == -1:
            pid = c.publish(p.pair_topic(self.code), p.offer_text(self.game_id, self.key_hex, self.variant, self.first), True)
            if pid:
                due &= ~_OFFER
                self._offer_pid = pid
        if due & _CLEAR_OFFER:
            if c.publish(p.pair_topic(self.code), b"", True):
                due &= ~_CLEAR_OFFER
        if due & _ACK and t is not None:
            if c.publish(t[7], p.ack_text(self.key, self.game_id, self.nonce), True):
                due &= ~_ACK
        if due & _JOIN and t is not None and self.phase == JOINING:
            if c.publish(t[6], p.join_text(self.key, self.game_id, self.nonce), False):
                due &= ~_JOIN
                self._join_at = self.clock.now()
        elif due & _JOIN and self.phase != JOINING:
            due &= ~_JOIN
        self._due = due | held

    def _on_connect(self):
        self.peer_present = None
        self._due |= _SUBSCRIBE | _HERE
        if self.phase in (PLAYING, OVER):
            self._due |= _STATE
        if self.phase == OFFERING:
            if self._token >= 0:
                self._due |= _LOOKUP
            else:
                self._due |= _OFFER
        elif self.phase == JOINING:
            self._due |= _LOOKUP if not self.game_id else _JOIN

    def _fail(self, why):
        self.why = why
        self.phase = FAILED
        self.storage.remove(FILE)
        self._say(EV_FAILED, why)

    # -- the person's move ---------------------------------------------------------------

    def play(self, pit):
        """This side's move, pit 0..5: played, saved, then sent.  None, or why not."""
        if self.phase != PLAYING:
            return "no online game is being played"
        g = self.game
        if g.side != self.seat:
            return "it is the other side's turn"
        if self.diverged:
            return "the boards' records differ: waiting"
        why = g.why_illegal(pit)
        if why is not None:
            return why
        archived = self.archived
        g.play(pit)
        if not self._after_change():
            # never sent unsaved: a power cut would forget a move the other side holds
            g.undo()
            self.phase = PLAYING
            self.archived = archived
            return "the move could not be saved: not sent"
        rec = p.record_of(g.rules.id, g.moves())
        if self.client.connected and self._topics is not None:
            # (no slot free: the state, due below, carries the move all the same)
            self.client.publish(self._topics[3], p.move_text(self.key, self.game_id, self.side, g.ply,
                                                             pit + 1, p.record_sum(rec)), False)
        self._due |= _STATE
        if self.client.connected:
            self._send_due()
        return None

    def _after_change(self, later=False):
        """The game moved on (either side): saved before anything is sent (later: in the
        next turn, and the state sent after it); the end.  False if the save failed."""
        ended = self.game.over and self.phase == PLAYING
        if ended:
            self.phase = OVER
        ok = True
        if later:
            self._save_due = True
        else:
            ok = self._persist()
        if ended and ok:
            self._say(EV_OVER, p.record_of(self.game.rules.id, self.game.moves()))
        return ok

    def _persist(self):
        """Save; at the end, archive the record once: its number reserved in the save
        first, then the archive (which writes nothing if the game is there already), so
        a power cut between the two never archives the game twice."""
        over = self.phase == OVER and self.archive
        if over and not self.archived:
            self._reserve_number()
        ok = self._save()
        if over and ok and self.archived:
            self._archive()
        return ok

    def _reserve_number(self):
        rec = p.record_of(self.game.rules.id, self.game.moves())
        st = self.storage
        try:
            n = st.next_game_number()
            while st.archived(n, rec) < 0:  # (another game's number)
                n = st.next_game_number(n)
            self.archived = n
        except OSError as e:
            self._archive_failed(e)

    def _archive(self):
        rec = p.record_of(self.game.rules.id, self.game.moves())
        st = self.storage
        try:
            while not st.add_game(self.archived, rec):  # (taken since: a new number, saved first)
                self.archived = st.next_game_number(self.archived)
                if not self._save():
                    return
        except OSError as e:
            self._archive_failed(e)

    def _archive_failed(self, e):
        self._say(EV_SAVE_FAILED, "the finished game could not be archived (error %s)" % (e.args[0] if e.args else "?"))

    # -- what arrives --------------------------------------------------------------------

    def _on_message(self, topic, payload, retained):
        if not payload:
            return  # a cleared retained message
        if self.phase == OFFERING or (self.phase == JOINING and not self.game_id):
            if topic == p.pair_topic(self.code):
                self._on_offer(payload)
                return
        t = self._topics
        if t is None:
            return
        try:
            if topic == t[0] or topic == t[1] or topic == t[2]:
                m = p.parse(payload, self.key, self.game_id, p.other(self.side))
            elif topic == t[4] or topic == t[5]:
                m = p.parse(payload, self.key, self.game_id, self.side)
            elif topic == t[6] and self.side == "a":
                m = p.parse(payload, self.key, self.game_id, "b")
            elif topic == t[7] and self.side == "b":
                m = p.parse(payload, self.key, self.game_id, "a")
            else:
                return
        except p.Rejected as e:
            self.ignored += 1
            self._say(EV_IGNORED, "ignored a %s message: %s" % (e.kind, e.why))
            return
        kind = m.kind
        if topic == t[4]:
            if kind == "H" and not m.present and self.client.connected:
                self._due |= _HERE  # an old connection's will, after this one said "here"
            return
        if topic == t[5]:
            # a state under our name that is not ours (not our record, nor an older copy of
            # it: someone holding the key): ours again, so the other side, which refused
            # it and waits, meets our record
            if kind == "S":
                rec = p.record_of(self.game.rules.id, self.game.moves())
                if m.record != rec and not rec.startswith(m.record + " "):
                    self._due |= _STATE
            return
        if kind == "H" and topic == t[2]:
            if self.peer_present != m.present:
                self.peer_present = m.present
                self._say(EV_PEER, "here" if m.present else "away")
        elif kind == "J" and topic == t[6]:
            self._on_join(m)
        elif kind == "A" and topic == t[7]:
            self._on_ack(m)
        elif kind == "M" and topic == t[0]:
            self._on_move(m)
        elif kind == "S" and topic == t[1]:
            self._on_state(m)
        else:
            self.ignored += 1
            self._say(EV_IGNORED, "ignored a %s message on the wrong topic" % kind)

    def _on_offer(self, payload):
        if self.phase == OFFERING:
            if self._token > 0 and payload != p.offer_text(self.game_id, self.key_hex, self.variant, self.first).encode():
                self._taken = True
            return
        try:
            o = p.parse_offer(payload)
        except p.Rejected as e:
            self.ignored += 1
            self._say(EV_IGNORED, "ignored an offer: %s" % e.why)
            return
        self.game_id, self.key_hex, self.key = o.game_id, o.key_hex, p.key_bytes(o.key_hex)
        self.variant, self.first = o.variant, o.first
        self._reset_game(o.variant)
        self._token = 0
        self.client.unsubscribe(p.pair_topic(self.code))
        self._save_phase(JOINING)
        self._enter(JOINING)
        self._due |= _JOIN
        # connect again under the game's client id, with the last will that tells a
        # when b vanishes (a will is given only at a connection's start)
        self.client.reconnect()

    def _save_phase(self, phase):
        self.phase = phase
        self._save()

    def _on_join(self, m):
        if self.side != "a":
            return
        if self.phase == OFFERING:
            self.nonce = m.nonce
            self._save_phase(PLAYING)
            self._enter(PLAYING)
            self._due |= _ACK | _CLEAR_OFFER
            self._say(EV_PAIRED, "b joined")
        elif m.nonce == self.nonce:
            self._due |= _ACK | _CLEAR_OFFER  # b missed the ack (and the offer may still be up)
        else:
            self.ignored += 1
            self._say(EV_IGNORED, "ignored a second join: someone else has this game's key")

    def _on_ack(self, m):
        if self.side != "b":
            return
        if m.nonce != self.nonce:
            if self.phase == JOINING:
                self._fail("the game was taken by someone else")
            return
        if self.phase == JOINING:
            self._save_phase(PLAYING)
            self._enter(PLAYING)
            self._say(EV_PAIRED, "joined")

    def _peer_seat(self):
        return self.seat ^ 1

    def _on_move(self, m):
        if self.phase not in (PLAYING, OVER):
            return
        verdict, why = p.receive_move(self.game, self._peer_seat(), m.ply, m.move, m.total)
        if verdict == p.APPLIED:
            self._after_change(later=True)
            self._say(EV_MOVE, str(m.ply))
        elif verdict == p.DUPLICATE:
            self.repeats += 1
            self._say(EV_REPEAT, "ignored a repeated move (ply %d)" % m.ply)
        else:
            if verdict == p.REFUSED:
                self.refused += 1
                self._say(EV_REFUSED, "refused the other side's move: %s" % why)
            self._reread_state()

    def _reread_state(self):
        """Subscribe again to the other side's state: the broker sends the retained one."""
        if self._topics is not None and self.client.connected:
            self.client.subscribe(self._topics[1])

    def _on_state(self, m):
        if self.phase not in (PLAYING, OVER):
            return
        before = self.game.ply
        verdict, why = p.receive_state(self.game, m.record, self.seat)
        self.peer_ply = m.ply if verdict != p.REFUSED else self.peer_ply
        self.diverged = verdict == p.REFUSED  # (the game waits until the records agree)
        if verdict == p.APPLIED:
            self._after_change(later=True)
            self._say(EV_CAUGHT_UP, "%d moves from the other side's state" % (self.game.ply - before))
        elif verdict == p.BEHIND:
            self._due |= _STATE
        elif verdict == p.REFUSED:
            self.refused += 1
            self._say(EV_REFUSED, "refused the other side's record: %s" % why)
