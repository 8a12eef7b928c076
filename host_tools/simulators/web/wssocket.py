"""The `socket` module the online client opens in the page's VM: a browser WebSocket.

The MicroPython WebAssembly VM has no socket module, and a page can open no TCP
connection, only a WebSocket.  So the page hands the firmware's own MQTT client
(mancala/online/mqtt.py, unchanged: its packets, keepalive, QoS 1 slots, resends, sync)
this module as its socket module (webonline.py passes it as `socket_module`), and the bytes the client
writes go to the broker's WebSocket listener, MQTT over WebSockets (MQTT 3.1.1, 6.0: the
stream of MQTT packets carried in binary frames, the subprotocol "mqtt").  The
WebSocket itself is the browser's, opened and read by online.js (`globalThis.mancalaWs`);
TLS is the browser's too (a wss:// address).

What the client asks of a socket, and what it gets here:

  getaddrinfo(server, port, ...)[0][-1]   the WebSocket's address (`urls`, set by the page)
  socket()                                a WsSocket
  connect(address)                        the WebSocket opened; EINPROGRESS, as a
                                          non-blocking TCP connect
  select.poll's POLLOUT                   once the WebSocket is open; POLLHUP once closed
  write(bytes)                            one binary frame; returns its length
  readinto(buffer)                        what has arrived (None: nothing yet; 0: closed)
  close()

MicroPython only (the VM's `js` module), like webboard.py's VM half.
"""

import binascii
import io

import js  # type: ignore[import-not-found]  # the WebAssembly VM: the page's JavaScript

SOCK_STREAM = 1
AF_INET = 2
EINPROGRESS = 115
ECONNREFUSED = 111
ECONNRESET = 104

_POLLIN = 1
_POLLOUT = 4
_POLLERR = 8
_POLLHUP = 16
_STREAM_POLL = 3  # MicroPython's stream ioctl requests
_STREAM_CLOSE = 4

# WebSocket.readyState
_CONNECTING = 0
_OPEN = 1

# (server, port) -> the WebSocket's whole address ("ws://host:port/path"): a client
# names its broker by server and port, a WebSocket by a URL
urls = {}


def getaddrinfo(host, port, af=0, socktype=0, proto=0, flags=0):
    url = urls.get((host, port)) or "%s:%d/" % (host, port)
    return [(AF_INET, SOCK_STREAM, 0, "", url)]


def socket(af=AF_INET, socktype=SOCK_STREAM, proto=0):
    return WsSocket()


class WsSocket(io.IOBase):
    """One WebSocket as a non-blocking stream socket (select.poll takes it: ioctl)."""

    def __init__(self):
        self.h = -1  # online.js's handle of the WebSocket

    def setsockopt(self, *args):
        pass  # (TCP_NODELAY: the browser's business)

    def setblocking(self, flag):
        pass  # never blocks

    def connect(self, url):
        self.h = js.mancalaWs.open(url)
        if self.h < 0:  # the browser refused to open it (a bad address, ws:// from https)
            raise OSError(ECONNREFUSED)
        raise OSError(EINPROGRESS)

    def _state(self):
        return js.mancalaWs.state(self.h) if self.h >= 0 else 3

    def ioctl(self, request, arg):
        if request == _STREAM_POLL:
            state = self._state()
            if state == _CONNECTING:
                ready = 0
            elif state == _OPEN:
                ready = _POLLOUT | (_POLLIN if js.mancalaWs.pending(self.h) else 0)
            else:
                ready = _POLLHUP | (_POLLIN if self.h >= 0 and js.mancalaWs.pending(self.h) else 0)
            return (ready & arg) | (ready & (_POLLERR | _POLLHUP))  # (hang-ups: always)
        if request == _STREAM_CLOSE:
            self.close()
        return 0

    def write(self, data):
        if self._state() != _OPEN:
            raise OSError(ECONNRESET)
        js.mancalaWs.send(self.h, binascii.hexlify(data).decode())
        return len(data)

    def readinto(self, buf):
        if self.h < 0:
            return 0
        text = js.mancalaWs.read(self.h, len(buf))
        if text:
            data = binascii.unhexlify(text)
            n = len(data)
            buf[0:n] = data
            return n
        return None if self._state() in (_CONNECTING, _OPEN) else 0  # (closed: the end)

    def close(self):
        if self.h >= 0:
            js.mancalaWs.close(self.h)
            self.h = -1
