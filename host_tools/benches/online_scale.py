"""How many online games at once one Mosquitto holds on this machine (issue 44, item 10;
docs/ONLINE.md "Scale").

    python -m host_tools.benches.online_scale [--steps 10,100,500,1000,2000,4000]
        [--window 20] [--think-ms 2000] [--workers 2] [--p99-ms 250] [--budget 300]
        [--json FILE]
    make bench-online

A real Mosquitto (host_tools/online/broker.py, 127.0.0.1, a fresh one for each step),
and N simulated games, each two paho-mqtt clients that pair and play kalah with the real
protocol's messages (firmware/mancala/online/protocol.py in CPython: the offer, the
signed join and ack, each move `M` and the retained state `S` after it, presence `H`
and the last will, every message parsed, its signature checked and its move judged by
`protocol.receive_move` on a `Game` of the firmware).  Each simulated board follows the
firmware session's message flow (session.py) but not its code: a board's session runs
on the board's own client, driven by the board's loop; here thousands of them share one
event loop per generator process.  Differences, all on the side of less traffic: the
creator's code probe sends no PINGREQ (the bench hands each game a code no other offer
holds, as the probe would find), and the joining side looks the offer up on a second
connection instead of reconnecting the same client.

Each step: N games paired (ramped up, then held), `--window` seconds measured while each
side moves after a think of `--think-ms` (0.5x..1.5x, at random), games that end leave
as the session does (their state and presence cleared) and a new game is paired in
their place.  Measured: messages a second through the broker (publishes in, deliveries
out), the move latency (the mover's publish to the peer's `receive_move`, both in the
same process: one clock) at p50/p99/max, the broker's CPU and memory from /proc, the
generator's own CPU (its processes, /proc too), the machine's load, errors.  Steps go up
until p99 passes `--p99-ms`, a generator process saturates its core (then the figure is
the generator's limit, not the broker's: said), errors pass 1 %, or the time budget
would be passed.  The machine's 2 cores are shared by the broker, the generator and
whoever else runs here: the table says how busy the machine was.

Before the steps, a few games are played to their end as fast as they go, alone on a
fresh broker: the messages, bytes and retained messages of one game, and what is left
on the broker after both sides left.
"""

import argparse
import heapq
import json
import multiprocessing
import os
import random
import resource
import selectors
import socket
import sys
import time

from host_tools.online.broker import Broker, BrokerError, available

STEPS = (10, 100, 500, 1000, 2000, 4000)
P99_MS = 250.0
WINDOW_S = 20.0
THINK_MS = 2000
BUDGET_S = 300.0  # the whole run's load, at most (other people use this machine)
RAMP_PER_S = 400  # games paired a second per generator process while ramping up
RAMP_TIMEOUT_S = 60.0
KEEPALIVE_S = 30  # the board's client's (mqtt.Client's default)
SATURATED = 0.92  # a generator process busier than this of one core is the limit
ERRORS_MAX = 0.01
SLOW_CONNECT_S = 0.1  # a TCP connect to the broker that took longer (a SYN dropped: 1 s)
PER_GAME_THINK_MS = 40  # the per-game figures: each state read before the next move, as in play
VARIANT = "kalah"

TICK = os.sysconf("SC_CLK_TCK")


# -- /proc ------------------------------------------------------------------------------


def proc_cpu_s(pid):
    """User + system CPU seconds of process `pid` so far (0.0 if it is gone)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK
    except (OSError, IndexError, ValueError):
        return 0.0


def proc_rss_kb(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def machine_busy():
    """(busy, total) jiffies of all CPUs so far (/proc/stat)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + (v[4] if len(v) > 4 else 0)
    return sum(v) - idle, sum(v)


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def percentile(sorted_values, q):
    if not sorted_values:
        return None
    k = min(len(sorted_values) - 1, max(0, int(round(q * (len(sorted_values) - 1)))))
    return sorted_values[k]


# -- the generator: simulated boards in one event loop -------------------------------------


def packet_bytes(topic, payload, qos=1):
    """The size of a PUBLISH packet on the wire (fixed header, topic, packet id, payload)."""
    n = 2 + len(topic) + (2 if qos else 0) + len(payload)
    head = 2 if n < 128 else 3 if n < 16384 else 4
    return head + n


class Stats:
    def __init__(self):
        self.reset()

    def reset(self):
        self.published = 0  # PUBLISH packets into the broker
        self.delivered = 0  # PUBLISH packets out of the broker (to the simulated boards)
        self.bytes_in = 0
        self.latencies = []  # move latency, ms
        self.moves = 0
        self.errors = 0
        self.why = {}  # error kind -> count
        self.games_done = 0
        self.paired = 0
        self.pair_ms = []
        self.slow_connects = 0
        self.connect_wait_s = 0.0

    def error(self, kind):
        self.errors += 1
        self.why[kind] = self.why.get(kind, 0) + 1


class EventLoop:
    """paho-mqtt clients on one selector (paho's external-loop interface: loop_read,
    loop_write, loop_misc), plus timers."""

    def __init__(self):
        self.sel = selectors.DefaultSelector()
        self.writers = set()
        self.timers = []
        self._seq = 0
        self.clients = set()

    def attach(self, client):
        client.on_socket_open = self._open
        client.on_socket_close = self._close
        client.on_socket_register_write = self._want_write
        client.on_socket_unregister_write = self._no_write
        self.clients.add(client)

    def _open(self, client, userdata, sock):
        # as the board's client: small packets at once (paho leaves Nagle's wait on)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sel.register(sock, selectors.EVENT_READ, client)

    def _close(self, client, userdata, sock):
        try:
            self.sel.unregister(sock)
        except (KeyError, ValueError):
            pass
        self.writers.discard(client)
        self.clients.discard(client)

    def _want_write(self, client, userdata, sock):
        self.writers.add(client)

    def _no_write(self, client, userdata, sock):
        self.writers.discard(client)

    def at(self, delay_s, fn, *args):
        self._seq += 1
        heapq.heappush(self.timers, (time.monotonic() + delay_s, self._seq, fn, args))

    def turn(self, timeout):
        if self.timers:
            timeout = max(0.0, min(timeout, self.timers[0][0] - time.monotonic()))
        if self.writers:
            timeout = 0.0
        for key, _ in self.sel.select(timeout):
            key.data.loop_read()
        for c in list(self.writers):
            c.loop_write()
        now = time.monotonic()
        while self.timers and self.timers[0][0] <= now:
            _, _, fn, args = heapq.heappop(self.timers)
            fn(*args)

    def misc(self):
        for c in list(self.clients):
            c.loop_misc()


def _on_connect(client, side, flags, reason, props):
    side.connected(reason)


def _on_message(client, side, msg):
    side.message(msg.topic, msg.payload, msg.retain)


def _on_subscribe(client, side, mid, reasons, props):
    side.subscribed(mid)


def _on_disconnect(client, side, flags, reason, props):
    side.disconnected(reason)


class Board:
    """One side of one simulated game on its paho client."""

    def __init__(self, game, name, client_id, will=None):
        import paho.mqtt.client as mqtt

        self.game = game
        self.name = name
        self.c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id,
                             protocol=mqtt.MQTTv311, clean_session=True, userdata=self)
        self.c.on_connect = _on_connect
        self.c.on_message = _on_message
        self.c.on_subscribe = _on_subscribe
        self.c.on_disconnect = _on_disconnect
        if will is not None:
            self.c.will_set(will[0], will[1], qos=1, retain=True)
        self.leaving = False
        game.sim.loop.attach(self.c)

    def start(self):
        t = time.perf_counter()
        try:
            self.c.connect("127.0.0.1", self.game.sim.port, KEEPALIVE_S)  # (paho's connect blocks)
            dt = time.perf_counter() - t
            if dt > SLOW_CONNECT_S:  # the whole generator process waited this long
                self.game.sim.stats.slow_connects += 1
                self.game.sim.stats.connect_wait_s += dt
        except OSError as e:
            self.game.sim.stats.error("connect: %s" % (e.strerror or e))
            self.game.broken = True

    def publish(self, topic, payload, retain):
        st = self.game.sim.stats
        st.published += 1
        b = packet_bytes(topic, payload)
        st.bytes_in += b
        self.game.bytes += b
        self.game.messages += 1
        return self.c.publish(topic, payload, qos=1, retain=retain).mid

    def connected(self, reason):
        if reason.is_failure:
            self.game.sim.stats.error("refused: %s" % reason)
            self.game.broken = True
            return
        self.game.on_connect(self)

    def subscribed(self, mid):
        self.game.on_subscribed(self, mid)

    def message(self, topic, payload, retained):
        sim = self.game.sim
        sim.stats.delivered += 1
        self.game.deliveries += 1
        self.game.on_message(self, topic, payload, retained)

    def disconnected(self, reason):
        if not self.leaving:
            self.game.sim.stats.error("dropped: %s" % reason)
            self.game.broken = True


class SimGame:
    """One game between two simulated boards: a offers, b joins, they play to the end,
    leave as the session does; `sim.new_game` then pairs a new game in its place."""

    def __init__(self, sim, slot):
        from mancala.game import Game
        from mancala.online import protocol as p
        from mancala.rules import get_rules

        self.p = p
        self.sim = sim
        self.slot = slot
        self.code = sim.take_code()
        self.g = p.new_game_id()
        self.k_hex = p.new_key()
        self.k = p.key_bytes(self.k_hex)
        self.nonce = p.new_nonce()
        rules = get_rules(VARIANT)
        self.games = {"a": Game(rules, capacity=96), "b": Game(rules, capacity=96)}
        self.phase = {"a": "offering", "b": "joining"}
        self.sent_at = {}  # ply -> the mover's publish time (perf_counter)
        self.peer_ply = {"a": -1, "b": -1}
        self.thinking = set()  # the sides whose move is scheduled
        self.state_due = set()  # the sides whose state is to be sent this turn
        self.broken = False
        self.left = 0
        self.messages = self.deliveries = self.bytes = 0
        self.started = time.perf_counter()
        g = self.g
        self.topic = {w: {side: p.game_topic(g, w, side) for side in "ab"} for w in ("m", "s", "here")}
        self.join_topic, self.ack_topic = p.game_topic(g, "join"), p.game_topic(g, "ack")
        self.pair_topic = p.pair_topic(self.code)
        self.boards = {}
        self.lookup = None
        self._pair_sub = None
        a = self.boards["a"] = Board(self, "a", "m%sa" % g,
                                     (self.topic["here"]["a"], p.here_text(self.k, g, "a", False)))
        a.start()

    # -- pairing ---------------------------------------------------------------------------

    def on_connect(self, board):
        p, g, name = self.p, self.g, board.name
        if board is self.lookup:
            self._pair_sub = board.c.subscribe(self.pair_topic, 1)[1]
            return
        peer = p.other(name)
        subs = [(self.topic["m"][peer], 1), (self.topic["s"][peer], 1), (self.topic["here"][peer], 1),
                (self.topic["here"][name], 1), (self.join_topic if name == "a" else self.ack_topic, 1)]
        board.c.subscribe(subs)
        board.publish(self.topic["here"][name], p.here_text(self.k, g, name, True), True)
        if name == "a":  # the code's probe: subscribe, find it free, leave it
            self._pair_sub = board.c.subscribe(self.pair_topic, 1)[1]
        else:
            board.publish(self.join_topic, p.join_text(self.k, g, self.nonce), False)

    def on_subscribed(self, board, mid):
        if mid != self._pair_sub:
            return
        self._pair_sub = None
        if board.name == "a" and board is not self.lookup:
            board.c.unsubscribe(self.pair_topic)
            board.publish(self.pair_topic, self.p.offer_text(self.g, self.k_hex, VARIANT, "a"), True)
            # the friend types the code: b looks the offer up on its own connection
            self.lookup = Board(self, "lookup", "mnew-%d-%d" % (self.sim.worker, self.slot))
            self.lookup.start()

    def _on_offer(self, payload):
        p = self.p
        try:
            o = p.parse_offer(payload)
        except p.Rejected:
            self.sim.stats.error("offer")
            return
        if o.game_id != self.g:
            self.sim.stats.error("another game's offer on our code")
            return
        self.lookup.leaving = True
        self.lookup.c.unsubscribe(self.pair_topic)
        self.lookup.c.disconnect()
        b = self.boards["b"] = Board(self, "b", "m%sb" % self.g,
                                     (self.topic["here"]["b"], p.here_text(self.k, self.g, "b", False)))
        b.start()

    def on_message(self, board, topic, payload, retained):
        p = self.p
        if not payload:
            return
        if board is self.lookup:
            if topic == self.pair_topic:
                self._on_offer(payload)
            return
        name = board.name
        peer = p.other(name)
        try:
            if topic == self.join_topic:
                m = p.parse(payload, self.k, self.g, "b")
            elif topic == self.ack_topic:
                m = p.parse(payload, self.k, self.g, "a")
            elif topic == self.topic["here"][name]:
                m = p.parse(payload, self.k, self.g, name)
                return
            else:
                m = p.parse(payload, self.k, self.g, peer)
        except p.Rejected as e:
            self.sim.stats.error(e.kind)
            return
        if m.kind == "J" and name == "a" and self.phase["a"] == "offering":
            self.phase["a"] = "playing"
            board.publish(self.ack_topic, p.ack_text(self.k, self.g, m.nonce), True)
            board.publish(self.pair_topic, b"", True)  # the offer cleared
            self._publish_state(board)
            self._next(name)
        elif m.kind == "A" and name == "b" and self.phase["b"] == "joining":
            if m.nonce != self.nonce:
                self.sim.stats.error("taken")
                return
            self.phase["b"] = "playing"
            st = self.sim.stats
            st.paired += 1
            st.pair_ms.append((time.perf_counter() - self.started) * 1000)
            self._publish_state(board)
            self._next(name)
        elif m.kind == "M":
            self._on_move(board, m)
        elif m.kind == "S":
            self._on_state(board, m)

    # -- moves -------------------------------------------------------------------------------

    def _seat(self, name):
        return 0 if name == "a" else 1  # a moves first (South)

    def _state_due(self, board):
        """The session's `_due |= _STATE`: one state sent for all the reasons of a turn."""
        if board.name not in self.state_due:
            self.state_due.add(board.name)
            self.sim.loop.at(0.0, self._send_due_state, board)

    def _send_due_state(self, board):
        self.state_due.discard(board.name)
        if not board.leaving and not self.broken:
            self._publish_state(board)

    def _publish_state(self, board):
        p, game = self.p, self.games[board.name]
        rec = p.record_of(VARIANT, game.moves())
        board.publish(self.topic["s"][board.name],
                      p.state_text(self.k, self.g, board.name, game.ply, rec, p.record_sum(rec)), True)

    def _next(self, name):
        """Schedule `name`'s move if it is its turn (after a think)."""
        game = self.games[name]
        if self.phase[name] != "playing" or game.over or game.side != self._seat(name) or name in self.thinking:
            return
        self.thinking.add(name)
        think = self.sim.think_s
        self.sim.loop.at(think * (0.5 + self.sim.rng.random()) if think else 0.0, self._move, name)

    def _move(self, name):
        self.thinking.discard(name)
        if self.broken or self.sim.stopping:
            return
        p, game = self.p, self.games[name]
        board = self.boards[name]
        mask = game.legal_mask()
        legal = [k for k in range(6) if mask >> k & 1]
        pit = legal[self.sim.rng.randrange(len(legal))]
        game.play(pit)
        rec = p.record_of(VARIANT, game.moves())
        total = p.record_sum(rec)
        self.sent_at[game.ply] = time.perf_counter()
        board.publish(self.topic["m"][name], p.move_text(self.k, self.g, name, game.ply, pit + 1, total), False)
        board.publish(self.topic["s"][name], p.state_text(self.k, self.g, name, game.ply, rec, total), True)
        self._after(name)

    def _on_move(self, board, m):
        p, name = self.p, board.name
        verdict, why = p.receive_move(self.games[name], self._seat(name) ^ 1, m.ply, m.move, m.total)
        sim = self.sim
        if verdict == p.APPLIED:
            sent = self.sent_at.pop(m.ply, None)
            if sent is not None and sim.measuring:
                sim.stats.latencies.append((time.perf_counter() - sent) * 1000)
                sim.stats.moves += 1
            self._state_due(board)  # the session: saved, then its state says it has it
            self._after(name)
        elif verdict != p.DUPLICATE:
            sim.stats.error("move %s" % verdict)

    def _on_state(self, board, m):
        p, name = self.p, board.name
        verdict, why = p.receive_state(self.games[name], m.record)
        if verdict == p.REFUSED:
            self.sim.stats.error("state refused")
            return
        self.peer_ply[name] = m.ply
        if verdict == p.APPLIED:  # (a move that came only in the state)
            self._state_due(board)
            self._after(name)
        elif verdict == p.BEHIND:
            self._state_due(board)
        self._maybe_leave(name)

    def _after(self, name):
        game = self.games[name]
        if game.over:
            self.phase[name] = "over"
            self._maybe_leave(name)
        else:
            self._next(name)

    def _maybe_leave(self, name):
        """The session's leave(): once over and the peer holds the same record, this side's
        retained state and presence are cleared, then it disconnects (no will)."""
        game = self.games[name]
        board = self.boards[name]
        if self.phase[name] != "over" or self.peer_ply[name] != game.ply or board.leaving:
            return
        board.leaving = True
        board.publish(self.topic["s"][name], b"", True)
        board.publish(self.topic["here"][name], b"", True)
        board.c.disconnect()
        self.left += 1
        if self.left == 2:
            self.sim.game_over(self)

    def close(self):
        """The step's end: every board leaves at once (not counted as errors)."""
        for b in list(self.boards.values()) + ([self.lookup] if self.lookup else []):
            b.leaving = True
            try:
                b.c.disconnect()
            except Exception:  # (a client never connected)
                pass


class Generator:
    """One generator process: its share of the games, one event loop."""

    def __init__(self, port, worker, workers, think_ms, seed):
        self.port = port
        self.worker = worker
        self.think_s = think_ms / 1000.0
        self.rng = random.Random(seed)
        self.loop = EventLoop()
        self.stats = Stats()
        self.measuring = False
        self.stopping = False
        self.renew = True
        self.games = {}
        self.finished = []  # (messages, deliveries, bytes, plies) of games played to the end
        # each process its own codes, no two offers on one code (the probe's finding)
        codes = [c for i, c in enumerate(_all_codes()) if i % workers == worker]
        self.rng.shuffle(codes)
        self.codes = codes

    def take_code(self):
        return self.codes.pop()

    def new_game(self, slot):
        self.games[slot] = SimGame(self, slot)

    def game_over(self, game):
        self.stats.games_done += 1
        self.finished.append((game.messages, game.deliveries, game.bytes, game.games["a"].ply))
        self.codes.insert(0, game.code)
        del self.games[game.slot]
        if self.renew and not self.stopping:
            self.loop.at(0.0, self.new_game, game.slot)

    def ramp(self, n, deadline):
        """Pair n games, RAMP_PER_S a second; True once all are paired."""
        started = 0
        t0 = time.monotonic()
        last_misc = t0
        while time.monotonic() < deadline:
            due = min(n, int((time.monotonic() - t0) * RAMP_PER_S) + 1)
            while started < due:
                self.new_game(started)
                started += 1
            self.loop.turn(0.005)
            if time.monotonic() - last_misc > 1.0:
                self.loop.misc()
                last_misc = time.monotonic()
            if started == n and self.stats.paired >= n:
                return True
        return False

    def run_for(self, seconds):
        end = time.monotonic() + seconds
        last_misc = time.monotonic()
        while time.monotonic() < end:
            self.loop.turn(0.02)
            if time.monotonic() - last_misc > 1.0:
                self.loop.misc()
                last_misc = time.monotonic()

    def close(self, linger_s=0.5):
        self.stopping = True
        for g in list(self.games.values()):
            g.close()
        self.run_for(linger_s)


_CODES = []


def _all_codes():
    if not _CODES:
        import itertools

        _CODES.extend("".join(t) for t in itertools.product("123456", repeat=6))
    return _CODES


def generator_main(conn, port, worker, workers, n_games, think_ms, seed, ramp_s):
    """A generator process: ramp up, report, measure a window when told, report, leave."""
    try:
        gen = Generator(port, worker, workers, think_ms, seed)
        t0 = time.monotonic()
        ok = gen.ramp(n_games, t0 + ramp_s)
        st = gen.stats
        conn.send({"ready": ok, "paired": st.paired, "errors": st.errors, "why": st.why,
                   "ramp_s": time.monotonic() - t0, "pair_ms": sorted(st.pair_ms)})
        cmd = conn.recv()  # {"window": seconds} or {"stop": True}
        if "window" in cmd:
            st.reset()
            gen.measuring = True
            t = time.monotonic()
            gen.run_for(cmd["window"])
            gen.measuring = False
            conn.send({"window_s": time.monotonic() - t, "published": st.published,
                       "delivered": st.delivered, "bytes_in": st.bytes_in, "moves": st.moves,
                       "latencies": st.latencies, "errors": st.errors, "why": st.why,
                       "games_done": st.games_done, "paired": st.paired,
                       "slow_connects": st.slow_connects, "connect_wait_s": st.connect_wait_s,
                       "in_play": len(gen.games), "finished": gen.finished})
            conn.recv()
        gen.close()
        conn.send({"closed": True})
    except Exception as e:  # said to the main process in one line
        try:
            conn.send({"crash": "%s: %s" % (type(e).__name__, e)})
        except OSError:
            pass
        raise


# -- the retained messages on the broker -----------------------------------------------------


def retained_on(port, prefix="mancala/v1/#", quiet_s=0.4, limit_s=8.0):
    """The retained messages under `prefix` now: {topic: payload}.  Read by subscribing
    (the broker sends each retained one) until quiet_s pass with nothing new."""
    import paho.mqtt.client as mqtt

    got = {}
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="bench-retained", protocol=mqtt.MQTTv311)
    state = {"last": time.monotonic(), "subacked": False}

    def on_message(client, userdata, msg):
        if msg.retain:
            got[msg.topic] = msg.payload
        state["last"] = time.monotonic()

    def on_subscribe(client, userdata, mid, reasons, props):
        state["subacked"] = True
        state["last"] = time.monotonic()

    c.on_message = on_message
    c.on_subscribe = on_subscribe
    c.on_connect = lambda client, u, f, r, p: client.subscribe(prefix, 1)
    c.connect("127.0.0.1", port, 30)
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        c.loop(0.05)
        if state["subacked"] and time.monotonic() - state["last"] > quiet_s:
            break
    c.disconnect()
    c.loop(0.05)
    return got


def retained_kinds(retained):
    """How many retained messages of each kind: pair (offers), ack, s (states), here."""
    out = {}
    for topic in retained:
        parts = topic.split("/")
        kind = parts[2] if parts[2] == "pair" else parts[4]
        out[kind] = out.get(kind, 0) + 1
    return out


# -- the main process --------------------------------------------------------------------------


def raise_file_limit():
    """Open files up to the hard limit (Mosquitto, started from here, inherits it: one
    file a client)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def say(*args):
    print(*args, flush=True)


def versions():
    import platform
    import subprocess

    from host_tools.online.broker import executable

    try:
        out = subprocess.run([executable(), "-h"], capture_output=True, text=True, timeout=5).stdout
        mosq = out.split("\n", 1)[0].replace("mosquitto version ", "")
    except (OSError, subprocess.TimeoutExpired):
        mosq = "?"
    import paho.mqtt

    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {"mosquitto": mosq, "paho-mqtt": paho.mqtt.__version__, "python": platform.python_version(),
            "cpu": cpu, "cores": os.cpu_count(), "kernel": platform.release(),
            "date": time.strftime("%Y-%m-%d")}


def run_step(n_games, workers, think_ms, window_s, seed=1, ramp_s=None, retained=True, log=say):
    """One step: a fresh broker, n_games paired over `workers` processes, a window
    measured.  Returns the step's figures (a dict)."""
    ctx = multiprocessing.get_context("fork")
    workers = max(1, min(workers, n_games))
    if ramp_s is None:
        ramp_s = min(RAMP_TIMEOUT_S, 5.0 + n_games / (RAMP_PER_S * workers) * 3)
    out = {"games": n_games, "workers": workers, "think_ms": think_ms}
    with Broker() as broker:
        bpid = broker.proc.pid
        procs, conns = [], []
        share = [n_games // workers + (1 if i < n_games % workers else 0) for i in range(workers)]
        for w in range(workers):
            a, b = ctx.Pipe()
            pr = ctx.Process(target=generator_main, args=(b, broker.port, w, workers, share[w], think_ms,
                                                          seed * 1000 + w, ramp_s), daemon=True)
            pr.start()
            procs.append(pr)
            conns.append(a)
        try:
            ready = [_recv(c, ramp_s + 30) for c in conns]
            paired = sum(r["paired"] for r in ready)
            pair_ms = sorted(x for r in ready for x in r["pair_ms"])
            out.update(paired=paired, ramp_s=max(r["ramp_s"] for r in ready),
                       pair_p50_ms=percentile(pair_ms, 0.5), pair_p99_ms=percentile(pair_ms, 0.99),
                       ramp_errors=sum(r["errors"] for r in ready))
            log("  %d games: %d paired in %.1f s (pairing p50 %.0f ms, p99 %.0f ms)%s" % (
                n_games, paired, out["ramp_s"], out["pair_p50_ms"] or 0, out["pair_p99_ms"] or 0,
                "" if all(r["ready"] for r in ready) else "; NOT all paired in %.0f s" % ramp_s))
            cpu0 = {"broker": proc_cpu_s(bpid), "gen": [proc_cpu_s(pr.pid) for pr in procs]}
            busy0 = machine_busy()
            t0 = time.monotonic()
            for c in conns:
                c.send({"window": window_s})
            res = [_recv(c, window_s + 30) for c in conns]
            dt = time.monotonic() - t0
            busy1 = machine_busy()
            out["broker_cpu"] = (proc_cpu_s(bpid) - cpu0["broker"]) / dt
            gen = [(proc_cpu_s(pr.pid) - c0) / dt for pr, c0 in zip(procs, cpu0["gen"], strict=True)]
            out["gen_cpu"] = sum(gen)
            out["gen_cpu_max"] = max(gen)
            out["machine_cpu"] = (busy1[0] - busy0[0]) / max(1, busy1[1] - busy0[1]) * (os.cpu_count() or 1)
            out["load"] = loadavg()
            out["broker_rss_mb"] = proc_rss_kb(bpid) / 1024
            out["connections"] = sum(r["in_play"] for r in res) * 2
            w = max(r["window_s"] for r in res)
            lat = sorted(x for r in res for x in r["latencies"])
            out.update(
                window_s=w, published_s=sum(r["published"] for r in res) / w,
                delivered_s=sum(r["delivered"] for r in res) / w,
                bytes_in_s=sum(r["bytes_in"] for r in res) / w,
                moves=len(lat), moves_s=len(lat) / w,
                p50_ms=percentile(lat, 0.5), p99_ms=percentile(lat, 0.99), max_ms=lat[-1] if lat else None,
                errors=sum(r["errors"] for r in res), games_done=sum(r["games_done"] for r in res),
                why={})
            for r in ready + res:
                for k, v in r["why"].items():
                    out["why"][k] = out["why"].get(k, 0) + v
            out["msgs_s"] = out["published_s"] + out["delivered_s"]
            out["slow_connects"] = sum(r["slow_connects"] for r in res)
            out["connect_wait_s"] = sum(r["connect_wait_s"] for r in res)
            finished = [f for r in res for f in r["finished"]]
            out["finished"] = finished
            if retained:
                kinds = retained_kinds(retained_on(broker.port))
                out["retained"] = kinds
            for c in conns:
                c.send({"stop": True})
            for c in conns:
                _recv(c, 30)
        finally:
            for pr in procs:
                pr.join(timeout=10)
                if pr.is_alive():
                    pr.kill()
                    pr.join(timeout=5)
            for c in conns:
                c.close()
    return out


def _recv(conn, timeout):
    if not conn.poll(timeout):
        raise BrokerError("a generator process said nothing in %.0f s" % timeout)
    msg = conn.recv()
    if "crash" in msg:
        raise BrokerError("a generator process failed: " + msg["crash"])
    return msg


def per_game(games=4, log=say, think_ms=PER_GAME_THINK_MS):
    """A few games played to the end as fast as they go, alone on a fresh broker: the
    messages, bytes and retained messages of one game, and what is left after both
    sides left."""
    with Broker() as broker:
        gen = Generator(broker.port, 0, 1, think_ms, seed=7)
        gen.renew = False
        ok = gen.ramp(games, time.monotonic() + 20)
        mid_retained = None
        end = time.monotonic() + 30
        while gen.games and time.monotonic() < end:
            gen.run_for(0.05)
            if mid_retained is None and gen.stats.paired >= games:
                mid_retained = retained_kinds(retained_on(broker.port, quiet_s=0.2))
        gen.close(0.3)
        left = retained_on(broker.port, quiet_s=0.3)
    fin = gen.finished
    if not ok or len(fin) < games:
        raise BrokerError("only %d of %d games played to the end" % (len(fin), games))
    out = {"games": len(fin), "plies": sum(f[3] for f in fin) / len(fin),
           "published": sum(f[0] for f in fin) / len(fin), "delivered": sum(f[1] for f in fin) / len(fin),
           "bytes_in": sum(f[2] for f in fin) / len(fin), "errors": gen.stats.errors, "why": gen.stats.why,
           "retained_in_play": mid_retained or {}, "retained_left": retained_kinds(left),
           "retained_left_topics": sorted(left)}
    log("one game: %.0f plies, %.0f messages published (%.0f bytes), %.0f delivered; retained while "
        "playing %s, left after both left %s; errors %d" % (
            out["plies"], out["published"], out["bytes_in"], out["delivered"], out["retained_in_play"],
            out["retained_left"] or "none", out["errors"]))
    return out


def table(steps):
    lines = ["| games | connections | msgs/s through the broker (in + out) | moves/s | latency p50 / p99 / max (ms) "
             "| broker CPU | broker RSS | generator CPU (busiest process) | machine busy (of 2 cores), load "
             "| errors |", "|---|---|---|---|---|---|---|---|---|---|"]
    for s in steps:
        lines.append("| %d | %d | %.0f (%.0f + %.0f) | %.0f | %.0f / %.0f / %.0f | %.0f %% | %.1f MB | %.0f %% (%.0f %%) "
                     "| %.2f, %.1f | %d |" % (
                         s["games"], s["connections"], s["msgs_s"], s["published_s"], s["delivered_s"],
                         s["moves_s"], s["p50_ms"] or 0, s["p99_ms"] or 0, s["max_ms"] or 0,
                         s["broker_cpu"] * 100, s["broker_rss_mb"], s["gen_cpu"] * 100, s["gen_cpu_max"] * 100,
                         s["machine_cpu"], s["load"], s["errors"]))
    return "\n".join(lines)


def bench(steps=STEPS, window_s=WINDOW_S, think_ms=THINK_MS, workers=2, p99_ms=P99_MS,
          budget_s=BUDGET_S, per_game_games=4, log=say):
    if not available():
        raise BrokerError("mosquitto not installed: make online-deps (apt-get install mosquitto)")
    nofile = raise_file_limit()
    info = versions()
    log("online scale bench, %s: mosquitto %s, paho-mqtt %s, Python %s, %s x %s; open files %d" % (
        info["date"], info["mosquitto"], info["paho-mqtt"], info["python"], info["cores"], info["cpu"], nofile))
    log("a move every %.1f s per side (0.5x..1.5x at random), a %.0f s window per step, %d generator "
        "process(es); stop at p99 > %.0f ms, a generator process past %.0f %% of a core, errors past %.0f %%, "
        "or %.0f s of load" % (think_ms / 1000, window_s, workers, p99_ms, SATURATED * 100, ERRORS_MAX * 100,
                               budget_s))
    t_start = time.monotonic()
    result = {"versions": info, "think_ms": think_ms, "window_s": window_s, "p99_limit_ms": p99_ms,
              "steps": [], "stopped": "all steps done"}
    if per_game_games:
        result["per_game"] = per_game(per_game_games, log=log)
    last_cost = 0.0
    for n in steps:
        if 2 * n + 64 > nofile:
            result["stopped"] = "%d games need %d open files; the limit is %d" % (n, 2 * n, nofile)
            break
        spent = time.monotonic() - t_start
        if spent + max(window_s + 5, last_cost * 1.5) > budget_s:
            result["stopped"] = "the time budget (%.0f s): %.0f s spent" % (budget_s, spent)
            break
        log("step: %d games (%d boards)" % (n, 2 * n))
        t0 = time.monotonic()
        s = run_step(n, workers, think_ms, window_s, log=log)
        last_cost = time.monotonic() - t0
        s.pop("finished", None)
        result["steps"].append(s)
        log("  %.0f msgs/s (%.0f in, %.0f out), %.0f moves/s; latency p50 %.1f ms, p99 %.1f ms, max %.0f ms; "
            "broker %.0f %% CPU, %.1f MB; generator %.0f %% CPU (busiest process %.0f %%); machine %.2f cores busy, "
            "load %.1f; errors %d; %d slow connects (%.1f s waited)%s" % (
                s["msgs_s"], s["published_s"], s["delivered_s"], s["moves_s"], s["p50_ms"] or 0,
                s["p99_ms"] or 0, s["max_ms"] or 0, s["broker_cpu"] * 100, s["broker_rss_mb"],
                s["gen_cpu"] * 100, s["gen_cpu_max"] * 100, s["machine_cpu"], s["load"], s["errors"],
                s["slow_connects"], s["connect_wait_s"], (" %s" % s["why"]) if s["why"] else ""))
        total_msgs = max(1, s["moves"])
        if s["p99_ms"] is not None and s["p99_ms"] > p99_ms:
            result["stopped"] = "latency p99 %.0f ms > %.0f ms at %d games" % (s["p99_ms"], p99_ms, n)
            break
        if s["gen_cpu_max"] > SATURATED:
            result["stopped"] = ("the generator saturated at %d games (a process at %.0f %% of a core): the "
                                 "limit measured is the load generator's, not the broker's" % (n, s["gen_cpu_max"] * 100))
            break
        if s["errors"] > ERRORS_MAX * total_msgs or s["paired"] < n:
            result["stopped"] = "errors at %d games: %d (%s), %d of %d paired" % (n, s["errors"], s["why"],
                                                                                 s["paired"], n)
            break
    result["elapsed_s"] = time.monotonic() - t_start
    log("stopped: %s (%.0f s)" % (result["stopped"], result["elapsed_s"]))
    log(table(result["steps"]))
    return result


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m host_tools.benches.online_scale",
                                 description="How many online games one Mosquitto holds on this machine.")
    ap.add_argument("--steps", default=",".join(str(s) for s in STEPS), help="games at each step")
    ap.add_argument("--window", type=float, default=WINDOW_S, help="seconds measured per step")
    ap.add_argument("--think-ms", type=int, default=THINK_MS, help="mean time between a side's turn and its move")
    ap.add_argument("--workers", type=int, default=2, help="generator processes")
    ap.add_argument("--p99-ms", type=float, default=P99_MS, help="stop once the move latency's p99 passes this")
    ap.add_argument("--budget", type=float, default=BUDGET_S, help="seconds of load at most")
    ap.add_argument("--per-game", type=int, default=4, help="games played to the end first (0: none)")
    ap.add_argument("--json", help="write the results here")
    a = ap.parse_args(argv)
    try:
        steps = [int(x) for x in a.steps.split(",") if x.strip()]
    except ValueError:
        print("online_scale: error: --steps is numbers separated by commas", file=sys.stderr)
        return 2
    if not steps or min(steps) < 1 or a.window <= 0 or a.think_ms < 0 or not 1 <= a.workers <= 16:
        print("online_scale: error: steps >= 1, a window > 0, think >= 0, 1..16 workers", file=sys.stderr)
        return 2
    try:
        result = bench(steps, a.window, a.think_ms, a.workers, a.p99_ms, a.budget, a.per_game)
    except BrokerError as e:
        print("online_scale: error: %s" % e, file=sys.stderr)
        return 1
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
