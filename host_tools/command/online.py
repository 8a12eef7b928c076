"""`mancala online`: an online game from the PC's terminal, against a board, the page or
another PC (docs/ONLINE.md "From the PC").

    mancala online create --broker HOST[:PORT] [--variant kalah] [--first a|b] [--tls]
                          [--user USER [--password-stdin]] [--data DIR]
    mancala online join CODE --broker HOST[:PORT] [...]
    mancala online resume [--broker HOST[:PORT]] [...]
    mancala online leave [--data DIR]

The PC speaks exactly what a board speaks: the firmware's own session
(firmware/mancala/online/session.py) on the firmware's own MQTT client (mqtt.py, which
runs in CPython over a socket), its game saved with the firmware's storage in the
user's data folder (`$XDG_DATA_HOME/mancala/online`, else ~/.local/share/mancala/online;
`--data DIR` another): online_game.json (the game, its id and key: what `resume` takes
up) and pc.json (the broker, TLS and user, never the password).  A finished game is
archived there as games/gNNNNN.txt, the board's own format: `mancala analyse FILE`
reads it.

In the game the person types a pit (1..6, counted from their left, as on the board);
`board` draws the board again, `help` says what can be typed.  Every message the
session ignores or refuses is said in one line.  Ctrl-C (or the end of stdin) leaves
cleanly: the other side sees this side go, and `mancala online resume` takes the game
up again.  `mancala online leave` gives up the saved game.
"""

import errno
import getpass
import json
import os
import queue
import signal
import sys
import threading
import time

from host_tools.argkit import Parser, UsageError, printable
from host_tools.board_text import draw

PC_FILE = "pc.json"
CONNECT_WAIT_S = 8.0  # the first connection: after this, or a refusal, the command gives up
PEER_SYNC_S = 5.0  # at the end: how long to wait for the other side to hold the same record
POLL_S = 0.005
PAUSE_S = 2.0  # leaving: what is due sent and acknowledged, at most this long


class OnlineError(RuntimeError):
    """A failure outside the command line (no broker, no game with the code): one line,
    exit status 1."""


def data_dir(given=None):
    if given:
        return os.path.abspath(given)
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "mancala", "online")


def storage_in(folder):
    from mancala.hw.storage import OsFs, Storage

    os.makedirs(os.path.join(folder, "games"), exist_ok=True)
    return Storage(OsFs(folder), "")  # folder/online_game.json, folder/games/gNNNNN.txt


def saved_game(folder):
    """The saved online game's dict, or None."""
    from mancala.hw.storage import OK
    from mancala.online.session import FILE

    status, obj = storage_in(folder).load(FILE)
    return obj if status == OK else None


def load_pc(folder):
    try:
        with open(os.path.join(folder, PC_FILE)) as f:
            obj = json.load(f)
        return obj if isinstance(obj, dict) else {}
    except (OSError, ValueError):
        return {}


def save_pc(folder, obj):
    path = os.path.join(folder, PC_FILE)
    with open(path + ".tmp", "w") as f:
        json.dump(obj, f)
    os.replace(path + ".tmp", path)


def parse_broker(text, tls=False):
    """HOST[:PORT] -> (host, port); UsageError naming what is wrong (mancala wifi's rules)."""
    from host_tools.command.wifi import parse_broker as check

    host, _, port = check(text, tls).rpartition(":")
    return host, int(port)


# -- the client on the PC ------------------------------------------------------------------


class _TlsSocket:
    """A TLS socket as the client expects a non-blocking one: CPython's 'wants to read /
    write' (SSLWantReadError...) are 'nothing now' (EAGAIN), as on MicroPython."""

    def __init__(self, ssock):
        self.s = ssock

    def recv_into(self, buf):
        import ssl

        try:
            return self.s.recv_into(buf)
        except (ssl.SSLWantReadError, ssl.SSLWantWriteError):
            raise BlockingIOError(errno.EAGAIN, "no data now") from None

    def send(self, data):
        import ssl

        try:
            return self.s.send(data)
        except (ssl.SSLWantReadError, ssl.SSLWantWriteError):
            raise BlockingIOError(errno.EAGAIN, "the socket is full") from None

    def close(self):
        self.s.close()

    def fileno(self):
        return self.s.fileno()


def make_client(host, port, user=None, password=None, tls=False, insecure=False, clock=None):
    """The firmware's MQTT client (mancala/online/mqtt.py), TLS done the PC's way: the
    broker's certificate checked against the system's authorities and its name (a board
    has no CA store and checks none), unless insecure."""
    from mancala.online.mqtt import Client
    from mancala.online.protocol import hexstr, random_bytes

    class PcClient(Client):
        tls_why = ""

        def _wrap_tls(self, sock):
            import ssl

            ctx = ssl.create_default_context()
            if insecure:
                ctx.check_hostname = False
                ctx.verify_mode = ssl.CERT_NONE
            sock.setblocking(True)
            sock.settimeout(self.connect_timeout_ms / 1000)
            try:
                ssock = ctx.wrap_socket(sock, server_hostname=self.server)
            except (ssl.SSLError, OSError) as e:
                self.tls_why = "TLS: %s" % (getattr(e, "verify_message", None) or getattr(e, "reason", None) or e)
                raise
            ssock.setblocking(False)
            return _TlsSocket(ssock)

    # a client id of its own until the game's ("m<game><side>", set by the session)
    return PcClient("mpc" + hexstr(random_bytes(8)), host, port, user=user or None,
                    password=password or None, tls=tls, clock=clock)


# -- the terminal -----------------------------------------------------------------------------


class Lines:
    """stdin's lines, read by a thread (the game never waits on the keyboard); None at
    its end."""

    def __init__(self, stream):
        self.q = queue.Queue()
        self.stream = stream
        self.started = False

    def start(self):
        if self.started:
            return
        self.started = True
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        try:
            for line in self.stream:
                self.q.put(line.strip())
        except (OSError, ValueError):
            pass
        self.q.put(None)

    def get(self):
        try:
            return self.q.get_nowait()
        except queue.Empty:
            return False


HELP_LINES = ("type a pit, 1..6 counted from your left, when it is your turn; `board` draws the "
              "board again; Ctrl-C leaves (the game is kept: `mancala online resume`)")


class Terminal:
    """One online game in the terminal: the session polled, what happens said."""

    def __init__(self, session, client, folder, broker_text, out=None, lines=None):
        self.s = session
        self.c = client
        self.folder = folder
        self.broker_text = broker_text
        self.out = out or sys.stdout
        self.lines = lines or Lines(sys.stdin)
        self.was_connected = False
        self.ever_connected = False
        self.prompted_ply = -1
        self.over_at = None

    def say(self, text):
        self.out.write(text + "\n")
        self.out.flush()

    def seat_name(self):
        return ("South", "North")[self.s.seat]

    def show(self):
        from mancala.game import END_REPETITION

        g = self.s.game
        for line in draw(g.rules, g.pos, "repetition" if g.end == END_REPETITION else None):
            self.say(line)

    def prompt(self):
        g = self.s.game
        mask = g.legal_mask()
        self.say("your move (you play %s): pits %s" % (self.seat_name(), " ".join(
            str(k + 1) for k in range(6) if mask >> k & 1)))

    def run(self):
        """Until the game ends (0), pairing fails (OnlineError) or the person leaves
        (KeyboardInterrupt or the end of stdin: 0, the game kept)."""
        from mancala.online import session as S

        s = self.s
        t0 = time.monotonic()
        stop = []
        # Ctrl-C noted and acted on between two polls (never in the middle of a packet)
        try:
            old = signal.signal(signal.SIGINT, lambda *_: stop.append(1))
        except ValueError:  # (not the main thread: Ctrl-C stays KeyboardInterrupt)
            old = None
        try:
            while not stop:
                s.poll()
                self._connection(t0)
                for kind, text in s.events():
                    self._event(kind, text)
                if s.phase == S.FAILED:
                    raise OnlineError(s.why)
                if s.phase in (S.PLAYING, S.OVER):
                    self.lines.start()
                if s.phase == S.PLAYING and s.my_turn() and self.prompted_ply != s.game.ply:
                    self.prompted_ply = s.game.ply
                    self.show()
                    self.prompt()
                if s.phase == S.OVER and self._finished():
                    return 0
                line = self.lines.get() if self.lines.started else False
                while line is not False:
                    if line is None:
                        self.say("stdin ended")
                        return self.pause()
                    self._typed(line)
                    line = self.lines.get()
                time.sleep(POLL_S)
            return self.pause()
        except KeyboardInterrupt:
            return self.pause()
        finally:
            if old is not None:
                signal.signal(signal.SIGINT, old)

    def _connection(self, t0):
        c = self.c
        up = c.connected
        if up and not self.was_connected:
            self.say("connected to the broker %s" % self.broker_text)
            self.ever_connected = True
        elif not up and self.was_connected:
            self.say("lost the broker (%s): connecting again" % (c.last_error or "the connection ended"))
        self.was_connected = up
        if not self.ever_connected:
            why = getattr(c, "tls_why", "") or c.last_error
            if why or time.monotonic() - t0 > CONNECT_WAIT_S:
                raise OnlineError("cannot reach the broker %s: %s" % (
                    self.broker_text, why or "no answer in %.0f s" % CONNECT_WAIT_S))

    def _event(self, kind, text):
        from mancala.online import session as S

        s, g = self.s, self.s.game
        if kind == S.EV_CODE:
            self.say("code: %s" % text)
            self.say("give the code to your friend: six taps on their board's row, or `mancala online "
                     "join %s --broker %s`; waiting for them to join" % (text, self.broker_text))
        elif kind == S.EV_PAIRED:
            self.say("paired: game %s, you are side %s and play %s (%s moves first)" % (
                s.game_id, s.side, self.seat_name(), "South"))
        elif kind == S.EV_MOVE:
            ply = int(text)
            self.say("the other side played pit %d (move %d)" % (g.moves()[ply - 1] + 1, ply))
        elif kind == S.EV_CAUGHT_UP:
            self.say("caught up: %s" % text)
        elif kind == S.EV_PEER:
            self.say("the other side is %s" % ("here" if text == "here" else
                                               "away (its moves come when it is back)"))
        elif kind in (S.EV_IGNORED, S.EV_REFUSED, S.EV_SAVE_FAILED, S.EV_FAILED):
            self.say(text)
        elif kind == S.EV_OVER:
            self.show()
            w = g.winner()
            me = s.seat
            self.say("game over: %s (%s)" % (
                "a draw" if w == 2 else "you win" if w == me else "the other side wins", text))
            self.over_at = time.monotonic()
        # (EV_REPEAT: a resend or a replay, ignored quietly as on the board)

    def _typed(self, line):
        s = self.s
        word = line.lower()
        if not word:
            return
        if word in ("board", "b"):
            self.show()
        elif word in ("help", "h", "?"):
            self.say(HELP_LINES)
        elif word in ("1", "2", "3", "4", "5", "6"):
            why = s.play(int(word) - 1)
            if why:
                self.say("not played: %s" % why)
            else:
                self.say("you played pit %s (move %d)%s" % (word, s.game.ply,
                                                             "" if s.connected() else "; sent once the broker is back"))
        else:
            self.say("not understood: %r; %s" % (printable(line)[:40], HELP_LINES))

    def _finished(self):
        """The game is over: once the other side holds the same record (or after
        PEER_SYNC_S), leave (the saved game removed, the retained messages cleared)."""
        s = self.s
        if self.over_at is None:
            self.over_at = time.monotonic()
        if s.peer_ply != s.game.ply and time.monotonic() - self.over_at < PEER_SYNC_S:
            return False
        if s.archived:
            path = os.path.join(self.folder, "games", "g%05d.txt" % s.archived)
            self.say("the game is kept in %s: `mancala analyse %s` grades its moves" % (path, path))
        s.leave()
        self.c.finish()  # the clears taken and DISCONNECT read before the socket goes
        return True

    def pause(self):
        """Leave for now, the game kept: what is due is sent first (a move, the ack),
        then the other side is told this side went away (as its last will would)."""
        from mancala.online import protocol as p

        s, c = self.s, self.c
        end = time.monotonic() + PAUSE_S
        away = 0
        quiet = 0
        while c.connected and time.monotonic() < end:
            s.poll()
            for kind, text in s.events():
                self._event(kind, text)
            quiet = quiet + 1 if not c.pending() else 0
            if not away and quiet >= 3 and s.game_id and s.key:
                away = c.publish(p.game_topic(s.game_id, "here", s.side),
                                 p.here_text(s.key, s.game_id, s.side, False), True)
                quiet = 0
            elif away and quiet >= 1:
                break
            time.sleep(POLL_S)
        c.finish()
        self.say("left; the game is kept: `mancala online resume` takes it up again")
        return 0


# -- the commands -------------------------------------------------------------------------------


def _options(p, broker_required=True):
    p.add_argument("--broker", required=broker_required, metavar="HOST[:PORT]",
                   help="the MQTT broker (port 1883, or 8883 with --tls, when none is given)")
    p.add_argument("--tls", action="store_true", help="TLS to the broker (its certificate checked)")
    p.add_argument("--tls-insecure", action="store_true", help="TLS without checking the broker's certificate")
    p.add_argument("--user", help="the broker's user name (the password is asked, never on the command line)")
    p.add_argument("--password-stdin", action="store_true",
                   help="read the broker's password from stdin's first line (scripts)")
    p.add_argument("--data", metavar="DIR", help="where the game is kept (default: ~/.local/share/mancala/online)")


def _password(a, user):
    if not user:
        return None
    if a.password_stdin:
        line = sys.stdin.readline()
        if not line:
            raise UsageError("--password-stdin: stdin is empty")
        return line.rstrip("\r\n")
    return getpass.getpass("the broker's password for %s: " % user)


def _connect_settings(a, folder, resume=False):
    pc = load_pc(folder) if resume else {}
    tls = a.tls or a.tls_insecure or (resume and not a.broker and pc.get("tls", False))
    insecure = a.tls_insecure or (resume and not a.broker and pc.get("insecure", False))
    broker = a.broker or pc.get("broker")
    if not broker:
        raise UsageError("no broker: give --broker HOST[:PORT]")
    host, port = parse_broker(broker, tls)
    user = a.user if a.user is not None else (pc.get("user") or None)
    if user is not None and (not user or len(user) > 128 or not user.isprintable()):
        raise UsageError("the broker's user name must be 1..128 printable characters")
    return {"broker": "%s:%d" % (host, port), "host": host, "port": port, "tls": bool(tls),
            "insecure": bool(insecure), "user": user or ""}


def _start(a, folder, settings):
    from mancala.game import Game
    from mancala.hw.clock import Clock
    from mancala.online.session import Session
    from mancala.rules import get_rules

    password = _password(a, settings["user"])
    clock = Clock()
    client = make_client(settings["host"], settings["port"], settings["user"], password,
                         settings["tls"], settings["insecure"], clock)
    storage = storage_in(folder)
    session = Session(client, storage, Game(get_rules("kalah")), clock)
    return session, client, storage


def _no_game_under_way(folder):
    obj = saved_game(folder)
    if obj is not None:
        raise OnlineError("a game is under way here (game %s, side %s): `mancala online resume` takes it up, "
                          "`mancala online leave` gives it up" % (obj.get("g", "?"), obj.get("side", "?")))


def _play(session, client, folder, settings, on_fail=None):
    term = Terminal(session, client, folder, settings["broker"])
    try:
        return term.run()
    except OnlineError:
        client.stop()
        if on_fail is not None:
            on_fail()
        raise


def cmd_create(argv):
    p = Parser(prog="mancala online create", description="Offer a new online game and print its code.")
    _options(p)
    p.add_argument("--variant", default="kalah", help="the rule set (default kalah)")
    p.add_argument("--first", choices=("a", "b"), default="a", help="who moves first: a (this side) or b")
    a = p.parse_args(argv)
    from mancala.rules import get_rules

    try:
        get_rules(a.variant)
    except ValueError as e:
        raise UsageError(str(e)) from None
    folder = data_dir(a.data)
    settings = _connect_settings(a, folder)
    _no_game_under_way(folder)
    session, client, storage = _start(a, folder, settings)
    save_pc(folder, {k: settings[k] for k in ("broker", "tls", "insecure", "user")})
    from mancala.online.session import FILE

    session.create(a.variant, a.first)
    # (no broker reached: the offer never went out, nothing is kept)
    return _play(session, client, folder, settings, on_fail=lambda: storage.remove(FILE))


def cmd_join(argv):
    p = Parser(prog="mancala online join", description="Join the online game offered under CODE.")
    p.add_argument("code", help="the six digits 1..6 the other side shows")
    _options(p)
    a = p.parse_args(argv)
    from mancala.online.protocol import code_ok

    code = a.code.strip().replace(" ", "")
    if not code_ok(code):
        raise UsageError("the code %s is not six digits 1..6 (e.g. 314625)" % printable(repr(a.code)))
    folder = data_dir(a.data)
    settings = _connect_settings(a, folder)
    _no_game_under_way(folder)
    session, client, storage = _start(a, folder, settings)
    save_pc(folder, {k: settings[k] for k in ("broker", "tls", "insecure", "user")})
    session.join(code)
    return _play(session, client, folder, settings)


def cmd_resume(argv):
    p = Parser(prog="mancala online resume", description="Take up the online game kept here.")
    _options(p, broker_required=False)
    a = p.parse_args(argv)
    folder = data_dir(a.data)
    if saved_game(folder) is None:
        raise OnlineError("no online game is kept in %s: `mancala online create` or `join` starts one" % folder)
    settings = _connect_settings(a, folder, resume=True)
    session, client, storage = _start(a, folder, settings)
    if not session.resume():
        why = "; ".join(t for k, t in session.events()) or "it could not be read"
        raise OnlineError("the kept online game cannot be taken up: %s" % why)
    print("resuming game %s (side %s, move %d)" % (session.game_id, session.side, session.game.ply), flush=True)
    return _play(session, client, folder, settings)


def cmd_leave(argv):
    p = Parser(prog="mancala online leave", description="Give up the online game kept here.")
    p.add_argument("--data", metavar="DIR")
    a = p.parse_args(argv)
    from mancala.online.session import FILE

    folder = data_dir(a.data)
    obj = saved_game(folder)
    if obj is None:
        print("no online game is kept in %s" % folder)
        return 0
    storage_in(folder).remove(FILE)
    print("gave up game %s (side %s) after %d moves" % (obj.get("g", "?"), obj.get("side", "?"),
                                                        max(0, len(str(obj.get("record", "")).split()) - 1)))
    return 0


SUBCOMMANDS = {"create": cmd_create, "join": cmd_join, "resume": cmd_resume, "leave": cmd_leave}


def online_main(argv):
    if not argv:
        raise UsageError("which: create, join, resume or leave (`mancala online --help`)")
    if argv[0] in ("-h", "--help", "help"):
        print(__doc__.split("\n\n")[1])
        return 0
    fn = SUBCOMMANDS.get(argv[0])
    if fn is None:
        raise UsageError("unknown subcommand %r: create, join, resume or leave" % printable(argv[0]))
    try:
        return fn(argv[1:])
    except OnlineError as e:
        print("mancala online: error: %s" % printable(e), file=sys.stderr)
        return 1
