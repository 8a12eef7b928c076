"""A TCP proxy between MQTT clients and the broker that misbehaves on purpose
(docs/ONLINE.md "Tests"): 127.0.0.1 only.

It splits the byte streams into MQTT packets (the fixed header's remaining length) and,
per packet, as its attributes say at that moment:

  delay_ms       holds every packet this long before passing it on (both directions)
  dup_every      every Nth PUBLISH is passed on twice
  reorder_every  every Nth PUBLISH is held back and passed on after the packet that
                 follows it in the same direction (or after 0.1 s if none follows)
  cut_at         the connection carrying the Nth PUBLISH from now is cut (both sockets
                 closed, that packet lost); once (set it again for another cut)
  blackhole      new connections are accepted and never answered (a broker gone silent)

PUBLISH packets are counted in both directions, over every connection (`publishes`).
Each connection runs two threads; `close()` ends them all.
"""

import socket
import threading
import time

PUBLISH = 3


def _packet_length(buf):
    """The length of the whole MQTT packet at the start of buf, or None if incomplete."""
    n = 0
    shift = 0
    i = 1
    while True:
        if i >= len(buf):
            return None
        b = buf[i]
        n |= (b & 0x7F) << shift
        i += 1
        if not b & 0x80:
            return i + n
        shift += 7
        if shift > 21:
            return i  # (a broken header: passed on as it is; the broker will say so)


class FaultProxy:
    def __init__(self, target_port, target_host="127.0.0.1"):
        self.target = (target_host, target_port)
        self.delay_ms = 0
        self.dup_every = 0
        self.reorder_every = 0
        self.cut_at = 0
        self.blackhole = False
        self.publishes = 0  # PUBLISH packets seen (both directions)
        self.cuts = 0
        self.dups = 0
        self.reorders = 0
        self.connections = 0
        self._lock = threading.Lock()
        self._cut_base = 0
        self._conns = []
        self._closed = False
        self._srv = socket.socket()
        self._srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._srv.bind(("127.0.0.1", 0))
        self._srv.listen(16)
        self._srv.settimeout(0.2)
        self.port = self._srv.getsockname()[1]
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def cut_after(self, n):
        """Cut the connection that carries the nth PUBLISH counted from now."""
        with self._lock:
            self._cut_base = self.publishes
            self.cut_at = n

    def _accept(self):
        while not self._closed:
            try:
                client, _ = self._srv.accept()
            except OSError:
                continue
            self.connections += 1
            if self.blackhole:
                self._conns.append((client, None))
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=2)
            except OSError:
                client.close()  # the broker is away: the client sees its connection end
                continue
            for s in (client, upstream):  # each packet at once, as the client and broker send them
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            pair = (client, upstream)
            self._conns.append(pair)
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(src, dst, pair), daemon=True).start()

    def _cut(self, pair):
        for s in pair:
            if s is None:
                continue
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def _pump(self, src, dst, pair):
        buf = b""
        held = None
        src.settimeout(0.1)
        try:
            while not self._closed:
                try:
                    data = src.recv(4096)
                except socket.timeout:
                    if held is not None:
                        dst.sendall(held)
                        held = None
                    continue
                if not data:
                    break
                buf += data
                while True:
                    n = _packet_length(buf)
                    if n is None or n > len(buf):
                        break
                    pkt, buf = buf[:n], buf[n:]
                    out = [pkt]
                    if pkt[0] >> 4 == PUBLISH:
                        with self._lock:
                            self.publishes += 1
                            k = self.publishes
                            cut = self.cut_at and k - self._cut_base >= self.cut_at
                            if cut:
                                self.cut_at = 0
                                self.cuts += 1
                        if cut:
                            self._cut(pair)
                            return
                        if self.dup_every and k % self.dup_every == 0:
                            out.append(pkt)
                            self.dups += 1
                        if self.reorder_every and k % self.reorder_every == 0 and held is None:
                            held = pkt
                            self.reorders += 1
                            continue
                    if self.delay_ms:
                        time.sleep(self.delay_ms / 1000)
                    for o in out:
                        dst.sendall(o)
                    if held is not None:
                        dst.sendall(held)
                        held = None
        except OSError:
            pass
        self._cut(pair)

    def close(self):
        self._closed = True
        self._srv.close()
        for pair in self._conns:
            self._cut(pair)
        self._thread.join(timeout=2)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
