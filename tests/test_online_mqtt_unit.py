"""The MQTT client (firmware/mancala/online/mqtt.py) on a fake socket module: no broker.
The socket hands over one byte per read (a remaining length split across reads), its
send buffer fills up (the broker stops reading), writes that must be offered again with
the same length (TLS), refusals, broken packets; all on a clock the test moves, in
milliseconds.  The fake module is given to the client as `socket_module` (as the page
gives it its WebSocket)."""

import errno
import socket as real_socket

import pytest

from mancala.hw.clock import ManualClock
from mancala.online import mqtt


class FakeSock:
    def __init__(self, mod):
        self.mod = mod
        # a real, writable socket's fd for select.poll (CPython's poll wants a file)
        self._pair = real_socket.socketpair()
        self.inbound = bytearray()
        self.written = bytearray()
        self.take = 1 << 20  # bytes a write takes now; 0: "would block"
        self.read_size = 1  # bytes a read hands over at most
        self.asked = []  # the length of every write asked for
        self.closed = False
        mod.socks.append(self)

    def fileno(self):
        return self._pair[0].fileno()

    def setsockopt(self, *a):
        pass

    def setblocking(self, flag):
        pass

    def connect(self, addr):
        raise OSError(errno.EINPROGRESS)

    def send(self, data):
        self.asked.append(len(data))
        if not self.take:
            raise OSError(errno.EAGAIN)
        n = min(len(data), self.take)
        self.written += bytes(data[:n])
        return n

    def recv_into(self, buf):
        if not self.inbound:
            raise OSError(errno.EAGAIN)
        n = min(len(buf), self.read_size, len(self.inbound))
        buf[:n] = self.inbound[:n]
        del self.inbound[:n]
        return n

    def close(self):
        self.closed = True
        for s in self._pair:
            s.close()


class FakeSocketModule:
    SOCK_STREAM = 1

    def __init__(self):
        self.socks = []

    def getaddrinfo(self, host, port, *a):
        return [(2, 1, 0, "", (host, port))]

    def socket(self):
        return FakeSock(self)


def connack(code=0):
    return bytes([0x20, 2, 0, code])


def publish(topic, payload, pid=0):
    tb = topic.encode()
    body = len(tb).to_bytes(2, "big") + tb + (pid.to_bytes(2, "big") if pid else b"") + payload
    head = bytearray([0x32 if pid else 0x30])
    n = len(body)
    while True:
        b = n & 0x7F
        n >>= 7
        head.append(b | 0x80 if n else b)
        if not n:
            return bytes(head) + body


def packets(data):
    """The MQTT packets in a byte stream: [(type nibble, whole packet)]."""
    out, i = [], 0
    while i < len(data):
        n, shift, j = 0, 0, i + 1
        while True:
            b = data[j]
            n |= (b & 0x7F) << shift
            j += 1
            if not b & 0x80:
                break
            shift += 7
        out.append((data[i] >> 4, bytes(data[i:j + n])))
        i = j + n
    return out


def up(**kw):
    """A client connected to the fake broker (CONNACK read), its socket and clock."""
    mod = FakeSocketModule()
    clock = ManualClock()
    c = mqtt.Client("t", "broker", 1883, clock=clock, socket_module=mod, **kw)
    got = []
    c.on_message = lambda t, pl, r: got.append((t, pl))
    c.got = got
    c.start()
    for _ in range(4):
        c.poll()
        if mod.socks and c.state == mqtt.WAIT_CONNACK:
            break
    sock = mod.socks[-1]
    sock.inbound += connack()
    for _ in range(8):
        c.poll()
    assert c.connected, c.last_error
    return c, sock, clock


def test_the_socket_module_argument_is_used_and_connect_is_written(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "socket", None)  # (an import of `socket` would fail)
    c, sock, clock = up()
    kinds = [k for k, _ in packets(sock.written)]
    assert kinds[0] == 1  # CONNECT


def test_one_byte_per_read_and_a_split_remaining_length():
    c, sock, clock = up()
    sock.written.clear()
    payload = bytes(range(256)) * 2  # 512 bytes: a two-byte remaining length
    sock.inbound += publish("a/b", payload, pid=7) + publish("c", b"x")
    for _ in range(len(sock.inbound) + 10):
        c.poll()
    assert c.got == [("a/b", payload), ("c", b"x")]
    assert packets(sock.written) == [(4, bytes([0x40, 2, 0, 7]))]  # its PUBACK, once
    assert c.connected and c.drops == 0


def test_no_puback_is_lost_while_the_send_buffer_is_full():
    """S3: the broker stops reading; a QoS 1 message arrives: it waits (unhandled) until
    its PUBACK has room, then is handed over once and acknowledged."""
    c, sock, clock = up(packet_max=256, keepalive_s=60)
    sock.take = 0  # the socket takes nothing more
    assert c.publish("t", b"y" * 248, qos=0)  # 254 of the send buffer's 256 bytes
    sock.read_size = 64
    sock.inbound += publish("in", b"z", pid=300)
    for _ in range(10):
        clock.advance(10)
        c.poll()
    assert c.got == []  # not handled: its PUBACK could not be queued
    sock.take = 1 << 20
    for _ in range(10):
        c.poll()
    assert c.got == [("in", b"z")]
    assert (4, bytes([0x40, 2, 300 >> 8, 300 & 0xFF])) in packets(sock.written)


def test_a_broker_that_stops_reading_is_left_after_the_keepalive():
    """S4: the send buffer full, no PINGREQ can be queued, nothing comes in: the client
    leaves after the keepalive + 2 s instead of staying "connected"."""
    c, sock, clock = up(packet_max=256, keepalive_s=10)
    sock.take = 0
    assert c.publish("t", b"y" * 248, qos=0)  # the send buffer full: no room for a PINGREQ
    for _ in range(12):
        clock.advance(1000)
        c.poll()
    assert c.connected
    clock.advance(1000)
    c.poll()
    assert c.state == mqtt.DOWN and c.last_error == "the broker stopped answering"


def test_a_ping_goes_out_while_writes_flow_but_nothing_comes_in():
    c, sock, clock = up(keepalive_s=10)
    for _ in range(6):
        clock.advance(1000)
        c.publish("t", b"1", qos=0)  # a packet out every second
        c.poll()
    assert c.pings == 1  # 5 s without a packet in


def test_a_write_not_taken_is_offered_again_with_the_same_length():
    """S5b: after a write the socket did not take (TLS's WANT_WRITE), the next one asks
    for exactly the same bytes even when more was queued since."""
    c, sock, clock = up()
    sock.take = 0
    c.publish("t", b"a" * 10, qos=0)
    c.poll()
    first = sock.asked[-1]
    c.publish("t", b"b" * 10, qos=0)
    c.poll()
    assert sock.asked[-1] == first
    sock.take = 1 << 20
    c.poll()
    c.poll()
    assert [pl[-10:] for k, pl in packets(sock.written) if k == 3] == [b"a" * 10, b"b" * 10]


def test_resends_go_in_the_order_they_were_published():
    """After a reconnection the slots are sent oldest first: a newer retained state is
    never overwritten by an older one sent after it."""
    c, sock, clock = up(slots=3)
    sock.take = 0
    ids = [c.publish("s", b"%d" % i, retain=True) for i in range(3)]
    sock.read_size = 64
    sock.inbound += bytes([0x40, 2, 0, ids[0]])  # the first acknowledged: its slot free
    c.poll()
    ids.append(c.publish("s", b"3", retain=True))  # the newest, in the first slot
    assert ids[3] and c.pending() == 3
    c.reconnect()
    clock.advance(1)
    for _ in range(4):
        c.poll()
    sock2 = c.sock
    sock2.inbound += connack()
    for _ in range(8):
        c.poll()
    sent = [pl[-1:] for k, pl in packets(sock2.written) if k == 3]
    assert sent == [b"1", b"2", b"3"]


def test_packet_ids_skip_those_still_held():
    c, sock, clock = up(slots=2)
    sock.take = 0
    c._pid = 65534
    a = c.publish("t", b"1")  # 65535
    b = c.publish("t", b"2")  # 1 (wrapped)
    sock.inbound += bytes([0x40, 2, 0xFF, 0xFF])  # 65535 acknowledged
    for _ in range(4):
        c.poll()
    c._pid = 0  # the ids come round to 1 again while 1 is held
    d = c.publish("t", b"3")
    assert (a, b) == (65535, 1) and d == 2


def test_a_refused_subscription_is_said_with_its_topic():
    c, sock, clock = up()
    pid = c.subscribe("forbidden/topic")
    sock.read_size = 64
    sock.inbound += bytes([0x90, 3, pid >> 8, pid & 0xFF, 0x80])
    c.poll()
    assert c.refused_subs == 1 and c.last_error == "the broker refused subscription to forbidden/topic"


def test_a_topic_that_is_not_text_is_dropped_and_the_connection_lives():
    c, sock, clock = up()
    sock.read_size = 64
    bad = b"\x00\x02\xff\xfe" + b"hi"
    sock.inbound += bytes([0x30, len(bad)]) + bad + publish("ok", b"1")
    for _ in range(4):
        c.poll()
    assert c.got == [("ok", b"1")] and c.connected


def test_a_wrong_password_stops_the_attempts_until_started_again():
    mod = FakeSocketModule()
    clock = ManualClock()
    c = mqtt.Client("t", "broker", 1883, clock=clock, socket_module=mod, user="u", password="p")
    c.start()
    for _ in range(4):
        c.poll()
    mod.socks[-1].inbound += connack(5)
    for _ in range(8):
        c.poll()
    assert c.last_error == "the broker refused: not authorised by the broker: check the user name and password"
    for _ in range(20):
        clock.advance(1000)
        c.poll()
    assert len(mod.socks) == 1 and c.state == mqtt.DOWN  # no new attempt
    c.start()
    clock.advance(20000)
    c.poll()
    assert len(mod.socks) == 2


def test_a_connect_too_long_for_the_buffer_is_refused_with_a_reason():
    mod = FakeSocketModule()
    c = mqtt.Client("t", "broker", 1883, clock=ManualClock(), socket_module=mod, packet_max=128,
                    user="u" * 80, password="p" * 80)
    c.start()
    c.poll()
    assert c.state == mqtt.DOWN and "take more than 128 bytes" in c.last_error and not c.enabled


@pytest.mark.parametrize("tls,ms", [(False, 5000), (True, 15000)])
def test_the_connect_timeout_is_longer_with_tls(tls, ms):
    assert mqtt.Client("t", "b", clock=ManualClock(), tls=tls).connect_timeout_ms == ms


def test_a_stop_waits_for_the_pubacks_then_disconnects_then_the_brokers_close():
    """A leave's clears acknowledged before DISCONNECT, the broker's close awaited after
    it: a socket closed with the PUBACKs still to come answers them with a reset, and a
    broker that takes the reset before it has read DISCONNECT publishes the will
    ("away", retained, after a clean leave).  Never a wait inside one poll."""
    c, sock, clock = up()
    sock.read_size = 1 << 16
    pid = c.publish("mancala/v1/g/x/s/a", b"", True)
    c.poll()
    c.stop()
    assert c.state == mqtt.CLOSING and not c.connected and not c.closed
    kinds = [k for k, _ in packets(sock.written)]
    assert kinds[-1] == mqtt.PUBLISH >> 4  # no DISCONNECT while the clear is unacknowledged
    sock.inbound += publish("mancala/v1/late", b"x")  # a message arriving: not handed over
    sock.inbound += bytes([mqtt.PUBACK, 2, pid >> 8, pid & 0xFF])
    c.poll()
    c.poll()
    assert packets(sock.written)[-1][0] == mqtt.DISCONNECT >> 4 and not sock.closed
    assert c.got == []
    clock.advance(mqtt.CLOSE_EOF_MS + 1)  # the broker never closes: closed by us after
    c.poll()
    assert c.closed and sock.closed and c.drops == 0
    c.poll()
    assert c.closed and len(sock.mod.socks) == 1  # stopped: no new connection


def test_a_stop_with_a_broker_that_never_acknowledges_disconnects_after_a_second():
    c, sock, clock = up()
    c.publish("mancala/v1/g/x/s/a", b"", True)
    c.stop()
    c.poll()
    assert packets(sock.written)[-1][0] == mqtt.PUBLISH >> 4
    clock.advance(mqtt.CLOSE_ACKS_MS + 1)
    c.poll()
    assert packets(sock.written)[-1][0] == mqtt.DISCONNECT >> 4


def test_finish_is_bounded_when_the_clock_does_not_move():
    c, sock, clock = up()
    c.publish("mancala/v1/g/x/s/a", b"", True)
    c.finish(max_ms=20)  # (a manual clock: bounded by its turns too)
    assert c.closed and sock.closed
