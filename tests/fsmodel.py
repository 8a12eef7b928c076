"""A filesystem model for the fault tests: it records every operation and can cut
the power, or fail with an OSError, at any one of them (a write partway through).

Two kinds of behaviour, each with both rename behaviours:
  eager=True    every write reaches the flash at once, open truncates at once
                (the harshest: a cut mid-write leaves a torn file)
  eager=False   littlefs: a file's data is committed at close, a cut before close
                leaves the file as it was
  replace=True  a rename over an existing file replaces it atomically (littlefs)
  replace=False a rename onto an existing file fails with EEXIST (FAT)
A full flash: `capacity` bytes; a write or a new file past it fails with ENOSPC.
"""

from host_tools.fakes.memfs import PowerCut

ENOENT, EIO, EEXIST, ENOSPC = 2, 5, 17, 28


class ModelFs:
    def __init__(self, replace=True, eager=True, files=None, capacity=None):
        self.files = dict(files or {})
        self.dirs = set()
        self.replace = replace
        self.eager = eager
        self.capacity = capacity
        self.ops = []  # every operation: (kind, path, bytes)
        self.fault_at = -1  # index into ops of the next fault
        self.fault = None  # "cut", "cut-mid" (half the write lands), or an errno
        self.faults = 0
        self.dead = False  # after a cut nothing reaches the flash any more
        self.failing = None  # (errno, kinds): every such op fails from now on

    def plan(self, at, fault="cut"):
        self.fault_at = len(self.ops) + at if at >= 0 else -1
        self.fault = fault

    def fail(self, errno=ENOSPC, kinds=("write", "rename", "close")):
        """A flash that refuses from now on (full: opens still truncate, writes fail)."""
        self.failing = (errno, kinds) if errno else None

    def count(self):
        return len(self.ops)

    def used(self):
        n = 0
        for v in self.files.values():
            n += len(v)
        return n

    def _op(self, kind, path, data=b""):
        """Record the operation; True if it happens whole, False if only half of a
        write happens; raises at the planned fault."""
        if self.dead:
            raise PowerCut("the power is off")
        i = len(self.ops)
        self.ops.append((kind, path, len(data)))
        if self.failing is not None and kind in self.failing[1]:
            raise OSError(self.failing[0])
        if i != self.fault_at:
            return True
        self.fault_at = -1
        self.faults += 1
        if self.fault == "cut":
            self.dead = True
            raise PowerCut("cut before op %d (%s %s)" % (i, kind, path))
        if self.fault == "cut-mid":
            self.dead = True
            return False
        raise OSError(self.fault)

    def _room(self, n):
        if self.capacity is not None and self.used() + n > self.capacity:
            raise OSError(ENOSPC)

    # -- the six methods of storage.OsFs ----------------------------------------------

    def read(self, path):
        return self.files.get(path)

    def open_write(self, path):
        self._op("open", path)
        if path not in self.files:
            self._room(1)
        return _File(self, path)

    def rename(self, a, b):
        self._op("rename", a + ">" + b)
        if a not in self.files:
            raise OSError(ENOENT)
        if b in self.files and not self.replace:
            raise OSError(EEXIST)
        self.files[b] = self.files.pop(a)

    def remove(self, path):  # like OsFs.remove: an error is swallowed
        if path in self.files:
            try:
                self._op("remove", path)
            except OSError:
                return
            del self.files[path]

    def listdir(self, path):
        pre = path.rstrip("/") + "/"
        return [p[len(pre):] for p in self.files if p.startswith(pre) and "/" not in p[len(pre):]]

    def mkdir(self, path):
        if path not in self.dirs:
            self._op("mkdir", path)
            self.dirs.add(path)

    def snapshot(self):
        return dict(self.files)


class _File:
    def __init__(self, fs, path):
        self.fs = fs
        self.path = path
        self.data = b""
        if fs.eager:
            fs.files[path] = b""

    def write(self, data):
        fs = self.fs
        data = bytes(data)
        whole = fs._op("write", self.path, data)
        part = data if whole else data[: len(data) // 2]
        fs._room(len(part))
        self.data += part
        if fs.eager:
            fs.files[self.path] = self.data
        if not whole:
            raise PowerCut("cut partway through a write of %s" % self.path)
        return len(data)

    def close(self):
        fs = self.fs
        if not fs.eager:
            fs._op("close", self.path)
            fs.files[self.path] = self.data

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()
