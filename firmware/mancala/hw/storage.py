"""Settings, the current game and the finished games, on flash, never half-written.

Every file is written whole to `NAME.tmp`, then renamed over `NAME`; power may
fail between any two writes and the old or the new file is still complete.  A
JSON file carries its own checksum (`"sum"`, an Adler-32 of the canonical text of
the other keys), so a torn or corrupted file is detected, never trusted.

The filesystem is injected (`OsFs` on the board and the PC, any object with the
same six methods in tests), so a test can cut the power between any two writes.
"""

import json

OK = 0
MISSING = 1
CORRUPT = 2

CHUNK = 64  # bytes per write call: a power cut can land between any two


class OsFs:
    """The real filesystem via `os`, optionally under a host folder (the PC)."""

    def __init__(self, prefix=""):
        import os

        self.os = os
        self.prefix = prefix

    def _p(self, path):
        return self.prefix + path

    def read(self, path):
        try:
            with open(self._p(path), "rb") as f:
                return f.read()
        except OSError:
            return None

    def open_write(self, path):
        return open(self._p(path), "wb")

    def open_read(self, path):
        """A file opened for reading in place (the endgame tables: read a byte at
        a time, never loaded whole); raises OSError if it is missing."""
        return open(self._p(path), "rb")

    def rename(self, a, b):
        self.os.rename(self._p(a), self._p(b))

    def remove(self, path):
        try:
            self.os.remove(self._p(path))
        except OSError:
            pass

    def listdir(self, path):
        try:
            return self.os.listdir(self._p(path))
        except OSError:
            return []

    def mkdir(self, path):
        p = ""
        for part in path.split("/"):
            if not part:
                continue
            p += "/" + part
            try:
                self.os.mkdir(self._p(p))
            except OSError:
                pass


def checksum(data):
    """Adler-32 as 8 hex digits (sums stay below 2**17: small ints on the device)."""
    a, b = 1, 0
    for c in data:
        a = (a + c) % 65521
        b = (b + a) % 65521
    return "%04x%04x" % (b, a)


def canonical(obj):
    """JSON text of a flat dict with sorted keys (CPython and MicroPython agree)."""
    keys = sorted(obj)
    parts = []
    for k in keys:
        parts.append(json.dumps(k) + ":" + json.dumps(obj[k]))
    return "{" + ",".join(parts) + "}"


def encode(obj):
    body = canonical(obj)
    s = checksum(body.encode())
    if len(body) > 2:
        return body[:-1] + ',"sum":"' + s + '"}\n'
    return '{"sum":"' + s + '"}\n'


def decode(data):
    """bytes -> dict, or None if it is not a complete, intact file."""
    if not data:
        return None
    try:
        obj = json.loads(data)
    except (ValueError, UnicodeError):
        return None
    if not isinstance(obj, dict):
        return None
    s = obj.pop("sum", None)
    if s is None or checksum(canonical(obj).encode()) != s:
        return None
    return obj


class Storage:
    HISTORY_MAX = 50  # finished games kept in /data/games/

    def __init__(self, fs, root="/data"):
        self.fs = fs
        self.root = root
        fs.mkdir(root)
        fs.mkdir(root + "/games")

    def path(self, name):
        return self.root + "/" + name

    def _write_atomic(self, path, data):
        fs = self.fs
        tmp = path + ".tmp"
        f = fs.open_write(tmp)
        try:
            for i in range(0, len(data), CHUNK):
                f.write(data[i:i + CHUNK])
        finally:
            f.close()
        try:
            fs.rename(tmp, path)
        except OSError:  # a filesystem whose rename will not replace a file
            fs.remove(path)
            fs.rename(tmp, path)

    def load(self, name):
        """(status, dict or None) for settings.json / game.json."""
        path = self.path(name)
        data = self.fs.read(path)
        if data is None:
            # Only a rename that had to remove the old file first leaves this:
            # the .tmp beside it is then complete.
            obj = decode(self.fs.read(path + ".tmp"))
            if obj is not None:
                return OK, obj
            return MISSING, None
        obj = decode(data)
        if obj is None:
            return CORRUPT, None
        return OK, obj

    def save(self, name, obj):
        self._write_atomic(self.path(name), encode(obj).encode())

    def remove(self, name):
        self.fs.remove(self.path(name))

    # -- finished games ----------------------------------------------------------

    def history(self):
        """Numbers of the stored finished games, oldest first."""
        out = []
        for n in self.fs.listdir(self.root + "/games"):
            if len(n) == 10 and n[0] == "g" and n[6:] == ".txt" and n[1:6].isdigit():
                out.append(int(n[1:6]))
        out.sort()
        return out

    def history_name(self, number):
        return "%s/games/g%05d.txt" % (self.root, number)

    def add_game(self, number, record):
        """Store a finished game's record (idempotent), dropping the oldest past the bound."""
        self._write_atomic(self.history_name(number), (record + "\n").encode())
        nums = self.history()
        while len(nums) > self.HISTORY_MAX:
            self.fs.remove(self.history_name(nums.pop(0)))

    def read_game(self, number):
        data = self.fs.read(self.history_name(number))
        return None if data is None else data.decode().strip()

    def next_game_number(self):
        nums = self.history()
        return (nums[-1] + 1) % 100000 if nums else 1
