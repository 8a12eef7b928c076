"""The firmware's MQTT client (firmware/mancala/online/mqtt.py) against a real Mosquitto:
in CPython on a clock the test moves (keepalive, dead brokers, timeouts without
waiting them out), and in the unix port of MicroPython (an idle turn allocates
nothing; the heap a client and a session take under the ESP32's heap cap; a loop turn's
worst time while the broker is slow or away)."""

import json
import time

import pytest

from host_tools.online.boards import Match
from host_tools.online.broker import Broker
from host_tools.online.fault_proxy import FaultProxy
from host_tools.runners import mpunix
from mancala.hw.clock import ManualClock
from mancala.online import mqtt
from mancala.online.link import FakeLink, check_settings, describe

ESP32_HEAP = int(1.35 * 110 * 1024)  # the ESP32's ~110 KB, in the 64-bit unix port's terms


def pump(clients, until, limit=3.0, clock=None, step_ms=0):
    """Poll the clients until `until()` (real time bounded by `limit` s)."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        for c in clients:
            c.poll()
        if until():
            return True
        if clock is not None and step_ms:
            clock.advance(step_ms)
        time.sleep(0.001)
    return False


def client(port, name, clock=None, **kw):
    c = mqtt.Client(name, "127.0.0.1", port, clock=clock or ManualClock(), **kw)
    got = []
    c.on_message = lambda t, pl, r: got.append((t, pl, r))
    c.got = got
    c.start()
    return c


def test_publish_subscribe_retained_and_puback(mqtt_broker):
    a = client(mqtt_broker.port, "ta")
    b = client(mqtt_broker.port, "tb")
    assert pump([a, b], lambda: a.connected and b.connected)
    assert a.publish("t/r", "kept", retain=True)
    assert pump([a], lambda: a.pending() == 0)  # PUBACK freed the slot
    assert b.subscribe("t/#")
    assert pump([b], lambda: b.got)
    assert b.got[0] == ("t/r", b"kept", True)
    assert a.publish("t/x", b"\x00\x01" * 300)  # 600 bytes, not retained
    assert pump([a, b], lambda: len(b.got) == 2)
    assert b.got[1] == ("t/x", b"\x00\x01" * 300, False)
    # a topic subscribed again gets its retained message again (the session's gap rule)
    assert b.subscribe("t/r")
    assert pump([b], lambda: len(b.got) == 3) and b.got[2][0] == "t/r"
    tok = b.sync()
    assert pump([b], lambda: b.synced(tok))
    a.stop(), b.stop()


def test_slots_full_and_too_long_messages_are_refused_with_zero(mqtt_broker):
    a = client(mqtt_broker.port, "tfull", slots=2, packet_max=256)
    assert a.publish("t", "1") and a.publish("t", "2")  # (queued before connecting)
    assert a.publish("t", "3") == 0
    assert a.publish("t", "x" * 300) == 0 and "longer than" in a.last_error
    assert pump([a], lambda: a.connected and a.pending() == 0)
    assert a.publish("t", "3")
    a.stop()


def test_oversize_message_in_is_dropped_and_the_connection_lives(mqtt_broker):
    big = client(mqtt_broker.port, "tbig", packet_max=4096)
    small = client(mqtt_broker.port, "tsmall", packet_max=256)
    assert pump([big, small], lambda: big.connected and small.connected)
    assert small.subscribe("o/#")
    tok = small.sync()
    assert pump([small], lambda: small.synced(tok))
    big.publish("o/big", "y" * 2000)
    big.publish("o/small", "after")
    assert pump([big, small], lambda: small.got)
    assert small.got == [("o/small", b"after", False)] and small.oversize == 1
    assert small.connected and small.drops == 0
    big.stop(), small.stop()


def test_last_will_when_the_link_drops_and_none_on_a_clean_stop(mqtt_broker):
    watch = client(mqtt_broker.port, "twatch")
    link = FakeLink()
    a = client(mqtt_broker.port, "twill", link=link)
    a.set_will("w/a", "gone", retain=False)
    assert pump([watch, a], lambda: watch.connected and a.connected)
    assert watch.subscribe("w/#")
    tok = watch.sync()
    assert pump([watch], lambda: watch.synced(tok))
    link.down()
    a.poll()
    assert a.state == mqtt.DOWN and a.drops == 1 and "link is down" in a.last_error
    assert pump([watch], lambda: watch.got) and watch.got[0][:2] == ("w/a", b"gone")
    link.up()
    assert pump([a], lambda: a.connected, clock=a.clock, step_ms=100)  # after its back-off
    a.stop()
    tok = watch.sync()
    assert pump([watch], lambda: watch.synced(tok))
    time.sleep(0.1)
    watch.poll()
    assert len(watch.got) == 1  # DISCONNECT: no will
    watch.stop()


def test_keepalive_pings_on_the_clock_and_a_silent_broker_is_left(mqtt_broker):
    clock = ManualClock()
    with FaultProxy(mqtt_broker.port) as proxy:
        a = client(proxy.port, "tka", clock=clock, keepalive_s=10)
        assert pump([a], lambda: a.connected)
        clock.advance(4900)
        a.poll()
        assert a.pings == 0
        clock.advance(200)  # half the keepalive without a packet out: PINGREQ
        a.poll()
        assert a.pings == 1
        assert pump([a], lambda: a.pongs == 1)
        proxy.delay_ms = 10_000  # the broker goes silent (its answers held)
        clock.advance(5100)
        a.poll()
        assert a.pings == 2
        clock.advance(5000 + 2100)  # no PINGRESP within half the keepalive + 2 s
        a.poll()
        assert a.state == mqtt.DOWN and a.last_error == "the broker stopped answering"
        proxy.delay_ms = 0
        a.stop()


def test_a_broker_that_accepts_and_never_answers_times_out_and_backs_off(mqtt_broker):
    clock = ManualClock()
    with FaultProxy(mqtt_broker.port) as proxy:
        proxy.blackhole = True
        a = client(proxy.port, "thole", clock=clock, connect_timeout_ms=3000, backoff_ms=500,
                   backoff_max_ms=2000)
        assert pump([a], lambda: a.state == mqtt.WAIT_CONNACK)
        clock.advance(3001)
        a.poll()
        assert a.state == mqtt.DOWN and "no answer from the broker" in a.last_error
        waits = []
        for _ in range(4):  # 500, 1000, 2000, 2000 ms between attempts
            waits.append(a._wait_ms)
            clock.advance(a._wait_ms)
            assert pump([a], lambda: a.state == mqtt.WAIT_CONNACK)
            clock.advance(3001)
            a.poll()
        assert waits == [500, 1000, 2000, 2000]
        proxy.blackhole = False
        clock.advance(2000)
        assert pump([a], lambda: a.connected)
        assert a.last_error == ""
        a.stop()


def test_a_refused_connection_and_a_wrong_password_are_said():
    with Broker(users={"alice": "s3cret"}) as br:
        clock = ManualClock()
        bad = client(br.port, "tbad", clock=clock, user="alice", password="nope")
        assert pump([bad], lambda: bad.last_error.startswith("the broker refused"))
        # (Mosquitto answers 5 under MQTT 3.1.1, "not authorised")
        assert bad.last_error == "the broker refused: not authorised by the broker: check the user name and password"
        clock.advance(60_000)
        bad.poll()
        assert bad.state == mqtt.DOWN and not bad.enabled  # no new attempt with the same password
        good = client(br.port, "tgood", user="alice", password="s3cret")
        assert pump([good], lambda: good.connected)
        port = br.port
        bad.stop(), good.stop()
    gone = client(port, "tgone")  # nobody listens there now
    assert pump([gone], lambda: gone.last_error != "")
    assert "refused" in gone.last_error or "cannot connect" in gone.last_error


def _self_signed(folder):
    """A key and a self-signed certificate for 127.0.0.1, made here (Python's
    `cryptography`, which esptool brings); None where it is missing."""
    try:
        import datetime

        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import ec
        from cryptography.x509.oid import NameOID
    except ImportError:
        return None
    import ipaddress

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
            .sign(key, hashes.SHA256()))
    certfile, keyfile = str(folder / "cert.pem"), str(folder / "key.pem")
    with open(certfile, "wb") as f:
        f.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(keyfile, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                  serialization.NoEncryption()))
    return certfile, keyfile, cert.public_bytes(serialization.Encoding.DER)


def test_tls_to_a_mosquitto_tls_listener_unchecked_checked_and_a_wrong_ca(mqtt_broker, tmp_path):
    """The client's TLS path in CPython against Mosquitto's TLS listener with a
    certificate made here: encrypted without a check, checked against its CA (cadata),
    and refused with another CA, said in words (a non-blocking handshake throughout)."""
    made = _self_signed(tmp_path)
    if made is None:
        pytest.skip("no Python `cryptography` to make a certificate with (pip install cryptography)")
    certfile, keyfile, der = made
    with Broker(tls=(certfile, keyfile)) as br:
        plain = client(br.tls_port, "ttls", tls=True)
        checked = client(br.tls_port, "ttlsca", tls={"cadata": der})
        assert pump([plain, checked], lambda: plain.connected and checked.connected), \
            (plain.last_error, checked.last_error)
        assert checked.subscribe("tls/#")
        tok = checked.sync()
        assert pump([checked], lambda: checked.synced(tok))
        assert plain.publish("tls/x", b"secret" * 100, retain=False)
        assert pump([plain, checked], lambda: checked.got and plain.pending() == 0)
        assert checked.got == [("tls/x", b"secret" * 100, False)]
        wrong_dir = tmp_path / "wrong"
        wrong_dir.mkdir()
        wrong = client(br.tls_port, "ttlswrong", tls={"cadata": _self_signed(wrong_dir)[2]})
        assert pump([wrong], lambda: wrong.last_error.startswith("the connection broke") or
                    wrong.last_error.startswith("TLS"))
        assert not wrong.connected
        bad_ca = client(br.tls_port, "ttlsbad", tls={"cadata": b"not a certificate"})
        assert pump([bad_ca], lambda: bad_ca.last_error.startswith("TLS: error"))
        for c in (plain, checked, wrong, bad_ca):
            c.stop()


def test_settings_are_described_without_their_secrets():
    s = check_settings({"ssid": "home-net", "wifi_password": "wifi-pass-123", "broker": "10.0.0.2",
                        "user": "bob", "password": "mqtt-pass-456", "tls": 1})
    assert s["port"] == 1883 and s["tls"] is True
    text = describe(s)
    assert text == "Wi-Fi: set (password: set); broker: set, port 1883, user: set (password: set), TLS: on"
    for secret in ("home-net", "wifi-pass-123", "10.0.0.2", "bob", "mqtt-pass-456"):
        assert secret not in text
    assert check_settings({"ssid": "x"}) is None
    assert describe(None) == "no online settings on this board"


# -- in the unix port of MicroPython --------------------------------------------------

IDLE_SCRIPT = r"""
import gc, json, time
from mancala.online.mqtt import Client
c = Client("tidle", "127.0.0.1", PORT, keepalive_s=60)
c.start()
end = time.ticks_add(time.ticks_ms(), 3000)
while not c.connected and time.ticks_diff(end, time.ticks_ms()) > 0:
    c.poll()
    time.sleep_ms(1)
for _ in range(50):
    c.poll()
def turns(n):
    gc.collect()
    gc.disable()  # (a collection in between would hide an allocation)
    before = gc.mem_alloc()
    i = 0
    while i < n:
        c.poll()
        i += 1
    after = gc.mem_alloc()
    gc.enable()
    return after - before
few, many = turns(100), turns(2100)
print(json.dumps({"connected": c.connected, "alloc_2000_more_idle_turns": many - few, "few": few}))
"""


def test_an_idle_turn_allocates_nothing_in_micropython(mqtt_broker):
    if not mpunix.available():
        pytest.skip("MicroPython unix port not installed: run `make setup`")
    out = mpunix.run(IDLE_SCRIPT.replace("PORT", str(mqtt_broker.port)), heap="256K", timeout=30)
    res = json.loads(out.strip().splitlines()[-1])
    assert res["connected"] is True and res["alloc_2000_more_idle_turns"] == 0, res


def test_heap_of_a_whole_game_under_the_esp32_cap(board_lib, mqtt_broker, tmp_path):
    """Both boards play a whole game in the unix port capped at the ESP32's heap
    (1.35 x 110 KB), the firmware as .mpy as deployed: what the client and the session
    take, the least free on the way."""
    m = Match(board_lib, str(tmp_path), mqtt_broker.port, heap=str(ESP32_HEAP), sleep_ms=1, linger_ms=150)
    try:
        m.start()
        done = m.run(timeout=60)
    finally:
        m.close()
    assert done["a"]["done"] == done["b"]["done"]
    heap = [x for x in m.lines("a") if "heap_online" in x][0]
    print("ESP32 cap %d B: client + session %d B at the start, %d B held after the game"
          % (ESP32_HEAP, heap["heap_online"], done["a"]["heap_after"]))
    assert heap["heap_online"] < 12 * 1024
    assert done["a"]["heap_after"] < 16 * 1024


def test_a_loop_turn_stays_short_while_the_broker_is_slow_or_away(board_lib, mqtt_broker, tmp_path):
    """The session's step (the client's poll and the session's work) timed over a game
    during which the broker goes silent (its answers held 0.3 s: a slow network), then
    away (stopped 0.15 s): its worst turn stays far under the 40 ms press-to-light budget."""
    with FaultProxy(mqtt_broker.port) as proxy:
        fired = []

        def hook(match, side, msg):
            if side == "a" and msg.get("played") == 9 and not fired:
                fired.append("silent")
                proxy.delay_ms = 300
                time.sleep(0.3)
                proxy.delay_ms = 0
            elif side == "a" and msg.get("played", 0) >= 21 and len(fired) == 1:
                fired.append("away")
                mqtt_broker.stop()
                time.sleep(0.15)
                mqtt_broker.restart()
        m = Match(board_lib, str(tmp_path), proxy.port, sleep_ms=1, linger_ms=150, keepalive=2)
        try:
            m.start()
            done = m.run(hook, timeout=60)
        finally:
            m.close()
    assert fired == ["silent", "away"] and done["a"]["done"] == done["b"]["done"]
    assert done["a"]["drops"] >= 1  # the broker's stop ended a's connection
    worst = max(done["a"]["turn_max_us"], done["b"]["turn_max_us"])
    print("broker slow, then away: the worst session step %.2f ms (the unix port on this PC)" % (worst / 1000))
    assert worst < 40_000
