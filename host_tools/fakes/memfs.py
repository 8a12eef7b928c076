"""An in-memory filesystem for `mancala.hw.storage.Storage`, with power cuts.

Every mutating call (one write of a chunk, a rename, a remove, a mkdir) is one
"write".  `cut_at = k` makes the k-th write (0-based, counted from the last
`arm()`) raise PowerCut before it happens: what was written before stays, like
flash after a power loss.  MicroPython-compatible.
"""


class PowerCut(BaseException):  # not caught by the firmware's "except Exception"
    pass


class _File:
    def __init__(self, fs, path):
        self.fs = fs
        self.path = path
        fs._op()
        fs.files[path] = b""

    def write(self, data):
        self.fs._op()
        self.fs.files[self.path] = self.fs.files[self.path] + bytes(data)
        return len(data)

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()


class MemFs:
    def __init__(self):
        self.files = {}
        self.dirs = set()
        self.ops = 0
        self.cut_at = -1

    def arm(self, cut_at):
        self.ops = 0
        self.cut_at = cut_at

    def _op(self):
        if self.ops == self.cut_at:
            self.cut_at = -1
            raise PowerCut("power cut at write %d" % self.ops)
        self.ops += 1

    def read(self, path):
        return self.files.get(path)

    def open_write(self, path):
        return _File(self, path)

    def open_read(self, path):
        data = self.files.get(path)
        if data is None:
            raise OSError(2)
        import io

        return io.BytesIO(bytes(data))

    def rename(self, a, b):
        self._op()
        if a not in self.files:
            raise OSError(2)
        self.files[b] = self.files.pop(a)

    def remove(self, path):
        if path in self.files:
            self._op()
            del self.files[path]

    def listdir(self, path):
        pre = path.rstrip("/") + "/"
        out = []
        for p in self.files:
            if p.startswith(pre) and "/" not in p[len(pre):]:
                out.append(p[len(pre):])
        return out

    def mkdir(self, path):
        if path not in self.dirs:
            self._op()
            self.dirs.add(path)

    def snapshot(self):
        return dict(self.files)
