"""A fake `rp2` module (StateMachine, DMA, asm_pio, PIO) for the PIO pixel driver's
tests: it records what the driver hands over.  MicroPython-compatible.  (Not in
host_tools/fakes: the MicroPython tests mount that folder as /lib, where a module
named rp2 would give every board built there the PIO driver.)

`DMA.config` keeps a copy of the bytes it was given to read (what would go on the
wire) and fails if it is called while the last transfer is still running;
`DMA.busy` is how many more `active()` polls report the transfer running.
`asm_pio` runs the program's function with its instructions as globals (as the
real one does) and records them.
"""


class PIO:
    OUT_LOW = 0
    OUT_HIGH = 1
    SHIFT_LEFT = 0
    SHIFT_RIGHT = 1
    JOIN_NONE = 0
    JOIN_TX = 1


class _Instr:
    def __init__(self, prog, op, args):
        self.prog = prog
        self.entry = [op, args, None, 0]
        prog.append(self.entry)

    def side(self, v):
        self.entry[2] = v
        return self

    def __getitem__(self, delay):
        self.entry[3] = delay
        return self


def asm_pio(**kw):
    def dec(f):
        prog = []
        names = {"x": "x", "y": "y", "not_x": "not_x", "pins": "pins"}

        def op(name):
            return lambda *a: _Instr(prog, name, a)

        for n in ("wrap_target", "label", "out", "jmp", "nop", "wrap", "set", "pull", "mov"):
            names[n] = op(n)
        g = f.__globals__
        old = {k: g[k] for k in names if k in g}
        g.update(names)
        try:
            f()
        finally:
            for k in names:
                del g[k]
            g.update(old)
        return {"config": kw, "instructions": prog}
    return dec


machines = []  # every StateMachine built (the newest last)
channels = []  # every DMA built
refuse = None  # an exception a new DMA() raises (no free channel)


class StateMachine:
    def __init__(self, sm_id, prog, freq=None, sideset_base=None):
        self.id = sm_id
        self.prog = prog
        self.freq = freq
        self.sideset_base = sideset_base
        self.running = 0
        machines.append(self)

    def active(self, v=None):
        if v is None:
            return self.running
        self.running = v
        return None


class DMA:
    def __init__(self):
        if refuse is not None:
            raise refuse
        self.frames = []  # the bytes of each transfer
        self.reads = []  # the buffer objects read from (ids)
        self.busy = 0
        self.polls = 0
        self.closed = False
        self.last = None
        channels.append(self)

    def pack_ctrl(self, size=2, inc_read=True, inc_write=True, treq_sel=63):
        self.packed = {"size": size, "inc_read": inc_read, "inc_write": inc_write,
                       "treq_sel": treq_sel}
        return size << 2 | inc_read << 4 | inc_write << 5 | treq_sel << 15 | 1

    def active(self, v=None):
        if v is not None:  # (0: abort)
            self.busy = 0
            self.aborted = True
            return None
        self.polls += 1
        if self.busy:
            self.busy -= 1
            return True
        return False

    def config(self, read=None, write=None, count=None, ctrl=None, trigger=False):
        if self.busy:
            raise AssertionError("a transfer started while the last one still runs")
        self.last = (write, count, ctrl, trigger)
        self.reads.append(id(read))
        self.frames.append(bytes(read[:count]))

    def close(self):
        self.closed = True
