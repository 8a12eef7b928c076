"""Settings, the current game and the finished games, on flash, never half-written.

The guarantee (docs/BOARD.md, "Saving"): under any sequence of power cuts and
write errors, a complete copy of the last saved state, or of a state saved after
it, exists, and `load()` finds it.  How:

- A JSON file carries its own checksum (`"sum"`, an Adler-32 of the canonical text
  of the other keys), so a torn or corrupted copy is detected, never trusted.
- A save writes the whole file to `NAME.tmp`, then renames it over `NAME`.
- `NAME.tmp` is opened (which truncates it) only while `NAME` holds a complete
  copy: when a cut left the only copy in `NAME.tmp`, the next save first renames
  it to `NAME` (a rename onto no file works on every filesystem).
- Only a rename refused because the target exists (EEXIST: a filesystem whose
  rename will not replace a file) removes `NAME` before renaming again; any other
  error (ENOSPC, EIO) leaves `NAME` alone, removes the new `NAME.tmp` and is
  raised: the caller reports it and goes on without the save.
- A finished game is archived once, under its own number, and never overwritten.
  Its file (`gNNNNN.txt`) is `sum XXXXXXXX` (the same Adler-32, of the record) on
  the first line and the record on the second, so a file cut short anywhere or
  damaged is detected by the board and by `mancala pull` / `analyse`; a file of an
  older firmware (the record alone) is read as it is.  Numbers are 1 .. GAME_NUMBER_MAX: a number out
  of range (a crafted game.json) is never a file name.

The filesystem is injected (`OsFs` on the board and the PC, any object with the
same six methods in tests), so a test can cut the power or fail any operation.
"""

import json

EEXIST = 17  # the errno a rename onto an existing file gives where it will not replace

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


def errno_of(e):
    """The errno of an OSError (MicroPython and CPython both keep it in args[0])."""
    return e.args[0] if e.args else None


def decode(data):
    """bytes -> dict, or None if it is not a complete, intact file."""
    if not data:
        return None
    try:
        obj = json.loads(data)
    except MemoryError:  # no room to read it is not a damaged file: the caller's to
        raise  # handle (the file stays as it is)
    except Exception:  # ValueError, UnicodeError; RecursionError when nested too deep (CPython)
        return None
    if not isinstance(obj, dict):
        return None
    s = obj.pop("sum", None)
    if s is None or checksum(canonical(obj).encode()) != s:
        return None
    return obj


GAME_NUMBER_MAX = 0x3FFFFFFF  # 2**30 - 1: a small int on the chips
SUM_TAG = "sum "


def game_text(record):
    """The text of an archived game: its checksum line first (so a file cut short
    anywhere is detected), then the record."""
    return "%s%s\n%s\n" % (SUM_TAG, checksum(record.encode()), record)


def game_record(data):
    """(record, checked) of an archived game's bytes: checked is True when its sum
    line matched, False for a file of an older firmware (the record alone, never
    starting with the sum line); (None, False) when it is damaged (cut short, a
    changed byte, not text)."""
    try:
        text = bytes(data).decode()
    except UnicodeError:
        return None, False
    if text[:1] != "s":  # (no variant's name starts with s: a sum line cut short is no record)
        record = text.strip()
        return (record, False) if record and "\n" not in record else (None, False)
    head, _, rest = text.partition("\n")
    record = rest.strip()
    if not record or "\n" in record or not rest.endswith("\n"):
        return None, False
    if head[len(SUM_TAG):].strip() != checksum(record.encode()):
        return None, False
    return record, True


def game_number_ok(number):
    return isinstance(number, int) and not isinstance(number, bool) and 1 <= number <= GAME_NUMBER_MAX


class Storage:
    HISTORY_MAX = 50  # finished games kept in /data/games/

    def __init__(self, fs, root="/data"):
        self.fs = fs
        self.root = root
        # paths whose NAME is known to hold a complete copy (no need to read it back)
        self._complete = {}
        for d in (root, root + "/games"):
            try:
                fs.mkdir(d)
            except OSError:  # a full or failing flash never stops the boot
                pass

    def path(self, name):
        return self.root + "/" + name

    def _settle(self, path):
        """Make sure NAME, not NAME.tmp, holds the newest complete copy, so that the
        save about to reopen NAME.tmp cannot truncate the only copy.  Raises OSError
        if that rename fails (the save then fails; NAME.tmp stays, load() finds it)."""
        if self._complete.get(path):
            return
        fs = self.fs
        tmp = path + ".tmp"
        cur = fs.read(path)
        if cur is not None and decode(cur) is not None:
            self._complete[path] = True
            return
        if decode(fs.read(tmp)) is None:
            return  # no complete copy anywhere (the first save, or a lost file)
        if cur is not None:
            fs.remove(path)  # a torn NAME: the complete copy is NAME.tmp
        fs.rename(tmp, path)
        self._complete[path] = True

    def _write_atomic(self, path, data, settle=True):
        fs = self.fs
        tmp = path + ".tmp"
        if settle:
            self._settle(path)
        self._complete[path] = False
        try:
            f = fs.open_write(tmp)
            try:
                for i in range(0, len(data), CHUNK):
                    f.write(data[i:i + CHUNK])
            finally:
                f.close()
        except OSError:
            fs.remove(tmp)  # a torn NAME.tmp: NAME still holds the last save
            self._complete[path] = True
            raise
        try:
            fs.rename(tmp, path)
        except OSError as e:
            if errno_of(e) != EEXIST:
                # ENOSPC, EIO...: NAME was not touched and still holds the last save
                fs.remove(tmp)
                self._complete[path] = True
                raise
            # A filesystem whose rename will not replace a file: NAME.tmp is complete,
            # so NAME may go.  If the rename below fails, NAME.tmp is the only copy:
            # load() reads it, and the next save settles it before reopening NAME.tmp.
            fs.remove(path)
            fs.rename(tmp, path)
        self._complete[path] = True

    def load(self, name):
        """(status, dict or None) for settings.json / game.json."""
        path = self.path(name)
        data = self.fs.read(path)
        obj = decode(data)
        if obj is not None:
            self._complete[path] = True
            return OK, obj
        # A cut after a rename that had to remove NAME first (or the very first
        # save, cut before its rename) leaves the complete copy in NAME.tmp.
        tmp = decode(self.fs.read(path + ".tmp"))
        if tmp is not None:
            return OK, tmp
        if data is None:
            return MISSING, None
        return CORRUPT, None

    def save(self, name, obj):
        """Write `obj` whole; raises OSError (flash full, I/O error) with the last
        save still complete on flash."""
        self._write_atomic(self.path(name), encode(obj).encode())

    def remove(self, name):
        self.fs.remove(self.path(name))

    # -- finished games ----------------------------------------------------------

    def history(self):
        """Numbers of the stored finished games, oldest first."""
        out = []
        for n in self.fs.listdir(self.root + "/games"):
            # gNNNNN.txt: 5 digits or more (numbers go on past 99999, never wrap)
            if len(n) >= 10 and n[0] == "g" and n[-4:] == ".txt" and n[1:-4].isdigit():
                k = int(n[1:-4])
                if k <= GAME_NUMBER_MAX:
                    out.append(k)
        out.sort()
        return out

    def history_name(self, number):
        if not game_number_ok(number):
            raise ValueError("game number %r out of range" % (number,))
        return "%s/games/g%05d.txt" % (self.root, number)

    def archived(self, number, record):
        """1 if game `number` is archived with this record, 0 if the number is free,
        -1 if it holds another game, or a damaged file (never written over), or the
        number is out of range (the caller takes a new one)."""
        if not game_number_ok(number):
            return -1
        old = self.fs.read(self.history_name(number))
        if old is None:
            return 0
        return 1 if game_record(old)[0] == record else -1

    def add_game(self, number, record):
        """Archive a finished game's record under `number`, once (archived already:
        no write, so a boot after the end writes nothing).  Never overwrites another
        game: returns False if `number` holds one (the caller takes a new number).
        Drops the oldest games past the bound.  Raises OSError if the flash refuses."""
        state = self.archived(number, record)
        if state:
            return state > 0
        # a new name: nothing to settle, and a torn gNNNNN.txt.tmp is never listed
        name = self.history_name(number)
        self._write_atomic(name, game_text(record).encode(), settle=False)
        self._complete.pop(name, None)
        nums = self.history()
        while len(nums) > self.HISTORY_MAX:
            self.fs.remove(self.history_name(nums.pop(0)))
        return True

    def read_game(self, number):
        """The record of archived game `number`, or None (none, or damaged)."""
        if not game_number_ok(number):
            return None
        data = self.fs.read(self.history_name(number))
        return None if data is None else game_record(data)[0]

    def next_game_number(self, after=0):
        """A number no stored game has and above `after` (the current game's):
        one past the newest, so a number is never used twice (they do not wrap).
        An `after` out of range (a crafted game.json) counts as none."""
        nums = self.history()
        top = nums[-1] if nums else 0
        if not game_number_ok(after):
            after = 0
        n = (top if top > after else after) + 1
        if n <= GAME_NUMBER_MAX:
            return n
        n = 1  # (only past a crafted file at the very top: the lowest free number)
        while n in nums:
            n += 1
        return n
