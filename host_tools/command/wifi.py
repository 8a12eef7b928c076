"""`mancala wifi`: the board's Wi-Fi network and MQTT broker for online play.

    mancala wifi --ssid NETWORK --broker HOST[:PORT] [--user USER] [--tls] [--port PORT]
    mancala wifi --show [--port PORT]
    mancala wifi --clear [--port PORT]

The settings live only on the board, in /data/online.json, never on the PC and never
in the repository, in the firmware's own format (mancala/online/link.py reads it with
the board's Storage: docs/ONLINE.md "Link"), its checksum included:

    {"broker": "host", "password": "...", "port": 1883, "ssid": "...", "tls": false,
     "user": "...", "wifi_password": "...", "sum": "..."}

("password" is the broker's; "user" and the passwords are "" when there are none.)  The passwords are asked with
getpass (never on the command line, never echoed), or read from stdin with
--password-stdin (the Wi-Fi password on the first line, the broker's on the second
when --user is given), for scripts.  They are never printed back: --show prints the
network and the broker, and each password as "set" or "not set"; the board itself
answers only that much, so a password never travels back over USB.

The file is written over the board link `mancala pull` and deploy use (the raw REPL,
host_tools/link/board_transport.py): to /data/online.json.tmp, closed, then renamed
over the old one (littlefs keeps a file's data once it is closed and renames
atomically), and its sha256 read back.  `mancala deploy` never touches /data.
"""

import getpass
import hashlib
import json
import sys

from host_tools.argkit import Parser, UsageError, printable, run_command
from host_tools.link.board_transport import BOARD_HASH, Board, DeployError, find_port

ONLINE_FILE = "/data/online.json"
MQTT_PORT, MQTTS_PORT = 1883, 8883  # the broker's port when none is given (plain, TLS)
SSID_MAX = 32  # bytes (IEEE 802.11)
WPA_MIN, WPA_MAX = 8, 63  # a WPA2 passphrase (or 64 hex digits: the key itself)
USER_MAX = 128
BROKER_PASSWORD_MAX = 256
HOST_MAX = 253  # a DNS name


class BoardError(OSError):
    """The board could not be reached or answered wrongly: one line, exit status 1."""


def check_ssid(ssid):
    if not ssid:
        raise UsageError("the Wi-Fi network's name (--ssid) is empty")
    if any(not c.isprintable() for c in ssid):
        raise UsageError("the Wi-Fi network's name holds a control character: %s"
                         % printable(repr(ssid)))
    if len(ssid.encode("utf-8", "surrogateescape")) > SSID_MAX:
        raise UsageError("the Wi-Fi network's name is %d bytes long; a network's name "
                         "is at most %d" % (len(ssid.encode("utf-8", "surrogateescape")), SSID_MAX))
    return ssid


def _host_ok(host):
    if not host or len(host) > HOST_MAX:
        return False
    labels = host.split(".")
    for label in labels:
        if not label or len(label) > 63 or label[0] == "-" or label[-1] == "-":
            return False
        if not all(c.isascii() and (c.isalnum() or c == "-") for c in label):
            return False
    return True


def parse_broker(text, tls=False):
    """"host:port" (or "host": the MQTT port, 8883 with TLS) -> "host:port"; a
    UsageError naming what is wrong."""
    if text is None or not text.strip():
        raise UsageError("the broker's address (--broker HOST:PORT) is empty")
    text = text.strip()
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = text, str(MQTTS_PORT if tls else MQTT_PORT)
    if not _host_ok(host):
        raise UsageError("the broker %s is not HOST:PORT with HOST a name or an IPv4 address "
                         "(letters, digits, '-' and '.')" % printable(repr(text)))
    if not (port.isascii() and port.isdigit()) or len(port) > 5:
        raise UsageError("the broker's port %s is not a number (HOST:PORT, e.g. "
                         "broker.example.org:%d)" % (printable(repr(port)), MQTT_PORT))
    if not 1 <= int(port) <= 65535:
        raise UsageError("the broker's port %d is out of range: 1..65535" % int(port))
    return "%s:%d" % (host.lower(), int(port))


def check_user(user):
    if user is None:
        return ""
    if not user or len(user) > USER_MAX or any(not c.isprintable() for c in user):
        raise UsageError("the broker's user name must be 1..%d printable characters" % USER_MAX)
    return user


def check_wifi_password(pw):
    """An open network's "" or a WPA2 passphrase; the message never shows it."""
    if any(c in pw for c in "\r\n\0"):
        raise UsageError("the Wi-Fi password holds a line end or a NUL character")
    if not pw:
        return pw
    hex_key = len(pw) == 64 and all(c in "0123456789abcdefABCDEF" for c in pw)
    if not hex_key and not WPA_MIN <= len(pw) <= WPA_MAX:
        raise UsageError("the Wi-Fi password is %d characters long; a WPA2 password is "
                         "%d to %d (or empty for an open network)" % (len(pw), WPA_MIN, WPA_MAX))
    return pw


def check_broker_password(pw):
    if any(c in pw for c in "\r\n\0") or len(pw) > BROKER_PASSWORD_MAX:
        raise UsageError("the broker's password must be at most %d characters, with no "
                         "line end or NUL" % BROKER_PASSWORD_MAX)
    return pw


def settings_json(ssid, password, broker, user="", broker_password="", tls=False):
    """The bytes of /data/online.json: the settings as the firmware's Storage writes a
    file (canonical JSON and its checksum: mancala.hw.storage.encode), under the keys
    mancala/online/link.py reads.  broker: "host:port" (parse_broker)."""
    from mancala.hw.storage import encode

    host, _sep, port = broker.rpartition(":")
    return encode({"ssid": ssid, "wifi_password": password, "broker": host, "port": int(port),
                   "user": user, "password": broker_password, "tls": bool(tls)}).encode("utf-8")


# -- on the board (MicroPython, through the raw REPL) -------------------------------

# Write, close, rename, then the new file's sha256: the data goes in as a bytes
# literal, and nothing the board prints holds it.
BOARD_WRITE = BOARD_HASH + r"""
import os
try:
    os.mkdir('/data')
except OSError:
    pass
f = open('%(tmp)s', 'wb')
f.write(%(data)r)
f.close()
os.rename('%(tmp)s', '%(path)s')
print('H', _h('%(path)s')[0])
"""

# What --show may know: the names, and whether each password is there (never its text).
BOARD_SHOW = r"""
import json
try:
    f = open('%(path)s')
except OSError:
    print('N')
else:
    try:
        c = json.loads(f.read())
        if not isinstance(c, dict):
            raise ValueError
    except ValueError:
        c = None
    f.close()
    if c is None:
        print('B')
    else:
        print('S', json.dumps({'ssid': c.get('ssid'), 'broker': c.get('broker'),
                               'port': c.get('port'), 'user': c.get('user'), 'tls': c.get('tls'),
                               'password': bool(c.get('wifi_password')),
                               'broker_password': bool(c.get('password'))}))
"""

BOARD_CLEAR = r"""
import os
gone = 0
for p in ('%(path)s', '%(path)s.tmp'):
    try:
        os.remove(p)
        gone += p == '%(path)s'
    except OSError:
        pass
print('C', gone)
"""


def _on_board(port, fn):
    """Run fn(board) on the board at `port` (found by USB id when None)."""
    try:
        board = Board(find_port(port))
    except DeployError as e:
        raise BoardError(str(e)) from None
    try:
        board.raw(soft_reset=False)
        return fn(board)
    except DeployError as e:
        raise BoardError(str(e)) from None
    finally:
        board.close()


def _tagged(out, tag):
    for line in out.splitlines():
        if line.startswith(tag + " ") or line == tag:
            return line[len(tag) + 1:]
    return None


def write_settings(port, data):
    """Write `data` to the board's /data/online.json atomically; check its sha256."""
    def write(board):
        out = board.exec(BOARD_WRITE % {"tmp": ONLINE_FILE + ".tmp", "path": ONLINE_FILE,
                                        "data": data})
        got = _tagged(out, "H")
        if got is None or got.strip() != hashlib.sha256(data).hexdigest():
            raise BoardError("the board's %s does not hold what was sent: run "
                             "`mancala wifi` again" % ONLINE_FILE)
    _on_board(port, write)


def read_summary(port):
    """None (no file), "damaged", or the dict BOARD_SHOW prints."""
    def show(board):
        out = board.exec(BOARD_SHOW % {"path": ONLINE_FILE})
        if _tagged(out, "N") is not None:
            return None
        if _tagged(out, "B") is not None:
            return "damaged"
        text = _tagged(out, "S")
        try:
            return json.loads(text)
        except (TypeError, ValueError):
            raise BoardError("the board answered %s: is it running MicroPython?"
                             % printable(repr(out.strip()[:60]))) from None
    return _on_board(port, show)


def clear_settings(port):
    """Remove the board's /data/online.json; True if there was one."""
    def clear(board):
        out = board.exec(BOARD_CLEAR % {"path": ONLINE_FILE})
        return (_tagged(out, "C") or "0").strip() == "1"
    return _on_board(port, clear)


# -- the command ----------------------------------------------------------------------

def _ask(prompt):
    """A visible answer (the network, the broker): only at a terminal."""
    if not sys.stdin.isatty():
        raise UsageError("%s is missing (give it as an option: `mancala wifi --help`)"
                         % prompt.split(" (")[0].rstrip(": "))
    return input(prompt)


def _passwords(a):
    """(Wi-Fi password, broker password): from stdin's lines, or asked unechoed."""
    if a.password_stdin:
        lines = sys.stdin.read().split("\n")
        wifi_pw = lines[0].rstrip("\r")
        broker_pw = lines[1].rstrip("\r") if a.user and len(lines) > 1 else ""
        return wifi_pw, broker_pw
    wifi_pw = getpass.getpass("Wi-Fi password of %s (Enter for an open network): "
                              % printable(a.ssid))
    broker_pw = ""
    if a.user:
        broker_pw = getpass.getpass("broker password of %s (Enter for none): "
                                    % printable(a.user))
    return wifi_pw, broker_pw


def _yes_no(flag):
    return "set" if flag else "not set"


def _show(port, out):
    s = read_summary(port)
    if s is None:
        print("the board has no Wi-Fi settings (set them: mancala wifi --ssid NETWORK "
              "--broker HOST:PORT)", file=out)
        return 0
    if s == "damaged":
        print("the board's %s is damaged: set it again with `mancala wifi`" % ONLINE_FILE,
              file=out)
        return 1

    def text(v):
        return printable(v) if isinstance(v, str) and v else "none"

    print("Wi-Fi network: %s" % text(s.get("ssid")), file=out)
    print("Wi-Fi password: %s" % _yes_no(s.get("password")), file=out)
    broker = text(s.get("broker"))
    if isinstance(s.get("port"), int):
        broker += ":%d" % s["port"]
    print("broker: %s%s" % (broker, " (TLS)" if s.get("tls") else ""), file=out)
    print("broker user: %s" % text(s.get("user")), file=out)
    print("broker password: %s" % _yes_no(s.get("broker_password")), file=out)
    return 0


def _wifi(argv):
    p = Parser(prog="mancala wifi",
               description="Set the board's Wi-Fi network and MQTT broker for online play "
                           "(kept only on the board, in %s; the passwords are asked, never "
                           "given on the command line, never shown)." % ONLINE_FILE)
    p.add_argument("--port", default=None, help="serial port of the board (default: $PORT, else found by USB id)")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--show", action="store_true",
                      help="print the network and the broker, each password as set / not set")
    what.add_argument("--clear", action="store_true", help="remove the Wi-Fi settings from the board")
    p.add_argument("--ssid", default=None, help="the Wi-Fi network's name")
    p.add_argument("--broker", default=None, metavar="HOST[:PORT]",
                   help="the MQTT broker (port default %d, %d with --tls)" % (MQTT_PORT, MQTTS_PORT))
    p.add_argument("--user", default=None, help="the broker's user name (its password is asked)")
    p.add_argument("--tls", action="store_true", help="connect to the broker over TLS")
    p.add_argument("--password-stdin", action="store_true",
                   help="read the Wi-Fi password from stdin's first line (and the broker's "
                        "from its second, with --user) instead of asking")
    a = p.parse_args(argv)
    out = sys.stdout
    if a.show or a.clear:
        extra = [o for o, v in (("--ssid", a.ssid), ("--broker", a.broker), ("--user", a.user),
                                ("--tls", a.tls), ("--password-stdin", a.password_stdin)) if v]
        if extra:
            raise UsageError("%s takes only --port, not %s"
                             % ("--show" if a.show else "--clear", ", ".join(extra)))
        if a.show:
            return _show(a.port, out)
        had = clear_settings(a.port)
        print("removed the Wi-Fi settings from the board" if had else
              "the board had no Wi-Fi settings", file=out)
        return 0
    # Everything the person types is checked before the board is opened.
    a.ssid = check_ssid(a.ssid if a.ssid is not None else _ask("Wi-Fi network (SSID): "))
    broker = parse_broker(a.broker if a.broker is not None else _ask("broker (HOST:PORT): "), a.tls)
    user = check_user(a.user)
    wifi_pw, broker_pw = _passwords(a)
    check_wifi_password(wifi_pw)
    check_broker_password(broker_pw)
    write_settings(a.port, settings_json(a.ssid, wifi_pw, broker, user, broker_pw, a.tls))
    print("Wi-Fi settings written to the board (%s): network %s, broker %s%s%s; "
          "Wi-Fi password %s%s" % (ONLINE_FILE, printable(a.ssid), broker, " (TLS)" if a.tls else "",
                                   ", user %s" % printable(user) if user else "",
                                   _yes_no(wifi_pw), ", broker password %s" % _yes_no(broker_pw) if user else ""),
          file=out)
    return 0


def wifi_main(argv=None):
    """`mancala wifi`; every failure is one line and a non-zero status (argkit.run_command)."""
    return run_command("wifi", _wifi, sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(wifi_main())
