"""A small MQTT 3.1.1 client for the board's loop: it never blocks (docs/ONLINE.md "Client").

Written for this project after the design of micropython-lib's umqtt.simple (the packet
layouts; MIT) and Peter Hinch's mqtt_as (MIT: a client that lives through Wi-Fi and
broker outages on its own), but driven differently: no thread, no asyncio.  The loop
calls `poll()` once a turn; each call does one small step (open the socket, write what
the socket takes, read what has arrived, hand over whole packets, ping, notice a dead
connection) and returns at once.  A connection lost for any reason is opened again
after a back-off, and the QoS 1 messages not yet acknowledged are sent again (DUP).

Memory: every buffer is allocated once, in `__init__`: the receive buffer, the send
buffer and `slots` QoS 1 slots, each `packet_max` bytes (docs/ONLINE.md gives the heap
it takes).  An idle turn (nothing to send, nothing arrived) allocates nothing.  A
message in or out allocates its topic and payload objects (the caller's, or the ones
handed to `on_message`).

The only step that can block is the broker's name lookup (getaddrinfo), done once at
the first connection (and again after a few failures): give the broker's address as
an IP to avoid it.
"""

import errno
import select

# Connection states
DOWN = 0  # no socket: waiting for the link and the back-off
OPENING = 1  # TCP (and TLS) connection under way
WAIT_CONNACK = 2  # CONNECT sent, no CONNACK yet
UP = 3
CLOSING = 4  # stop(): the slots' PUBACKs awaited, DISCONNECT sent, the broker's close awaited
CLOSE_ACKS_MS = 1000  # how long a leave waits for the broker to take what it was sent
CLOSE_EOF_MS = 500  # then, after DISCONNECT, for the broker to close the connection

STATE_NAMES = ("down", "opening", "waiting for the broker", "connected")

CONNECT = 0x10
CONNACK = 0x20
PUBLISH = 0x30
PUBACK = 0x40
SUBSCRIBE = 0x82
SUBACK = 0x90
UNSUBSCRIBE = 0xA2
UNSUBACK = 0xB0
PINGREQ = 0xC0
PINGRESP = 0xD0
DISCONNECT = 0xE0

CONNACK_WHY = ("", "the broker refused the protocol version", "the broker refused the client id",
               "the broker is unavailable", "wrong user name or password: check the user name and password",
               "not authorised by the broker: check the user name and password")

_WOULD_BLOCK = (errno.EAGAIN, getattr(errno, "EWOULDBLOCK", errno.EAGAIN))
_TLS_WANT = (2, 3)  # CPython's ssl: SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE (args[0])
_IN_PROGRESS = (getattr(errno, "EINPROGRESS", 115), getattr(errno, "EALREADY", 114)) + _WOULD_BLOCK


def _errno(e):
    return e.args[0] if e.args else 0


class Client:
    """One connection to one broker, kept up as long as the link is.

    on_message(topic: str, payload: bytes, retained: bool) is called for each message
    that arrives; on_connect() after each CONNACK (subscribe again there: the session is
    clean); on_drop(why: str) when a connection ends."""

    def __init__(self, client_id, server, port=1883, user=None, password=None, keepalive_s=30,
                 tls=False, clock=None, link=None, packet_max=1152, slots=3,
                 connect_timeout_ms=None, backoff_ms=500, backoff_max_ms=15000, socket_module=None):
        """socket_module: what to open connections with (the page passes its WebSocket
        module); None: the port's `socket`, imported at the first connection (a port
        without one still builds a client).  connect_timeout_ms: None is 5 s, or 15 s
        with TLS."""
        if clock is None:
            from mancala.hw.clock import Clock

            clock = Clock()
        self.client_id = client_id
        self.server = server
        self.port = port
        self.user = user
        self.password = password
        self.keepalive_ms = keepalive_s * 1000
        self.tls = tls
        # (a TLS handshake's ECDHE step takes a second or more on the chip, inside a poll)
        self.connect_timeout_ms = connect_timeout_ms or (15000 if tls else 5000)
        self._socket = socket_module  # None: the port's `socket`, imported when opening
        self.clock = clock
        self.link = link
        self.backoff_min = backoff_ms
        self.backoff_max = backoff_max_ms
        self.on_message = None
        self.on_connect = None
        self.on_drop = None
        self.will = None  # (topic, payload, retain)

        self.packet_max = packet_max
        self._rx = bytearray(packet_max)
        self._rxv = memoryview(self._rx)
        self._rx_len = 0
        self._delivered = False
        self._skip = 0  # bytes of a packet too big for the buffer still to drop
        self._tx = bytearray(packet_max)
        self._txv = memoryview(self._tx)
        self._tx_len = 0
        self._tx_sent = 0
        self._wr_end = 0  # a write the socket did not take: its end, kept until it is taken (TLS)
        # QoS 1 messages until their PUBACK: packet id (0: free), length, queued in _tx?
        self._slot_buf = [bytearray(packet_max) for _ in range(slots)]
        self._slot_pid = [0] * slots
        self._slot_len = [0] * slots
        self._slot_queued = [False] * slots
        self._slot_seq = [0] * slots  # the order they were published in (resent in it)
        self._seq = 0
        self._pid = 0
        # the last subscriptions' packet ids and topics (a refusal names its topic)
        self._sub_pid = [0] * 4
        self._sub_topic = [""] * 4
        self._sub_k = 0

        self.state = DOWN
        self.sock = None
        self._rd = self._wr = None
        self._poller = None
        self._addr = None
        self._since = clock.now()  # when the current state began
        self._bye_at = None  # (CLOSING: when DISCONNECT went, None before)
        self._wait_ms = 0  # the back-off before the next attempt
        self._last_tx = 0
        self._last_rx = 0
        self._ping_at = None  # when the unanswered PINGREQ went out
        self.pings = 0  # PINGREQs sent (sync tokens), PINGRESPs received
        self.pongs = 0
        self._ping_floor = 0
        self.enabled = False
        # what happened, for the board's light, the page and the tests
        self.connects = 0
        self.drops = 0
        self.oversize = 0
        self.refused_subs = 0  # subscriptions the broker refused (SUBACK 0x80)
        self.auth_refused = False  # CONNACK 4/5: no new attempt until start() again
        self.last_error = ""

    # -- settings ----------------------------------------------------------------

    def set_will(self, topic, payload, retain=True):
        """The message the broker publishes (QoS 1) if this client vanishes."""
        self.will = (topic, payload, retain)

    def start(self):
        """Begin connecting (from the next poll()); connections come back by themselves
        (not after a refused user name or password: until start() is called again)."""
        self.enabled = True
        self.auth_refused = False

    def stop(self):
        """Leave cleanly and stay down, without waiting: from UP the client goes CLOSING,
        and the next polls finish the leave: the messages in the slots (a leave's retained
        clears) acknowledged, or CLOSE_ACKS_MS; then DISCONNECT (the broker then drops the
        will) and the broker's own close, or CLOSE_EOF_MS.  A socket closed at once, with
        the broker's PUBACKs still to come, answers them with a reset: a broker that takes
        the reset before it has read DISCONNECT drops the connection as lost and publishes
        the will ("away", retained, after a clean leave).  `closed` says when it is over;
        finish() waits for it, bounded."""
        self.enabled = False
        if self.state == UP:
            self.state = CLOSING
            self._since = self.clock.now()
            self._bye_at = None
            self._closing(self._since)
            return
        if self.state != CLOSING:
            self._close("stopped", count=False)

    @property
    def closed(self):
        return self.state == DOWN

    def finish(self, max_ms=CLOSE_ACKS_MS + CLOSE_EOF_MS):
        """stop(), then poll until the leave is over, at most max_ms (and as many 2 ms
        turns): for a caller about to let the client go (a board leaving online play,
        the PC's command).  Blocks that long at worst."""
        import time

        self.stop()
        t0 = self.clock.now()
        for _ in range(max_ms // 2 + 1):
            if self.state == DOWN or self.clock.diff(self.clock.now(), t0) > max_ms:
                break
            self.poll()
            if hasattr(time, "sleep_ms"):
                time.sleep_ms(2)
            else:
                time.sleep(0.002)
        if self.state != DOWN:
            self._drain()
            self._close("stopped", count=False)

    def _closing(self, now):
        """One step of a leave (stop())."""
        if not self._flush():
            return
        if not self._read():
            self.last_error = "stopped"  # (the broker closed it: the leave is over)
            return
        if self._bye_at is None:
            self._queue_slots()
            if not self._held() or self.clock.diff(now, self._since) > CLOSE_ACKS_MS:
                if self._queue2(DISCONNECT, 0):
                    self._bye_at = now
                    self._flush()
            return
        if self.clock.diff(now, self._bye_at) > CLOSE_EOF_MS:
            self._drain()
            self._close("stopped", count=False)

    def _held(self):
        """Whether a message still waits for its PUBACK."""
        for pid in self._slot_pid:
            if pid:
                return True
        return False

    def _drain(self):
        """Read and drop what has arrived, before a close: a socket closed with unread
        bytes sends a reset, and a broker that takes the reset before it has read our
        DISCONNECT drops the connection as lost and publishes the will ("away" after a
        clean leave).  Never waits: only what is there now."""
        for _ in range(8):
            try:
                n = self._rd(self._rxv)
            except OSError:
                return
            if not n:  # None: nothing there; 0: closed
                return

    def reconnect(self):
        """End this connection and open a new one at once (a new client id or will)."""
        if self.state != DOWN:
            self._close("reconnecting", count=False)
        self._wait_ms = 0

    @property
    def connected(self):
        return self.state == UP

    def delivered(self, pid):
        """True once the broker has acknowledged QoS 1 message `pid` (publish's id)."""
        return pid not in self._slot_pid

    def has_slot(self):
        """A QoS 1 message would be taken now (a slot is free)."""
        return self._free_slot() >= 0

    def pending(self):
        """QoS 1 messages not yet acknowledged by the broker."""
        return sum(1 for p in self._slot_pid if p)

    # -- the loop's step -----------------------------------------------------------

    def poll(self, deliver=True):
        """One small step; never blocks.  Returns the state (DOWN..UP).  deliver=False:
        write and keep the connection, but read nothing this turn (hand no message over:
        the board is busy with a press)."""
        state = self.state
        if self.link is not None and not self.link.connected():
            if state != DOWN:
                self._close("the network link is down")
            return DOWN
        now = self.clock.now()
        if state == CLOSING:
            self._closing(now)
            return self.state
        if state == DOWN:
            if self.enabled and self.clock.diff(now, self._since) >= self._wait_ms:
                self._open(now)
            return self.state
        if state == OPENING:
            self._opening(now)
            if self.state != WAIT_CONNACK:
                return self.state
        if state != UP and self.clock.diff(now, self._since) > self.connect_timeout_ms:
            self._close("no answer from the broker in %d ms" % self.connect_timeout_ms)
            return DOWN
        if not self._flush():
            return self.state
        if deliver and not self._read():
            return self.state
        if self.state == UP:
            self._keepalive(now)
        return self.state

    def _open(self, now):
        self._since = now
        try:
            sk = self._socket
            if sk is None:
                # (imported here: a port without a network, the Pico or the page's VM, still
                # loads the module and builds a client, which then never connects)
                import socket  # type: ignore[import-not-found]  # (the rp2 stubs: the Pico, no Wi-Fi)

                sk = socket
            if self._addr is None:
                self._addr = sk.getaddrinfo(self.server, self.port, 0, sk.SOCK_STREAM)[0][-1]
            sock = sk.socket()
        except ImportError:
            self._fail("this port has no network (no socket module)")
            return
        except OSError as e:
            self._addr = None
            self._fail("the broker's address %s: error %d" % (self.server, _errno(e)))
            return
        self._bind(sock)
        try:  # small packets go at once (Nagle's wait behind a delayed ACK: 40 ms a message)
            sock.setsockopt(6, 1, 1)  # IPPROTO_TCP, TCP_NODELAY (the same numbers on lwIP)
        except (OSError, AttributeError):
            pass
        sock.setblocking(False)
        try:
            sock.connect(self._addr)
        except OSError as e:
            if _errno(e) not in _IN_PROGRESS:
                self._close("cannot connect: error %d" % _errno(e))
                return
        poller = select.poll()
        poller.register(sock, select.POLLOUT)
        self._poller = poller
        self.state = OPENING
        self._rx_len = self._skip = 0
        self._tx_len = self._tx_sent = self._wr_end = 0
        if not self._queue_connect():
            self._close("the client id, will, user and password take more than %d bytes" % self.packet_max)
            self.enabled = False

    def _opening(self, now):
        """The TCP connection under way: done (writable), failed, or still waiting."""
        poller = self._poller
        ev = 0
        ipoll = getattr(poller, "ipoll", None)
        for _, e in (ipoll(0) if ipoll is not None else poller.poll(0)):  # ipoll: no list made
            ev = e
        if ev & (select.POLLERR | select.POLLHUP):
            self._close("the broker %s:%d refused the connection" % (self.server, self.port))
            return
        if self.clock.diff(now, self._since) > self.connect_timeout_ms:
            self._close("no connection to the broker in %d ms" % self.connect_timeout_ms)
            return
        if not ev & select.POLLOUT:
            return
        poller.unregister(self.sock)
        self._poller = None
        if self.tls:
            try:
                self._bind(self._wrap_tls(self.sock))
            except ImportError:
                self._close("TLS: this port has no ssl module")
                return
            except (OSError, ValueError) as e:  # (ValueError: a CA certificate that is not one)
                self._close("TLS: error %s" % (_errno(e),))
                return
        self.state = WAIT_CONNACK

    def _bind(self, sock):
        """Take `sock` as the connection: its read and write, looked up once (a method
        looked up by name is an object made on the heap: not in every turn)."""
        self.sock = sock
        self._rd = getattr(sock, "readinto", None) or sock.recv_into
        self._wr = getattr(sock, "write", None) or sock.send

    def _wrap_tls(self, sock):
        import ssl

        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        if isinstance(self.tls, dict) and self.tls.get("cadata"):
            ctx.verify_mode = ssl.CERT_REQUIRED  # type: ignore[attr-defined]
            ctx.load_verify_locations(cadata=self.tls["cadata"])
        else:  # encrypted, the broker's certificate not checked (no CA on the board)
            if hasattr(ctx, "check_hostname"):
                ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE  # type: ignore[attr-defined]
        return ctx.wrap_socket(sock, server_hostname=self.server, do_handshake_on_connect=False)

    def _fail(self, why):
        self.last_error = why
        self.state = DOWN
        self._since = self.clock.now()
        w = self._wait_ms * 2
        if w >= self.backoff_max:  # failing for a while: look the broker's name up again
            self._addr = None
        self._wait_ms = self.backoff_min if w < self.backoff_min else self.backoff_max if w > self.backoff_max else w

    def _close(self, why, count=True):
        if self.sock is not None:
            try:
                self.sock.close()
            except OSError:
                pass
        was_up = self.state == UP
        self.sock = None
        self._rd = self._wr = None
        self._poller = None
        self._wr_end = 0
        self._ping_at = None
        self._ping_floor = self.pings
        self.pongs = self.pings  # (tokens from before are answered by `synced` as lost)
        if count and was_up:
            self.drops += 1
        for i in range(len(self._slot_pid)):
            self._slot_queued[i] = False
        self._fail(why)
        if count and self.on_drop is not None:
            self.on_drop(why)

    # -- sending ---------------------------------------------------------------------

    def _room(self, n):
        """Make room for n bytes at the end of the send buffer; False if there is none."""
        if self._tx_sent and self._tx_sent == self._tx_len:
            self._tx_len = self._tx_sent = 0
        if self._tx_len + n <= self.packet_max:
            return True
        if self._tx_sent and not self._wr_end:  # (a write pending: its bytes stay where they are)
            rest = self._tx_len - self._tx_sent
            self._txv[0:rest] = self._txv[self._tx_sent:self._tx_len]
            self._tx_len, self._tx_sent = rest, 0
        return self._tx_len + n <= self.packet_max

    def _queue2(self, head, body_byte_count, pid=0):
        """A packet of a fixed header and (for PUBACK and friends) a packet id."""
        if not self._room(4):
            return False
        t = self._tx
        i = self._tx_len
        t[i] = head
        t[i + 1] = body_byte_count
        if body_byte_count:
            t[i + 2] = pid >> 8
            t[i + 3] = pid & 0xFF
        self._tx_len = i + 2 + body_byte_count
        return True

    def _queue_connect(self):
        """CONNECT into the empty send buffer; False if it does not fit."""
        user = self.user.encode() if self.user else None
        pw = self.password.encode() if self.password else None
        cid = self.client_id.encode()
        flags = 0x02  # clean session: the retained states carry what a side missed
        n = 10 + 2 + len(cid)
        will = self.will
        if will is not None:
            wt, wp = will[0].encode(), _b(will[1])
            flags |= 0x04 | 0x08 | (0x20 if will[2] else 0)  # will, QoS 1, retain
            n += 4 + len(wt) + len(wp)
        if user is not None:
            flags |= 0x80
            n += 2 + len(user)
            if pw is not None:
                flags |= 0x40
                n += 2 + len(pw)
        if n + 5 > self.packet_max:
            return False
        t = self._tx
        i = _put_head(t, 0, CONNECT, n)
        i = _put_str(t, i, b"MQTT")
        t[i] = 4  # protocol level 3.1.1
        t[i + 1] = flags
        ka = self.keepalive_ms // 1000
        t[i + 2] = ka >> 8
        t[i + 3] = ka & 0xFF
        i = _put_str(t, i + 4, cid)
        if will is not None:
            i = _put_str(t, i, wt)
            i = _put_str(t, i, wp)
        if user is not None:
            i = _put_str(t, i, user)
            if pw is not None:
                i = _put_str(t, i, pw)
        self._tx_len = i
        return True

    def _next_pid(self):
        """The next packet id, never one a slot still holds (after the ids wrap)."""
        while True:
            self._pid = self._pid % 65535 + 1
            if self._pid not in self._slot_pid:
                return self._pid

    def publish(self, topic, payload, retain=False, qos=1):
        """Send a message.  QoS 1: kept in a slot until the broker's PUBACK, sent again
        after a reconnection; returns its packet id, or 0 if every slot is taken or it is
        too long.  QoS 0: sent only if connected and the send buffer has room (id 1),
        else 0."""
        tb = topic.encode()
        pb = _b(payload)
        n = 2 + len(tb) + len(pb) + (2 if qos else 0)
        if n + 5 > self.packet_max:
            self.last_error = "a message of %d bytes is longer than %d" % (n, self.packet_max)
            return 0
        head = PUBLISH | (0x02 if qos else 0) | (0x01 if retain else 0)
        if not qos:
            if self.state != UP or not self._room(n + 5):
                return 0
            t = self._tx
            i = _put_head(t, self._tx_len, head, n)
            i = _put_str(t, i, tb)
            t[i:i + len(pb)] = pb
            self._tx_len = i + len(pb)
            return 1
        k = self._free_slot()
        if k < 0:
            return 0
        pid = self._next_pid()
        buf = self._slot_buf[k]
        i = _put_head(buf, 0, head, n)
        i = _put_str(buf, i, tb)
        buf[i] = pid >> 8
        buf[i + 1] = pid & 0xFF
        i += 2
        buf[i:i + len(pb)] = pb
        self._slot_pid[k] = pid
        self._slot_len[k] = i + len(pb)
        self._slot_queued[k] = False
        self._seq = (self._seq + 1) & 0x3FFFFFFF
        self._slot_seq[k] = self._seq
        if self.state == UP:
            self._queue_slots()
        return pid

    def _free_slot(self):
        pids = self._slot_pid
        for k in range(len(pids)):
            if not pids[k]:
                return k
        return -1

    def _queue_slots(self):
        """Copy the slots not yet in the send buffer into it, oldest first, as room
        allows (in the order they were published: a newer retained state must not be
        overwritten by an older one sent after it)."""
        pids, queued, seq = self._slot_pid, self._slot_queued, self._slot_seq
        while True:
            k = -1
            for j in range(len(pids)):
                if pids[j] and not queued[j] and (k < 0 or seq[j] - seq[k] < 0):
                    k = j
            if k < 0:
                return
            n = self._slot_len[k]
            if not self._room(n):
                return
            self._tx[self._tx_len:self._tx_len + n] = memoryview(self._slot_buf[k])[0:n]
            self._tx_len += n
            queued[k] = True
            self._slot_buf[k][0] |= 0x08  # any later copy is a resend: DUP

    def subscribe(self, topic, qos=1):
        """Subscribe (while connected; the session is clean: subscribe again in
        on_connect).  Returns the packet id, 0 if not connected or no room.  A topic
        subscribed again gets its retained message again (MQTT 3.1.1, 3.8.4)."""
        return self._sub(SUBSCRIBE, topic, qos)

    def unsubscribe(self, topic):
        return self._sub(UNSUBSCRIBE, topic, None)

    def _sub(self, head, topic, qos):
        tb = topic.encode()
        n = 2 + 2 + len(tb) + (1 if qos is not None else 0)
        if self.state != UP or not self._room(n + 5):
            return 0
        pid = self._next_pid()
        t = self._tx
        i = _put_head(t, self._tx_len, head, n)
        t[i] = pid >> 8
        t[i + 1] = pid & 0xFF
        i = _put_str(t, i + 2, tb)
        if qos is not None:
            t[i] = qos
            i += 1
            k = self._sub_k
            self._sub_pid[k] = pid
            self._sub_topic[k] = topic
            self._sub_k = (k + 1) % len(self._sub_pid)
        self._tx_len = i
        return pid

    def sync(self):
        """Send a PINGREQ and return a token: once `synced(token)`, every message the
        broker had for us before it (the retained ones of a subscription sent earlier)
        has arrived.  0 if not connected."""
        if self.state != UP or not self._queue2(PINGREQ, 0):
            return 0
        self.pings += 1
        if self._ping_at is None:
            self._ping_at = self.clock.now()
        return self.pings

    def synced(self, token):
        """True once the PINGRESP of `token` is in; None if the connection it was sent
        on has gone (ask again); False while waiting."""
        if token <= self._ping_floor:
            return None
        return self.pongs >= token

    def _keepalive(self, now):
        clock = self.clock  # (clock.diff called, never held: a bound method is made on the heap)
        half = self.keepalive_ms >> 1
        # nothing from the broker in a keepalive (+2 s): gone, even when no ping could be
        # queued (a broker that stopped reading: the send buffer stays full)
        if clock.diff(now, self._last_rx) > self.keepalive_ms + 2000:
            self._close("the broker stopped answering")
            return
        if self._ping_at is not None:
            if clock.diff(now, self._ping_at) > half + 2000:
                self._close("the broker stopped answering")
            return
        if clock.diff(now, self._last_tx) >= half or clock.diff(now, self._last_rx) >= half:
            self.sync()

    def _flush(self):
        """Write what the socket takes now; False if the connection ended."""
        if self._tx_sent == self._tx_len or self.state == OPENING:
            return True
        # (a write the socket did not take is offered again with the same length: TLS
        # (mbedtls) must be called again with the same data after WANT_WRITE)
        end = self._wr_end or self._tx_len
        try:
            n = self._wr(self._txv[self._tx_sent:end])
        except OSError as e:
            if self._blocked(e):
                self._wr_end = end
                return True
            self._close("the connection broke (write: error %s)" % (_errno(e),))
            return False
        if not n:  # None: MicroPython's "would block"
            self._wr_end = end
            return True
        self._wr_end = 0
        self._tx_sent += n
        self._last_tx = self.clock.now()
        if self._tx_sent == self._tx_len:
            self._tx_sent = self._tx_len = 0
        return True

    def _blocked(self, e):
        """The socket would block (for TLS in CPython: SSLWantReadError/WriteError,
        whose args[0] is SSL_ERROR_WANT_READ 2 / WANT_WRITE 3)."""
        n = _errno(e)
        return n in _WOULD_BLOCK or (bool(self.tls) and n in _TLS_WANT)

    # -- receiving -------------------------------------------------------------------

    def _read(self):
        """Handle the next whole packets, reading what has arrived if none is buffered;
        at most one message is handed over a turn (its handling, a signature checked and
        a move saved, is the turn's heavy part: two in one turn would double it).
        False if the connection ended."""
        if self._rx_len:
            self._delivered = False
            if not self._packets():
                return False
            if self._delivered:
                return True
        if self._rx_len >= self.packet_max:
            return True  # (a whole packet waits for room to answer it: read nothing more)
        sock = self.sock
        try:
            n = self._rd(self._rxv if not self._rx_len else self._rxv[self._rx_len:])
        except OSError as e:
            if self._blocked(e):
                return True
            self._close("the connection broke (read: error %s)" % (_errno(e),))
            return False
        if n is None:  # MicroPython: nothing there
            return True
        if n == 0:
            self._close("the broker closed the connection")
            return False
        self._last_rx = self.clock.now()
        self._rx_len += n
        self._delivered = False
        return self._packets() and self.sock is sock

    def _packets(self):
        """Handle the whole packets at the start of the receive buffer, up to the first
        message handed over."""
        rx = self._rx
        while self._rx_len and not self._delivered:
            if self._skip:
                k = self._skip if self._skip < self._rx_len else self._rx_len
                self._drop_front(k)
                self._skip -= k
                continue
            # the remaining length: up to 4 bytes of 7 bits
            n = 0
            shift = 0
            i = 1
            while True:
                if i >= self._rx_len:
                    return True  # the header is not all here yet
                b = rx[i]
                n |= (b & 0x7F) << shift
                i += 1
                if not b & 0x80:
                    break
                shift += 7
                if shift > 21:
                    self._close("a broken packet from the broker")
                    return False
            total = i + n
            if total > self.packet_max:
                self.oversize += 1
                self.last_error = "dropped a message of %d bytes (the buffer holds %d)" % (total, self.packet_max)
                self._skip = total
                continue
            if total > self._rx_len:
                return True  # the rest is still on its way
            r = self._handle(rx[0], i, total)
            if r is None:
                return True  # no room for its PUBACK now: handled in a later turn
            if not r:
                return False
            self._drop_front(total)
        return True

    def _drop_front(self, k):
        rest = self._rx_len - k
        if rest:
            self._rxv[0:rest] = self._rxv[k:self._rx_len]
        self._rx_len = rest

    def _handle(self, head, i, end):
        rx = self._rx
        kind = head & 0xF0
        if kind == PUBLISH:
            qos = head >> 1 & 3
            if qos and not self._room(4):
                return None  # (its PUBACK would be lost: the broker would stop sending)
            tl = rx[i] << 8 | rx[i + 1] if i + 2 <= end else end
            i += 2
            if i + tl + (2 if qos else 0) > end:
                self._close("a broken packet from the broker")
                return False
            try:
                topic = bytes(self._rxv[i:i + tl]).decode()
            except UnicodeError:
                topic = None
            i += tl
            if qos:
                pid = rx[i] << 8 | rx[i + 1]
                i += 2
                self._queue2(PUBACK, 2, pid)  # (QoS 2 is never asked for)
            if topic is None:
                self.last_error = "dropped a message whose topic is not text"
                return True
            payload = bytes(self._rxv[i:end])
            self._delivered = True
            if self.on_message is not None and self.state != CLOSING:  # (a leave hears nothing)
                self.on_message(topic, payload, bool(head & 1))
            return self.sock is not None
        if kind == PUBACK:
            pid = rx[i] << 8 | rx[i + 1]
            pids = self._slot_pid
            for k in range(len(pids)):
                if pids[k] == pid:
                    pids[k] = 0
            return True
        if kind == PINGRESP:
            self.pongs += 1
            if self.pongs >= self.pings:
                self._ping_at = None
            else:
                self._ping_at = self.clock.now()
            return True
        if kind == CONNACK:
            code = rx[i + 1]
            if code:
                why = CONNACK_WHY[code] if code < len(CONNACK_WHY) else "refused (%d)" % code
                self._close("the broker refused: " + why)
                if code == 4 or code == 5:  # the same credentials would be refused again
                    self.enabled = False
                    self.auth_refused = True
                return False
            self.state = UP
            self.connects += 1
            self._wait_ms = 0
            self.last_error = ""
            self._since = self._last_tx = self._last_rx = self.clock.now()
            self._queue_slots()
            if self.on_connect is not None:
                self.on_connect()
            return self.sock is not None
        if kind == SUBACK and i + 2 <= end:
            pid = rx[i] << 8 | rx[i + 1]
            for j in range(i + 2, end):
                if rx[j] & 0x80:  # a refused subscription: say which
                    topic = ""
                    for k in range(len(self._sub_pid)):
                        if self._sub_pid[k] == pid:
                            topic = self._sub_topic[k]
                    self.refused_subs += 1
                    self.last_error = "the broker refused subscription to %s" % topic
        return True  # (UNSUBACK: nothing to do)


def _b(x):
    return x.encode() if isinstance(x, str) else x


def _put_head(buf, i, head, n):
    buf[i] = head
    i += 1
    while True:
        b = n & 0x7F
        n >>= 7
        buf[i] = b | 0x80 if n else b
        i += 1
        if not n:
            return i


def _put_str(buf, i, bs):
    n = len(bs)
    buf[i] = n >> 8
    buf[i + 1] = n & 0xFF
    buf[i + 2:i + 2 + n] = bs
    return i + 2 + n
