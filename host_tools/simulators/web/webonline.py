"""The page as a player of an online game (docs/ONLINE.md "The page as a player").

Runs in the page's MicroPython WebAssembly VM beside the board (webboard.py).  The game
is the firmware's own: `mancala.online.session.Session` (pairing, moves out and in, the
signatures, the receive rules, the retained states, resuming) on the firmware's own MQTT
client (`mancala.online.mqtt.Client`), whose socket is a browser WebSocket
(wssocket.py, online.js): the same code a board runs, nothing of the protocol written
again for the page.  The board's storage (`app.store`, the page's /data, kept in the
browser's localStorage) holds the online game as a board's flash does, so a reload takes
it up again (`resume`).

While an online game is on, the page turns this object instead of the board's loop
(`step`), and the board's LEDs show it through the firmware's own Pixels (`app.px`):

  the code (side a, until b joins)   one digit per pit of the South row, as a count
                                     (pit i lights d_i stones' worth), as the board shows it
  the counts                         every pit and store, as in a game
  this side's turn                   its playable pits on its colour (blue South, magenta North)
  the other side's move              its pit blinks in the other side's colour (2 s)
  refused or ignored                 both stores flash red (and a line says what and why)
  waiting (connecting, pairing)      one amber light runs round the North store
  the other side away                one amber light runs slowly round its store
  over                               the counts on the winner's colour

Its words (`words`, `status`) say whose turn it is, whether the other side is there,
the connection, and every refused or ignored message.  The broker's user and password
live only in this object (the browser's memory): never saved, never shown back.
"""

import json

from mancala.game import Game
from mancala.hw.clock import Clock
from mancala.hw.pixels import AMBER, NORTH, RED, SOUTH
from mancala.online import protocol as p
from mancala.online import session as S
from mancala.rules import N_STORE, S_STORE, get_rules

SIDE_COLOURS = (SOUTH, NORTH)
SEAT_NAMES = ("South", "North")
MOVE_BLINK_MS = 2000
FLASH_MS = 900
LOG_MAX = 40
KEEPALIVE_S = 30


def parse_url(url):
    """'ws://host:port/path' -> (server, port, url): the client's server and port
    (its words name them), the WebSocket's whole address.  ValueError says why not."""
    url = (url or "").strip()
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme not in ("ws", "wss"):
        raise ValueError("the broker's address is ws://host:port (wss://host:port for TLS), "
                         "its WebSocket listener")
    rest = url.split("://", 1)[1]
    hostport = rest.split("/", 1)[0]
    path = rest[len(hostport):] or "/"
    if not hostport:
        raise ValueError("no host in the broker's address %s" % url)
    if hostport.startswith("["):  # [IPv6]:port
        host, _, tail = hostport[1:].partition("]")
        host = "[" + host + "]"
        port_text = tail[1:] if tail.startswith(":") else ""
    elif ":" in hostport:
        host, port_text = hostport.rsplit(":", 1)
    else:
        host, port_text = hostport, ""
    if port_text:
        try:
            port = int(port_text)
        except ValueError:
            port = 0
        if not 0 < port < 65536:
            raise ValueError("the port in %s is not a number 1..65535" % url)
    else:
        port = 443 if scheme == "wss" else 80
    return scheme + "://" + host, port, "%s://%s:%d%s" % (scheme, host, port, path)


class WebOnline:
    """One online game played on the page: `create`, `join` or `resume`, then `step`
    every page turn, `tap` for a click on a pit, `words` / `status` for the panel."""

    def __init__(self, wb, clock=None):
        self.wb = wb
        self.app = wb.app
        self.clock = clock or Clock()
        self.session = None
        self.closing = None  # a client leaving (mqtt CLOSING), polled until closed
        self.client = None
        self.game = None
        self.log = []  # [(kind, text)]: what happened, oldest first
        self.frames = 0
        self.drawn_at = None  # when the last frame was drawn
        self.dirty = True
        self.moved_pit = -1  # the other side's last move (board index), blinking
        self.t_moved = 0
        self.flash = 0  # pits flashing red (bit mask)
        self.t_flash = 0
        self.connects = 0
        self.event = ""  # the last thing that happened, for the page's list
        self.noted = 0  # lines noted in all (the log keeps the last LOG_MAX)
        self.fs_version = -1

    # -- starting ------------------------------------------------------------------------

    def saved(self):
        """The online game saved on this board's /data, as JSON ({} if none): what the
        page offers to take up after a reload (never the key)."""
        from mancala.hw.storage import OK

        status, obj = self.app.store.load(S.FILE)
        if status != OK or not isinstance(obj, dict) or obj.get("phase") not in (S.OFFERING, S.JOINING, S.PLAYING, S.OVER):
            return "{}"
        return json.dumps({"phase": obj.get("phase"), "side": obj.get("side"), "code": obj.get("code"),
                           "record": obj.get("record")})

    def forget(self):
        """Remove the saved online game (the page's "forget" of a game not taken up)."""
        self.app.store.remove(S.FILE)

    def _begin(self, url, user, password):
        import wssocket

        from mancala.online.mqtt import Client

        server, port, full = parse_url(url)
        wssocket.urls[(server, port)] = full
        if self.session is not None:
            self.leave()
        self.client = Client("m" + p.new_nonce(), server, port, user=user or None,
                             password=password or None, keepalive_s=KEEPALIVE_S, clock=self.clock,
                             socket_module=wssocket)  # the client's socket: the browser's WebSocket
        self.client.on_drop = self._dropped
        self.game = Game(get_rules("kalah"))
        self.session = S.Session(self.client, self.app.store, self.game, self.clock)
        self.log = []
        self.connects = 0
        self.moved_pit = -1
        self.flash = 0
        self.dirty = True

    def create(self, url, user, password, variant, first):
        """Offer a game (side a): `first` "a" (this page moves first) or "b".  '' or why not."""
        try:
            self._begin(url, user, password)
            self.session.create(variant, first)
        except ValueError as e:
            self.session = None
            return str(e)
        self._note("start", "offering a %s game on %s; %s moves first" % (
            variant, self.client.server + ":%d" % self.client.port, "this page" if first == "a" else "the other side"))
        return ""

    def join(self, url, user, password, code):
        """Join the game offered under `code` (side b).  '' or why not."""
        code = "".join(c for c in str(code) if not c.isspace())
        if not p.code_ok(code):
            return "a code is six digits, each 1 to 6 (as the board shows it: one count per pit)"
        try:
            self._begin(url, user, password)
            self.session.join(code)
        except ValueError as e:
            self.session = None
            return str(e)
        self._note("start", "joining the game %s on %s" % (code, self.client.server + ":%d" % self.client.port))
        return ""

    def resume(self, url, user, password):
        """Take up the online game saved on this board.  '' or why not."""
        try:
            self._begin(url, user, password)
        except ValueError as e:
            self.session = None
            return str(e)
        if not self.session.resume():
            why = "; ".join(t for k, t in self.session.events() if k == S.EV_FAILED) or "no online game saved"
            self.session = None
            return why
        self._note("start", "taking up the saved online game (%s)" % self._record())
        return ""

    def active(self):
        return self.session is not None

    def leave(self):
        """Stop: the session leaves (the saved online game removed) and the board's own
        loop takes the LEDs back."""
        if self.session is not None:
            self.session.leave()  # its client CLOSING: step() polls it until it is closed
            self.closing = self.client
        self.session = None
        self.client = None
        self.app.dirty = True  # the board draws its whole frame again
        self.wb.writes = -1

    # -- the page's turn ---------------------------------------------------------------------

    def step(self, ms=0):
        """One turn: the session's step (the client's), what happened, and a frame
        ('frame|online|scale|0|fs version|GRB hex', as WebBoard.frame) when the LEDs
        changed, else ''."""
        s = self.session
        if self.closing is not None:  # a leave's clears acknowledged, then DISCONNECT
            self.closing.poll()
            if self.closing.closed:
                self.closing = None
        if s is None:
            return ""
        s.poll()
        c = self.client
        if c.connects != self.connects:
            self.connects = c.connects
            self._note("connected", "connected to the broker")
            self.dirty = True
        for kind, text in s.events():
            self._on_event(kind, text)
        if self.wb.fs.version != self.fs_version:  # a save: the page keeps /data
            self.fs_version = self.wb.fs.version
            self.dirty = True
        now = self.clock.now()
        if self.moved_pit >= 0 and self.clock.diff(now, self.t_moved) > MOVE_BLINK_MS:
            self.moved_pit = -1
            self.dirty = True
        if self.flash and self.clock.diff(now, self.t_flash) > FLASH_MS:
            self.flash = 0
            self.dirty = True
        animated = self.moved_pit >= 0 or self.flash or self._waiting() or self._peer_away()
        if not self.dirty and not (animated and (self.drawn_at is None or self.clock.diff(now, self.drawn_at) >= 100)):
            return ""
        self.dirty = False
        self.drawn_at = now
        self._draw(now)
        self.frames += 1
        f = self.wb.frame()
        return "%d|online|%s" % (self.frames, f.split("|", 2)[2])

    def _dropped(self, why):
        self._note("drop", "the connection to the broker ended: %s" % why)
        self.dirty = True

    def _note(self, kind, text):
        self.log.append((kind, text))
        self.noted += 1
        if len(self.log) > LOG_MAX:
            self.log.pop(0)
        self.event = text

    def _on_event(self, kind, text):
        s = self.session
        self.dirty = True
        if kind == S.EV_CODE:
            self._note(kind, "the code is %s: give it to the other player (it lives 10 minutes)" % text)
        elif kind == S.EV_PAIRED:
            self._note(kind, "paired: %s; this page plays %s" % (
                "the other side joined" if s.side == "a" else "joined the game", SEAT_NAMES[s.seat]))
        elif kind == S.EV_MOVE or kind == S.EV_CAUGHT_UP:
            g = self.game
            if g.ply:
                mover = g.position_at(g.ply - 1)[14]  # (the side to move before the last move)
                pit = g.moves()[-1]
                if mover != s.seat:
                    self.moved_pit = pit + 7 * mover
                    self.t_moved = self.clock.now()
            if kind == S.EV_MOVE:
                self._note(kind, "the other side played %s%d (move %s)" % ("SN"[s.seat ^ 1], g.moves()[-1] + 1, text))
            else:
                self._note(kind, "caught up: %s" % text)
        elif kind == S.EV_PEER:
            self._note(kind, "the other side is %s" % ("here" if text == "here" else "away (not connected)"))
        elif kind == S.EV_IGNORED or kind == S.EV_REFUSED:
            self.flash = (1 << S_STORE) | (1 << N_STORE)
            self.t_flash = self.clock.now()
            self._note(kind, text)
        elif kind == S.EV_REPEAT:
            pass  # a resend or a replay: ignored quietly (the session counts them)
        elif kind == S.EV_OVER:
            self._note(kind, "game over: %s; record %s" % (self._result(), text))
        else:  # failed, save failed
            self._note(kind, text)

    def tap(self, pit):
        """A click on board pit `pit` (0..13): this side's move if it is one.  '' or why
        not (the pit flashes red then)."""
        s = self.session
        if s is None or s.phase != S.PLAYING:
            why = "no online game is being played" if s is None else self._waiting_words()
        else:
            seat = s.seat
            first = 7 * seat
            if not first <= pit < first + 6:
                why = "your pits are the %s row" % SEAT_NAMES[seat]
            else:
                why = s.play(pit - first) or ""
        if why:
            self.flash = 1 << pit
            self.t_flash = self.clock.now()
            self.event = why
        self.dirty = True
        return why

    # -- drawing -------------------------------------------------------------------------------

    def _waiting(self):
        s = self.session
        return s is not None and (not s.connected() or s.phase in (S.OFFERING, S.JOINING))

    def _peer_away(self):
        s = self.session
        return s.phase == S.PLAYING and s.peer_present is False

    def _draw(self, now):
        px = self.app.px
        s = self.session
        g = self.game
        px.begin()
        blink_on = (now // 250) & 1 == 0
        if s.phase == S.OFFERING and s.code and not self._code_pending():
            for i in range(6):
                px.count(i, int(s.code[i]))
        elif s.phase in (S.PLAYING, S.OVER):
            pos = g.pos
            legal = g.legal_mask() if s.my_turn() else 0
            bg_col = SIDE_COLOURS[s.seat]
            w = g.winner()
            for i in range(14):
                bg = None
                if w is not None and w >= 0 and i != S_STORE and i != N_STORE:
                    bg = SIDE_COLOURS[w]
                elif 7 * s.seat <= i < 7 * s.seat + 6 and legal >> (i - 7 * s.seat) & 1:
                    bg = bg_col
                if i == self.moved_pit and not blink_on:
                    px.fill(i, SIDE_COLOURS[s.seat ^ 1])
                else:
                    px.count(i, pos[i], bg)
        if self._waiting():
            px.dot(N_STORE, (now // 120) % px.spans[N_STORE][1], AMBER, 2)
        elif self._peer_away():
            store = S_STORE if s.seat else N_STORE
            px.dot(store, (now // 400) % px.spans[store][1], AMBER, 2)
        if self.flash and blink_on:
            for i in range(14):
                if self.flash >> i & 1:
                    px.fill(i, RED)
        px.show()

    def _code_pending(self):
        # the code is shown once the offer is on the broker (the session's EV_CODE)
        return not any(k == S.EV_CODE for k, _ in self.log)

    # -- words ---------------------------------------------------------------------------------

    def _record(self):
        g = self.game
        return p.record_of(g.rules.id, g.moves()) if g is not None else ""

    def _result(self):
        g = self.game
        w = g.winner()
        if w is None:
            return "not over"
        score = "%d-%d" % (g.pos[S_STORE], g.pos[N_STORE])
        if w < 0:
            return "a draw, %s" % score
        return "%s won %s (%s)" % (SEAT_NAMES[w], score, "this page" if w == self.session.seat else "the other side")

    def _waiting_words(self):
        s = self.session
        if s.phase == S.OFFERING:
            return "waiting for the other player to join with the code"
        if s.phase == S.JOINING:
            return "joining the game"
        if s.phase == S.OVER:
            return "the game is over"
        if s.phase == S.FAILED:
            return s.why
        return "no online game is being played"

    def _turn_words(self):
        s = self.session
        if s.phase == S.PLAYING:
            if s.my_turn():
                return "your turn: play a pit of the %s row" % SEAT_NAMES[s.seat]
            return "the other side's turn (%s)" % SEAT_NAMES[s.seat ^ 1]
        return self._waiting_words()

    def _peer_words(self):
        s = self.session
        if not s.connected():
            return "not known (this page is not connected)"
        if s.peer_present is None:
            return "not known yet" if s.phase in (S.PLAYING, S.OVER) else "no one yet"
        return "here" if s.peer_present else "away (not connected)"

    def _connection_words(self):
        c = self.client
        if c.connected:
            return "connected"
        why = c.last_error
        return "connecting" + (" (last: %s)" % why if why else "")

    def status(self):
        """The online game for the page's panel and the tests, as JSON."""
        s = self.session
        if s is None:
            return json.dumps({"active": False})
        g = self.game
        out = {"active": True, "phase": s.phase, "side": s.side, "variant": s.variant,
               "code": s.code if s.side == "b" or not self._code_pending() else "",
               "seat": SEAT_NAMES[s.seat] if s.phase in (S.PLAYING, S.OVER) else None,
               "my_turn": s.my_turn(), "turn": self._turn_words(),
               "peer": s.peer_present, "peer_words": self._peer_words(),
               "connected": s.connected(), "connection": self._connection_words(),
               "record": self._record() if s.phase in (S.PLAYING, S.OVER) else "",
               "ply": g.ply, "over": s.phase == S.OVER, "result": self._result() if s.phase == S.OVER else "",
               "failed": s.why if s.phase == S.FAILED else "",
               "ignored": s.ignored, "refused": s.refused, "repeats": s.repeats,
               "log": [[k, t] for k, t in self.log], "noted": self.noted}
        return json.dumps(out)

    def words(self):
        """As WebBoard.words: the lines beside the board, the pits' labels, the last event."""
        s = self.session
        lines = []
        counts = [""] * 14
        if s is not None:
            if s.phase == S.OFFERING:
                if self._code_pending():
                    lines.append("Online: putting the offer on the broker (%s)" % self._connection_words())
                else:
                    lines.append("Online: the code is %s: the other player joins with it" % s.code)
                    lines.append("(the South row shows it: one digit per pit, as a count)")
                    for i in range(6):
                        counts[i] = int(s.code[i])
            elif s.phase == S.JOINING:
                lines.append("Online: joining the game %s (%s)" % (s.code, self._connection_words()))
            elif s.phase == S.FAILED:
                lines.append("Online: " + s.why)
            else:
                lines.append("Online: " + (("game over: " + self._result()) if s.phase == S.OVER else self._turn_words()))
                lines.append("the other side: " + self._peer_words())
                counts = [self.game.pos[i] for i in range(14)]
        return json.dumps({"lines": lines, "counts": counts, "menu": None, "event": self.event})
