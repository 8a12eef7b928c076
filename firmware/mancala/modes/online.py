"""Online play on a board with Wi-Fi: two boards, one game (docs/PLAYER_GUIDE.md
"Online", docs/ONLINE.md).  The online core (mancala/online/: the session, its MQTT
client, the link) plays the game; this mode is what a person sees and does.

  pairing
    the lobby ....... the South row is a keypad (pit 1..6 = digit 1..6, a dim white
                      glow on the places not yet entered); the North store blinks
                      green: tap it to offer a game (the menu's variant and "who
                      starts": South = this board, North = the other one, by lot)
    offering ........ the six-digit code on the South row (pit k shows digit k as
                      that many stones), kept until the other board has joined; the
                      North store pulses amber: waiting for it
    joining ......... six taps on the South row enter the code (shown as entered, as
                      the offering board shows it); the South store takes the last
                      digit back; the North store with fewer than six: "wrong code"
                      (a red flash); no game with that code: the row blinks red
  the game
    your turn ....... your playable pits glow in your colour: tap one, sow it as
                      guided (a move sent is final: no takeback, no hints online)
    their turn ...... a light runs along their row in their colour
    their move ...... its pit blinks in their colour: take its stones, tap it, sow
                      them as guided (as for the computer's move)
    the status ...... the other side's store glows in their colour while they are
                      there; it blinks amber while they are away, red while this
                      board is not online (Wi-Fi or broker); a refused or ignored
                      message flashes it red (their row too for a refused move)
    the end ......... as in a game; a tap: the menu (the game is in the archive)
  hold both stores .. the menu (in a game: hold again within 5 s to leave it)

Like the puzzles (modes/trainer.py) the mode keeps its state on itself and runs
alone: its module is imported when the menu (or the boot, to resume) starts it and
dropped when it ends, with the online core, so a board without Wi-Fi never loads it
and a local game never holds it.  The session saves the online game itself
(/data/online_game.json); this mode adds /data/online_shown.json, how far the stones
on the board have followed the game (a move of the other side not yet carried out
when the power went is shown again).

Press to light: the session's flash saves and message handling wait while a pit is
down or a frame is due (Session.poll(busy=True)), and the person's own move is handed
to the session (saved, signed, sent) in the quiet turn after its last stone lit.
"""

import sys

from mancala import modes as M
from mancala.game import END_REPETITION
from mancala.hw import pits as P
from mancala.hw.pixels import AMBER, GREEN, NORTH, RED, SOUTH, WHITE
from mancala.modes import MENU, Mode, family, put
from mancala.rules import MASK, N_STORE, POS_LEN, S_STORE, SIDE

ONLINE = family("online", "online")  # (the number modes/activities.py reserved)

STORES = (1 << S_STORE) | (1 << N_STORE)
ROW = 0x3F  # the South row's pits
SEAT_COLOURS = (SOUTH, NORTH)
SHOWN_FILE = "online_shown.json"

# stages
LOBBY = 0  # keypad, or offer a game
OFFER = 1  # a: the code shown, waiting for the other board
JOIN = 2  # b: the code entered, looking for the game
FAILED = 3  # pairing failed: the row blinks red, then the lobby
SELECT = 4  # this side's turn
WAIT = 5  # the other side's turn
SHOW = 6  # a move to carry out: its pit blinks
SOW = 7  # a move sown stone by stone
SEND = 8  # this side's move sown: handed to the session in the next quiet turn
ANIM = 9  # a capture, an extra turn, the end
OVER_ = 10
STAGE_NAMES = ("lobby", "offer", "join", "failed", "select", "wait", "show", "sow", "send",
               "anim", "over")

FAIL_MS = 3000  # "no game with this code": the row blinks red this long
LEAVE_MS = 5000  # in a game: the second hold of both stores within this leaves it
WAIT_STEP_MS = 400  # their turn: the running light's step


def read_settings(store, log=None):
    """The board's online settings (online/link.py's keys) or None: the file
    `mancala wifi` writes in the firmware's own format (its checksum checked)."""
    from mancala.online import link

    return link.load_settings(store)


def make_link(settings, clock):
    """Wi-Fi where the port has `network` (ESP32, Pico W); elsewhere (the unix port, the
    PC) the machine's own network: a link that is always up (online/link.FakeLink)."""
    from mancala.online import link

    try:
        w = link.WlanLink(settings, clock)
    except ImportError:
        return link.FakeLink()
    w.start()
    return w


def leave(app):
    """Out of online play to the menu: the session stopped, on the board this module
    and the online core let go, the local game saved before it back."""
    o = MODE
    if o.session is not None:
        o.session.leave()
        # the leave's clears acknowledged and DISCONNECT read before the socket goes (else
        # the broker publishes this board's will, "away", after a clean leave): a wait of
        # a few ms on a working network, 1.5 s at worst, once, on leaving online play
        o.session.client.finish()
    if o.link is not None and hasattr(o.link, "stop"):
        o.link.stop()
    o.session = o.client = o.link = None
    o.stage = LOBBY
    app.game = None
    app.meta = None
    M.forget("online")
    if sys.implementation.name == "micropython":  # (the PC keeps them: tests re-import)
        import mancala

        for name in ("mancala.online.session", "mancala.online.mqtt", "mancala.online.link",
                     "mancala.online.protocol", "mancala.online"):
            sys.modules.pop(name, None)
        try:
            delattr(mancala, "online")
        except (AttributeError, KeyError):  # (MicroPython: KeyError)
            pass
    try:
        app.boot_game()  # the local game under way before, if any (game.json)
    except MemoryError:
        app.game = None
        app.meta = None
    M.forget("start")  # (boot_game's module: the board's start drops it so too)
    app.item = 0
    app.set_mode(MENU)


class Online(Mode):
    name = "online"
    animated = True  # the keypad's blink, the running light, the status blinks
    game_frame = True

    def __init__(self):
        self.session = None
        self.client = None
        self.link = None
        self.stage = LOBBY
        self.t_stage = 0
        self.code = bytearray(6)  # the digits entered or shown, 1..6
        self.digits = 0
        self.before = bytearray(POS_LEN)  # the position before the move being carried
        self.scratch = bytearray(POS_LEN)
        self.path = b""
        self.sow_side = 0
        self.sow_pit = 0
        self.sow_i = 0
        self.sow_n = 0
        self.mine = False  # the move being sown is this side's own, not yet sent
        self.carried = 0  # plies of the game the stones on this board have followed
        self.shown_due = False  # online_shown.json to be written (a quiet turn)
        self.flags = 0
        self.anim_side = 0
        self.seat = 0
        self.t_leave = -1  # in a game: when both stores were first held (-1: not)

    # -- the session ---------------------------------------------------------------

    def enter(self, app):
        if self.session is not None:  # (back from a mode of its own: nothing to set up)
            return
        settings = read_settings(app.store)
        if settings is None:
            app.log("online: no Wi-Fi and broker settings on this board (/data/online.json):"
                    " set them with `mancala wifi`")
            app.no(1 << N_STORE)
            leave(app)
            return
        from mancala.online.link import describe, make_client
        from mancala.online.session import Session

        self.link = make_link(settings, app.clock)
        self.client = make_client(settings, self.link, app.clock)  # its own id: "m" + a nonce
        self.session = Session(self.client, app.store, app.session_game, app.clock)
        app.log("online: %s" % describe(settings))
        self.t_leave = -1
        if self.session.resume():
            self.resumed(app)
        else:
            self.digits = 0
            self.set_stage(app, LOBBY)

    def resumed(self, app):
        s = self.session
        app.log("online: back to the online game (%s, %d moves)" % (s.phase, s.game.ply))
        if s.phase == "offering":
            self.show_code(s.code)
            self.set_stage(app, OFFER)
        elif s.phase == "joining":
            self.show_code(s.code)
            self.set_stage(app, JOIN)
        elif s.phase in ("playing", "over"):
            self.begin_game(app, self.read_shown(app))
        else:
            self.set_stage(app, LOBBY)

    def read_shown(self, app):
        """How far the stones had followed the game when the power went: the plies
        saved in online_shown.json for this game, past this side's own moves (they
        were sown before they were sent)."""
        s = self.session
        g = s.game
        st, obj = app.store.load(SHOWN_FILE)
        n = g.ply
        if st == 0 and obj.get("g") == s.game_id and isinstance(obj.get("ply"), int):
            n = min(max(obj["ply"], 0), g.ply)
        seat = s.seat
        while n < g.ply and g.position_at(n)[SIDE] == seat:
            n += 1
        return n

    def show_code(self, code):
        for k in range(6):
            self.code[k] = ord(code[k]) - 48
        self.digits = 6

    def set_stage(self, app, stage):
        self.stage = stage
        self.t_stage = app.clock.now()
        app.dirty = True

    def begin_game(self, app, carried):
        """Paired (or back after a power cut): the session's game is the board's."""
        s = self.session
        g = s.game
        self.seat = s.seat
        app.game = g
        app.meta = {"number": s.archived, "human": 1 << s.seat, "level": 0, "hints": 0}
        self.carried = carried
        app.shown[:] = g.position_at(carried)[:14]
        app.hint_pit = -1
        self.next_stage(app)

    def next_stage(self, app):
        """What the board does next: a move to carry out, the end, this side's turn or
        the other side's."""
        s = self.session
        g = s.game
        if self.carried < g.ply:
            self.carry(app)
        elif g.over:
            app.shown[:] = g.pos[:14]
            self.set_stage(app, OVER_)
        elif s.my_turn():
            app.shown[:] = g.pos[:14]
            self.set_stage(app, SELECT)
        else:
            app.shown[:] = g.pos[:14]
            self.set_stage(app, WAIT)

    def carry(self, app):
        """The game's next move the stones have not followed: its pit blinks."""
        g = self.session.game
        self.before[:] = g.position_at(self.carried)
        app.shown[:] = self.before[:14]
        self.begin_sow(self.before, g.moves()[self.carried])
        self.mine = False
        self.set_stage(app, SHOW)

    def begin_sow(self, pos, pit):
        side = pos[SIDE]
        self.sow_side = side
        self.sow_pit = pit
        path = self.session.game.rules.paths[side * 6 + pit]
        n = pos[side * 7 + pit]
        if self.session.game.rules.name == "mangala" and n == 1:
            self.path = path[1:2]  # (as modes/play.py begin_move sows it)
        else:
            self.path = path[:n]
        self.sow_n = len(self.path)
        self.sow_i = 0

    # -- the loop's turn -------------------------------------------------------------

    def tick(self, app, now, el):
        s = self.session
        if s is None:
            return None
        # a pit down or a frame due (a press being answered): the session neither
        # reads nor saves this turn, nor is this side's move sent; else at most one
        # flash write a turn
        busy = app.pits.touched() != 0 or app.frame_pending()
        if not busy:
            if self.stage == SEND:
                self.send(app)
                busy = True
            elif self.shown_due:
                self.shown_due = False
                app.saved(app.store_call(app.store.save, SHOWN_FILE,
                                         {"g": s.game_id, "ply": self.carried}))
                busy = True
        self.link.poll()
        s.poll(busy)
        ev = s.events()
        if ev:
            for kind, text in ev:
                self.event(app, kind, text)
        if self.session is None:
            return None  # (left: a failure said)
        st = self.stage
        el = app.clock.diff(now, self.t_stage)
        if st <= JOIN or st == WAIT or st == SHOW:  # waiting on the other side: the
            if app.idle is not None:  # board stays awake (its dim, dark loop polls nothing)
                app.idle.t_active = now
        if st == FAILED:
            if el >= FAIL_MS:
                self.digits = 0
                self.set_stage(app, LOBBY)
        elif st == WAIT or st == SELECT:
            if self.carried < s.game.ply or s.game.over or (st == SELECT) != s.my_turn():
                self.next_stage(app)
        elif st == SHOW:
            if app.settings["quick"] and el >= app.SHOW_MS:
                self.start_sow(app)
        elif st == SOW:
            if app.settings["quick"] and el >= app.QUICK_MS:
                self.drop(app)
        elif st == ANIM:
            if el >= app.ANIM_MS:
                self.after_anim(app)
        if self.t_leave >= 0 and app.clock.diff(now, self.t_leave) >= LEAVE_MS:
            self.t_leave = -1
            app.dirty = True
        return None

    def event(self, app, kind, text):
        """What the session said: the light and the console."""
        s = self.session
        if kind == "code":
            self.show_code(text)
            app.log("online: the code is %s: enter it on the other board (six taps on its "
                    "South row)" % text)
            app.dirty = True
        elif kind == "paired":
            g = s.game
            app.log("online: paired (%s): %s; you play %s, %s first" % (
                text, g.rules.id, "South" if s.seat == 0 else "North",
                "you move" if s.seat == 0 else "the other side moves"))
            self.begin_game(app, 0)
        elif kind == "failed":
            app.log("online: " + text)
            if self.stage <= FAILED:
                self.set_stage(app, FAILED)
            else:  # (a saved game found damaged at the start)
                self.digits = 0
                self.set_stage(app, LOBBY)
        elif kind == "move":
            m = s.game.moves()
            k = int(text) - 1
            if 0 <= k < len(m):
                app.log("online: the other side played pit %d (move %s)" % (m[k] + 1, text))
        elif kind == "caught up":
            app.log("online: " + text)
        elif kind == "peer":
            app.log("online: the other side is " + text)
            app.dirty = True
        elif kind == "refused" or kind == "ignored":
            app.log("online: " + text)
            peer = (self.seat ^ 1) * 7
            app.no((ROW << peer | 1 << (peer + 6)) if kind == "refused" else 1 << (peer + 6))
        elif kind == "save failed":
            app.saved(text)
        elif kind == "over":
            app.log("online: the game is over: " + text)

    def send(self, app):
        """This side's move, sown: the session plays it on the game, saves it, sends it."""
        s = self.session
        g = s.game
        self.scratch[:] = g.pos
        flags = g.rules.move(self.scratch, self.sow_pit)
        why = s.play(self.sow_pit)
        if why is not None:
            app.log("online: the move was not played: " + why)
            app.no(1 << (self.sow_side * 7 + self.sow_pit))
            self.next_stage(app)
            return
        self.carried = g.ply
        self.end_move(app, flags)

    def end_move(self, app, flags):
        self.flags = flags
        self.anim_side = self.sow_side
        if flags or self.session.game.over and self.carried == self.session.game.ply:
            self.set_stage(app, ANIM)
        else:
            self.after_anim(app)

    def after_anim(self, app):
        g = self.session.game
        app.shown[:] = g.position_at(self.carried)[:14]
        self.next_stage(app)

    # -- the person's hands ----------------------------------------------------------

    def on_event(self, app, kind, arg):
        if kind == P.LONG:
            if arg == STORES:
                self.hold_stores(app)
            return
        if self.session is None:
            return
        if kind == P.CHORD:
            self.chord(app, arg)
        elif kind == P.TAP:
            self.tap(app, arg)

    def hold_stores(self, app):
        st = self.stage
        if st >= SELECT and st != OVER_ and self.t_leave < 0:
            self.t_leave = app.clock.now()  # (the stores blink red: hold again to leave)
            app.log("online: hold both stores again to leave the online game")
            app.dirty = True
            return
        if st >= SELECT and st != OVER_:
            app.log("online: the online game was left on this board")
        leave(app)

    def chord(self, app, mask):
        # the chords of a local game (modes/game.py) have no online meaning: said
        lo = mask & ROW if mask & ROW else mask >> 7 & ROW
        if lo == 0x21:
            app.log("online: no takeback in an online game (a move sent is final)")
        elif lo == 0x0C:
            app.log("online: no hints in an online game")
        elif mask == STORES:
            app.log("online: no end by agreement in an online game")
        app.no(mask)

    def tap(self, app, pit):
        st = self.stage
        if st == LOBBY:
            self.key(app, pit)
        elif st == FAILED:
            self.digits = 0
            self.set_stage(app, LOBBY)
        elif st == SELECT:
            g = self.session.game
            side = g.side
            k = pit - side * 7
            if not 0 <= k < 6 or not g.pos[MASK] >> k & 1:
                app.no(1 << pit)
                return
            self.begin_sow(g.pos, k)
            self.mine = True
            self.start_sow(app)
        elif st == SHOW:
            if pit == self.sow_side * 7 + self.sow_pit:
                self.start_sow(app)
            else:
                app.no(1 << pit)
        elif st == SOW:
            if app.settings["quick"] or self.path[self.sow_i] != pit:
                if not app.settings["quick"]:
                    app.no(1 << pit)
                return
            self.drop(app)
        elif st == OVER_:
            leave(app)
        elif st == WAIT:
            app.no(1 << pit)  # (their turn)

    def key(self, app, pit):
        """The lobby: a digit, the last one taken back, a game offered."""
        if pit < 6:
            self.code[self.digits] = pit + 1
            self.digits += 1
            app.dirty = True
            if self.digits == 6:
                code = "".join("%d" % d for d in self.code)
                app.log("online: joining the game with the code %s" % code)
                self.session.join(code)
                self.set_stage(app, JOIN)
        elif pit == S_STORE:
            if self.digits:
                self.digits -= 1
                app.dirty = True
            else:
                app.no(1 << S_STORE)
        elif pit == N_STORE:
            if self.digits:
                app.log("online: wrong code: a code is six digits, %d entered" % self.digits)
                app.no((1 << self.digits) - 1 | 1 << N_STORE)
                return
            s = app.settings
            starter = s["starter"]
            if starter == 2:
                starter = app.rng.next() & 1
            first = "a" if starter == 0 else "b"
            app.log("online: offering a game of %s, %s first" % (
                s["variant"], "this board" if first == "a" else "the other board"))
            self.digits = 0
            self.session.create(s["variant"], first)
            self.set_stage(app, OFFER)
        else:
            app.no(1 << pit)

    def start_sow(self, app):
        app.shown[self.sow_side * 7 + self.sow_pit] = 0  # the stones are in the hand
        self.set_stage(app, SOW)

    def drop(self, app):
        app.shown[self.path[self.sow_i]] += 1
        self.sow_i += 1
        self.t_stage = app.clock.now()
        app.dirty = True
        if self.sow_i < self.sow_n:
            return
        if self.mine:
            self.set_stage(app, SEND)  # (sent in the next quiet turn: the light first)
            return
        self.scratch[:] = self.before
        flags = self.session.game.rules.move(self.scratch, self.sow_pit)
        self.carried += 1
        self.shown_due = True
        self.end_move(app, flags)

    # -- the light -----------------------------------------------------------------

    def draw(self, app, px, el, phase):
        st = self.stage
        el = app.clock.diff(app.clock.now(), self.t_stage)
        if st <= FAILED:
            self.draw_pairing(app, px, st, el, phase)
            return
        shown = app.shown
        g = self.session.game
        legal = 0
        if st == SELECT:
            legal = g.pos[MASK] << (g.side * 7)
        col = SEAT_COLOURS[g.side]
        for i in range(14):
            px.count(i, shown[i], col if legal >> i & 1 else None)
        peer = (self.seat ^ 1) * 7
        self.draw_status(app, px, peer + 6, phase)  # (under the stage's own lights)
        if st == WAIT and self.session.peer_present:
            k = peer + (el // WAIT_STEP_MS) % 6  # their turn: a light runs along their row
            px.count(k, shown[k], SEAT_COLOURS[self.seat ^ 1])
        elif st == SHOW and phase:
            px.fill(self.sow_side * 7 + self.sow_pit, SEAT_COLOURS[self.sow_side])
        elif st == SOW or st == SEND:
            if self.sow_i < self.sow_n:
                t = self.path[self.sow_i]
                px.count(t, shown[t], WHITE)
                if shown[t] >= app.spans[t][1] and phase:
                    px.fill(t, WHITE)
        elif st == ANIM:
            self.draw_anim(app, px, el, phase)
        elif st == OVER_:
            self.draw_over(app, px, phase)
        if self.t_leave >= 0 and phase:
            px.fill(S_STORE, RED, 3)
            px.fill(N_STORE, RED, 3)

    def draw_status(self, app, px, store, phase):
        """The other side's store: their colour while they are there, amber blinking
        while away, red blinking while this board is not online."""
        s = self.session
        n = app.shown[store]
        if not s.client.connected:
            bg = RED if phase else None
        elif not s.peer_present:
            bg = AMBER if phase else None
        else:
            bg = SEAT_COLOURS[self.seat ^ 1]
        if app.single and bg is not None and bg is not NORTH and bg is not SOUTH:
            px.fill(store, bg)  # (one LED: its count's colour, or the warning's)
        else:
            px.count(store, n, bg)

    def draw_anim(self, app, px, el, phase):
        M.draw_move_made(px, self.flags, self.anim_side, SEAT_COLOURS[self.anim_side], el, phase)

    def draw_over(self, app, px, phase):
        g = self.session.game
        w = g.winner()
        for i in range(14):
            if i == S_STORE or i == N_STORE:
                continue
            c = SEAT_COLOURS[(i + phase) & 1] if w == -1 else SEAT_COLOURS[w]
            if g.end == END_REPETITION:  # (amber blinks, as modes/play.py's end)
                c = c if phase else AMBER
            px.fill(i, c, 3)
        px.count(S_STORE, app.shown[S_STORE], SOUTH)
        px.count(N_STORE, app.shown[N_STORE], NORTH)

    def draw_pairing(self, app, px, st, el, phase):
        code = self.code
        n = self.digits
        for i in range(6):
            if i < n:
                if st == FAILED:
                    px.fill(i, RED if phase else (0, 0, 0))
                else:
                    px.count(i, code[i], None)
            elif st == LOBBY:
                px.count(i, 0, WHITE)  # a place still to enter
            elif st == FAILED:
                px.fill(i, RED if phase else (0, 0, 0))
            else:
                px.count(i, 0, None)
        for i in range(7, 13):
            px.count(i, 0, None)
        s = self.session
        px.count(S_STORE, 0, RED if st == LOBBY and n else None)  # take the last digit back
        if st == LOBBY and not n:
            px.fill(N_STORE, GREEN, 1 if phase else 4)  # offer a game (as the menu's start)
        elif (st == OFFER or st == JOIN) and phase:
            # not online (yet): red; online, waiting for the other board: amber
            px.fill(N_STORE, AMBER if s.client.connected else RED, 2)
        else:
            px.count(N_STORE, 0, None)


MODE = Online()
put(ONLINE, MODE)
