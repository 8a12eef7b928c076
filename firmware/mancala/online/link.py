"""The network link the MQTT client runs over (docs/ONLINE.md "Link").

On a chip with Wi-Fi (ESP32, Pico W) `WlanLink` stands over `network.WLAN`; on the PC
and in the tests `FakeLink` stands in its place, and a test takes it down and brings it
back.  The client asks only `connected()`; the board's loop calls `poll()` each turn
(it never blocks: the Wi-Fi joins in the background and is asked again while down).

The settings live only on the board, in /data/online.json (written by `mancala wifi`
or deploy, atomically with its checksum: hw/storage.py), never in the repository and
never printed back: `describe()` says which are set, not what they are.
"""

SETTINGS_FILE = "online.json"
# The settings' keys (a flat JSON object: docs/ONLINE.md "Link")
KEYS = ("ssid", "wifi_password", "broker", "port", "user", "password", "tls")
SECRET = ("wifi_password", "password")
DEFAULT_PORT = 1883
RETRY_MS = 10000  # asking the access point again while the Wi-Fi is down


def load_settings(storage):
    """The board's online settings (a dict) or None if there are none (or damaged)."""
    from mancala.hw.storage import OK

    status, obj = storage.load(SETTINGS_FILE)
    if status != OK:
        return None
    return check_settings(obj)


def check_settings(obj):
    """The settings with their defaults, or None if they cannot be used (no broker)."""
    if not isinstance(obj, dict) or not isinstance(obj.get("broker"), str) or not obj["broker"]:
        return None
    out = {}
    for k in KEYS:
        out[k] = obj.get(k)
    port = out["port"]
    out["port"] = port if isinstance(port, int) and 0 < port < 65536 else DEFAULT_PORT
    out["tls"] = bool(out["tls"])
    return out


def describe(settings):
    """What is set, in one line, with no secret in it: e.g.
    'Wi-Fi: set (password: set); broker: set, port 1883, user: none, TLS: off'."""
    if settings is None:
        return "no online settings on this board"
    return "Wi-Fi: %s (password: %s); broker: %s, port %d, user: %s (password: %s), TLS: %s" % (
        "set" if settings.get("ssid") else "none", "set" if settings.get("wifi_password") else "none",
        "set" if settings.get("broker") else "none", settings.get("port") or DEFAULT_PORT,
        "set" if settings.get("user") else "none", "set" if settings.get("password") else "none",
        "on" if settings.get("tls") else "off")


class FakeLink:
    """A link the tests hold: up until `down()`, back with `up()`."""

    def __init__(self, up=True):
        self._up = up
        self.changes = 0

    def up(self):
        if not self._up:
            self.changes += 1
        self._up = True

    def down(self):
        if self._up:
            self.changes += 1
        self._up = False

    def connected(self):
        return self._up

    def poll(self):
        pass

    def status(self):
        return "up" if self._up else "down"


class WlanLink:
    """Wi-Fi as a station, over `network.WLAN` (ESP32, Pico W).  `start()` asks the
    access point; `poll()` asks again every RETRY_MS while down.  Never blocks."""

    def __init__(self, settings, clock, network_module=None):
        if network_module is None:
            import network  # type: ignore[import-not-found]  # (the Pico's stubs have none)

            network_module = network
        self._ssid = settings.get("ssid") or ""
        self._pw = settings.get("wifi_password") or ""
        self.clock = clock
        self.wlan = network_module.WLAN(network_module.STA_IF)
        self._asked = None
        self.enabled = False

    def __repr__(self):
        return "<WlanLink %s>" % self.status()

    def start(self):
        self.enabled = True
        self.wlan.active(True)
        self._ask()

    def stop(self):
        self.enabled = False
        try:
            self.wlan.disconnect()
        except OSError:
            pass
        self.wlan.active(False)

    def _ask(self):
        self._asked = self.clock.now()
        if not self._ssid:
            return
        try:
            self.wlan.connect(self._ssid, self._pw)  # returns at once: it joins in the background
        except OSError:
            pass  # (asked again after RETRY_MS)

    def connected(self):
        return self.enabled and self.wlan.isconnected()

    def poll(self):
        if self.enabled and not self.wlan.isconnected() and self._asked is not None:
            if self.clock.diff(self.clock.now(), self._asked) >= RETRY_MS:
                self._ask()

    def status(self):
        if not self._ssid:
            return "no Wi-Fi set"
        if not self.enabled:
            return "off"
        return "up" if self.wlan.isconnected() else "joining"


def make_client(settings, link, clock, client_id=None, **kw):
    """The MQTT client for the board's settings over `link`.  client_id None: "m" and
    a random nonce (boards without a game must not share one: a broker drops the
    older connection of an id that connects again); a session names it per game."""
    from mancala.online.mqtt import Client

    if client_id is None:
        from mancala.online.protocol import new_nonce

        client_id = "m" + new_nonce()

    return Client(client_id, settings["broker"], settings["port"], user=settings.get("user"),
                  password=settings.get("password"), tls=settings.get("tls"), clock=clock, link=link, **kw)
