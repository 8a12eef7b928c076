"""Machine-code kernels of the engine's hot path (`@micropython.viper`).

The same functions as the bytecode ones, move for move and bit for bit: each
variant's sowing (`Rules.move`), ranok's legal mask, and the frontiers
(`frontier_kalah`, `frontier_oware` of mancala.search_loop).  The engine takes them
where this module imports (a port with a native emitter: rp2 armv6m, ESP32
xtensawin, the Pico 2's armv7emsp, the unix port's x64) and keeps the bytecode
ones everywhere else: CPython has no `micropython`, the WebAssembly VM rejects
native code when it compiles this file, so the import fails and
`mancala.search` catches it.  The bytecode functions stay the reference: tests
run both in the unix port over positions of real play (tests/test_native.py).

On a board this file must be compiled for its CPU: host_tools/link/deploy.py gives
mpy-cross the `-march` the board reports (sys.implementation._mpy >> 10).

Viper ints are machine words (32 bits on the chips, 64 in the unix port), not
Python's 31-bit small ints: nothing here overflows, every value is a count of
stones (< 256, a byte), a bit mask (< 2**14) or a packed frontier result
(< 2**24).  What crosses back into Python (a move's flags, a frontier's packed
result) is below 2**30, so it stays a small int on every port.

Two kernels are the LED chain's, not the engine's (`leds_fill2`, `leds_remap`:
mancala.hw.pixels takes them where they run, modes/start.py hands them over): a
frame's Python loops are search time lost during a think, and on an RP2040 a
12-LED run in bytecode costs ~300 us.  They live here, not in a module of their own,
because a module costs RAM of its own (~2 KB in the unix port) and the ESP32's heap
has little to spare.

Sowing paths: one flat buffer per variant, STRIDE bytes per (side, pit); the
paths of kalah3..kalah6 are prefixes of the same cycle, so kalah6's serve all.
"""

# ruff: noqa: F821  (ptr8, ptr16, ptr32 are viper's casts, known to its compiler only)
import micropython
from micropython import const

from mancala.rules import POPCOUNT

STRIDE = const(73)  # stones a path holds: kalah6's 72 seeds + 1

_EXTRA = const(1)
_OVER = const(2)
_SWEPT = const(4)
_CAPTURED = const(8)
_SCALE = const(4)
_INF = const(30000)
_FR_CUT = const(1)
_FR_STOPPED = const(2)


# The flat paths of each variant, made when mover() first meets its rules (a board plays
# one variant: the others' 876 bytes, and the rule sets they came from, are never made).
# kalah's serve every seed count: kalah3..kalah5's paths are prefixes of kalah6's cycle,
# so writing a shorter one over a longer one changes no byte.
_KP = None  # type: bytearray | None
_MP = None  # type: bytearray | None
_RP = None  # type: bytearray | None
_OP = None  # type: bytearray | None
_POP = POPCOUNT
_RANOK_SCRATCH = bytearray(16)


@micropython.viper
def _collect_rows(p: ptr8):
    s = 0
    t = 0
    for i in range(6):
        s += p[i]
        t += p[7 + i]
        p[i] = 0
        p[7 + i] = 0
    p[6] = p[6] + s
    p[13] = p[13] + t


@micropython.viper
def _sweep_to_empty_row(p: ptr8, s_empty: int):
    s = 0
    for i in range(6):
        s += p[i] + p[7 + i]
        p[i] = 0
        p[7 + i] = 0
    if s_empty:
        p[6] = p[6] + s
    else:
        p[13] = p[13] + s


@micropython.viper
def move_kalah(pos, pit: int) -> int:
    """Kalah.move (any seeds)."""
    p = ptr8(pos)
    path = ptr8(_KP)
    side = p[14]
    own = side * 7
    origin = own + pit
    n = p[origin]
    p[origin] = 0
    base = (side * 6 + pit) * STRIDE
    for i in range(n):
        j = path[base + i]
        p[j] = p[j] + 1
    last = path[base + n - 1]
    flags = 0
    b = own
    if last == own + 6:
        flags = _EXTRA
    else:
        if own <= last < own + 6 and p[last] == 1 and p[12 - last]:
            p[own + 6] = p[own + 6] + p[12 - last] + 1
            p[12 - last] = 0
            p[last] = 0
            flags = (_CAPTURED << last) | (_CAPTURED << (12 - last))
        p[14] = side ^ 1
        b = 7 - own
    m = 0
    if p[b]:
        m = 1
    if p[b + 1]:
        m |= 2
    if p[b + 2]:
        m |= 4
    if p[b + 3]:
        m |= 8
    if p[b + 4]:
        m |= 16
    if p[b + 5]:
        m |= 32
    o = 7 - b
    if m == 0 or (p[o] | p[o + 1] | p[o + 2] | p[o + 3] | p[o + 4] | p[o + 5]) == 0:
        _collect_rows(p)
        p[15] = 0
        return flags | _OVER | _SWEPT
    p[15] = m
    return flags


@micropython.viper
def move_mangala(pos, pit: int) -> int:
    """Mangala.move."""
    p = ptr8(pos)
    path = ptr8(_MP)
    side = p[14]
    own = side * 7
    origin = own + pit
    n = p[origin]
    p[origin] = 0
    base = (side * 6 + pit) * STRIDE
    last = 0
    if n == 1:  # a single stone moves on to the next pit
        last = path[base + 1]
        p[last] = p[last] + 1
    else:
        for i in range(n):
            j = path[base + i]
            p[j] = p[j] + 1
        last = path[base + n - 1]
    store = own + 6
    flags = 0
    if last == store:
        flags = _EXTRA
    elif own <= last < store:
        if p[last] == 1 and p[12 - last]:
            p[store] = p[store] + p[12 - last] + 1
            p[12 - last] = 0
            p[last] = 0
            flags = (_CAPTURED << last) | (_CAPTURED << (12 - last))
    elif (p[last] & 1) == 0:  # opponent's pit now even
        p[store] = p[store] + p[last]
        p[last] = 0
        flags = _CAPTURED << last
    b = own
    if not (flags & _EXTRA):
        p[14] = side ^ 1
        b = 7 - own
    if p[6] >= 25 or p[13] >= 25:
        p[15] = 0
        return flags | _OVER
    m = 0
    if p[b]:
        m = 1
    if p[b + 1]:
        m |= 2
    if p[b + 2]:
        m |= 4
    if p[b + 3]:
        m |= 8
    if p[b + 4]:
        m |= 16
    if p[b + 5]:
        m |= 32
    if m == 0:  # the next mover's row is empty (if both are, the sweep moves 0)
        _sweep_to_empty_row(p, b == 0)
        p[15] = 0
        return flags | _OVER | _SWEPT
    o = 7 - b
    if (p[o] | p[o + 1] | p[o + 2] | p[o + 3] | p[o + 4] | p[o + 5]) == 0:
        _sweep_to_empty_row(p, o == 0)
        p[15] = 0
        return flags | _OVER | _SWEPT
    p[15] = m
    return flags


@micropython.viper
def _ranok_sow(p: ptr8, side: int, pit: int) -> int:
    """Ranok._sow: sow and capture, no end-of-game rule; the capture flags."""
    path = ptr8(_RP)
    own = side * 7
    origin = own + pit
    n = p[origin]
    p[origin] = 0
    base = (side * 6 + pit) * STRIDE
    for i in range(n):
        j = path[base + i]
        p[j] = p[j] + 1
    last = path[base + n - 1]
    opp = 7 - own
    if not (opp <= last < opp + 6):
        return 0
    c = p[last]
    if c != 2 and c != 3:
        return 0
    p[last] = 0
    flags = _CAPTURED << last
    if last > opp:
        c2 = p[last - 1]
        if c2 == 2 or c2 == 3:
            c += c2
            p[last - 1] = 0
            flags |= _CAPTURED << (last - 1)
    if last < opp + 5:
        c2 = p[last + 1]
        if c2 == 2 or c2 == 3:
            c += c2
            p[last + 1] = 0
            flags |= _CAPTURED << (last + 1)
    p[own + 6] = p[own + 6] + c
    return flags


@micropython.viper
def ranok_mask(pos) -> int:
    """Ranok.legal_mask: non-empty pits whose move leaves the opponent a stone."""
    p = ptr8(pos)
    side = p[14]
    own = side * 7
    opp = 7 - own
    m = 0
    reach = 0
    for k in range(6):  # stones stopping short of the opponent's row (n < 7 - k)
        n = p[own + k]
        if n:
            if n < 7 - k:
                m |= 1 << k
            else:
                reach |= 1 << k
    if m and (p[opp] | p[opp + 1] | p[opp + 2] | p[opp + 3] | p[opp + 4] | p[opp + 5]) == 0:
        m = 0
    if reach:
        path = ptr8(_RP)
        for pit in range(6):
            if (reach >> pit) & 1:
                n = p[own + pit]
                last = path[(side * 6 + pit) * STRIDE + n - 1]
                c = p[last] + 1
                if not (opp <= last < opp + 6) or (n <= 12 and c != 2 and c != 3):
                    m |= 1 << pit
                elif n <= 12:
                    empties = last == opp or (last == opp + 1 and (p[opp] == 1 or p[opp] == 2))
                    if empties and last < opp + 5:
                        c = p[last + 1]
                        empties = c == 0 or c == 2 or c == 3
                        i = last + 2
                        while empties and i < opp + 6:
                            if p[i]:
                                empties = False
                            i += 1
                    if not empties:
                        m |= 1 << pit
                else:  # several laps: try it
                    t = ptr8(_RANOK_SCRATCH)
                    for i in range(16):
                        t[i] = p[i]
                    _ranok_sow(t, side, pit)
                    if (t[opp] | t[opp + 1] | t[opp + 2] | t[opp + 3] | t[opp + 4]
                            | t[opp + 5]):
                        m |= 1 << pit
    return m


@micropython.viper
def move_ranok(pos, pit: int) -> int:
    """Ranok.move."""
    p = ptr8(pos)
    side = p[14]
    flags = int(_ranok_sow(p, side, pit))
    p[14] = side ^ 1
    if p[6] >= 25 or p[13] >= 25:
        p[15] = 0
        return flags | _OVER
    m = int(ranok_mask(pos))
    p[15] = m
    if m == 0:  # the side to move cannot move: stones left count for nobody
        return flags | _OVER
    return flags


@micropython.viper
def move_oware(pos, pit: int) -> int:
    """Oware.move (4 seeds: half is 24)."""
    p = ptr8(pos)
    path = ptr8(_OP)
    side = p[14]
    own = side * 7
    origin = own + pit
    n = p[origin]
    p[origin] = 0
    base = (side * 6 + pit) * STRIDE
    for i in range(n):
        j = path[base + i]
        p[j] = p[j] + 1
    last = path[base + n - 1]
    opp = 7 - own
    flags = 0
    if opp <= last < opp + 6:
        # The chain of 2s and 3s ending at the last pit, going backwards.
        low = last
        got = 0
        while low >= opp:
            c = p[low]
            if c != 2 and c != 3:
                break
            got += c
            low -= 1
        if got:
            grand_slam = low < opp
            i = last + 1
            while grand_slam and i < opp + 6:
                if p[i]:
                    grand_slam = False
                i += 1
            if not grand_slam:  # taking every stone of the opponent captures nothing
                for i in range(low + 1, last + 1):
                    p[i] = 0
                    flags |= _CAPTURED << i
                p[own + 6] = p[own + 6] + got
    p[14] = side ^ 1
    m = 0
    if p[own] | p[own + 1] | p[own + 2] | p[own + 3] | p[own + 4] | p[own + 5]:
        for k in range(6):
            if p[opp + k]:
                m |= 1 << k
    else:
        for k in range(6):
            if p[opp + k] > 5 - k:
                m |= 1 << k
    s = p[6]
    t = p[13]
    if m == 0 or s > 24 or t > 24 or (s == 24 and t == 24):
        _collect_rows(p)
        p[15] = 0
        return flags | _OVER | _SWEPT
    p[15] = m
    return flags


_MOVES = {"kalah": move_kalah, "mangala": move_mangala, "ranok": move_ranok,
          "oware": move_oware}


def mover(rules):
    """The native move of `rules`, or None (paths this module does not hold)."""
    fn = _MOVES.get(rules.name)
    if fn is None or rules.total + 1 > STRIDE or (rules.name == "oware" and rules.total != 48):
        return None
    flat = flat_paths(rules)
    for k in range(12):
        p = rules.paths[k]
        if flat[k * STRIDE:k * STRIDE + len(p)] != p:
            return None
    return fn


# -- the frontiers (mancala.search_loop.frontier_kalah / frontier_oware, same packing)

@micropython.viper
def frontier_kalah(pos, alpha: int, beta: int, left: int, w: int, half: int, ew: int,
                   xw: int) -> int:
    """mancala.search_loop.frontier_kalah in machine code."""
    p = ptr8(pos)
    pc = ptr8(_POP)
    side = p[14]
    own0 = side * 7
    opp0 = 7 - own0
    a = p[own0] + p[own0 + 1] + p[own0 + 2] + p[own0 + 3] + p[own0 + 4] + p[own0 + 5]
    b = p[opp0] + p[opp0 + 1] + p[opp0 + 2] + p[opp0 + 3] + p[opp0 + 4] + p[opp0 + 5]
    s = p[own0 + 6]
    t = p[opp0 + 6]
    eo = 0
    ep = 0
    if ew:
        for i in range(6):
            if p[own0 + i] == 0:
                eo |= 1 << i
            if p[opp0 + i] == 0:
                ep |= 1 << i
    mask = p[15]
    bv = -_INF
    used = 0
    cut = 0
    for pit in range(6):
        if ((mask >> pit) & 1) == 0:
            continue
        n = p[own0 + pit]
        r = 5 - pit
        if n == r + 1 or n > 12 or used >= left:
            return ((bv + 32768) << 8) | (pit << 5) | (used << 2) | _FR_STOPPED | cut
        used += 1
        taken = 0
        s2 = s
        a2 = a
        b2 = b
        sown = 0
        filled = 0
        if n <= r:
            sown = ((1 << n) - 1) << (pit + 1)
            last = own0 + pit + n
            if p[last] == 0 and p[12 - last]:
                g = p[12 - last]
                s2 = s + g + 1
                a2 = a - 1
                b2 = b - g
                taken = (1 << (pit + n)) | (1 << (11 - pit - n))
        else:
            k = n - r - 1
            s2 = s + 1
            sown = ((1 << r) - 1) << (pit + 1)
            if k <= 6:
                filled = (1 << k) - 1
                a2 = a - n + r
                b2 = b + k
            else:
                filled = 63
                sown |= (1 << (k - 6)) - 1
                a2 = a - n + r + k - 6
                b2 = b + 6
                last = own0 + k - 7
                if p[last] == 0:
                    g = p[12 - last] + 1
                    s2 += g + 1
                    a2 -= 1
                    b2 -= g
                    taken = (1 << (k - 7)) | (1 << (18 - k))
        v = 0
        if a2 and b2:
            v = (s2 - t) * _SCALE + (a2 - b2) * w
            if ew:
                v += (pc[(ep & ~filled) | (taken >> 6)]
                      - pc[(eo & ~sown) | (1 << pit) | (taken & 63)]) * ew
            cut = _FR_CUT
        else:
            v = (s2 + a2 - t - b2) * _SCALE
        if v > bv:
            bv = v
            if v > alpha:
                alpha = v
                if v >= beta:
                    break
    return ((bv + 32768) << 8) | (7 << 5) | (used << 2) | cut


@micropython.viper
def frontier_oware(pos, alpha: int, beta: int, left: int, w: int, half: int, ew: int,
                   xw: int) -> int:
    """mancala.search_loop.frontier_oware in machine code."""
    p = ptr8(pos)
    pc = ptr8(_POP)
    side = p[14]
    own0 = side * 7
    opp0 = 7 - own0
    a = p[own0] + p[own0 + 1] + p[own0 + 2] + p[own0 + 3] + p[own0 + 4] + p[own0 + 5]
    b = p[opp0] + p[opp0 + 1] + p[opp0 + 2] + p[opp0 + 3] + p[opp0 + 4] + p[opp0 + 5]
    s = p[own0 + 6]
    t = p[opp0 + 6]
    eo = 0
    ep = 0
    if ew:
        for i in range(6):
            if p[own0 + i] == 0:
                eo |= 1 << i
            if p[opp0 + i] == 0:
                ep |= 1 << i
    xo = 0
    xp = 0
    go = 0
    gp = 0
    if xw:
        for i in range(6):
            c = p[own0 + i] + i - 5
            if c >= 0:
                xo += c
                go |= 1 << i
            c = p[opp0 + i] + i - 5
            if c >= 0:
                xp += c
                gp |= 1 << i
    mask = p[15]
    bv = -_INF
    used = 0
    cut = 0
    for pit in range(6):
        if ((mask >> pit) & 1) == 0:
            continue
        n = p[own0 + pit]
        r = 5 - pit
        if n > 11 or used >= left:
            return ((bv + 32768) << 8) | (pit << 5) | (used << 2) | _FR_STOPPED | cut
        s2 = s
        xc = 0
        a2 = a
        b2 = b
        sown = 0
        filled = 0
        taken = 0
        if n <= r:
            sown = ((1 << n) - 1) << (pit + 1)
        else:
            k = n - r
            sown = ((1 << r) - 1) << (pit + 1)
            if k <= 6:
                filled = (1 << k) - 1
                a2 = a - n + r
                b2 = b + k
                last = opp0 + k - 1
                g = 0
                j = last
                while j >= opp0 and 0 < p[j] < 3:
                    g += p[j] + 1
                    if p[j] + j - opp0 > 4:
                        xc += p[j] + j - opp0 - 4
                    j -= 1
                if g:
                    if j >= opp0:
                        taken = filled & ~((1 << (j - opp0 + 1)) - 1)
                    else:
                        taken = filled
                        j = last + 1
                        while j < opp0 + 6 and p[j] == 0:
                            j += 1
                        if j == opp0 + 6:
                            g = 0
                            taken = 0
                            xc = 0
                    s2 = s + g
                    b2 -= g
            else:
                filled = 63
                sown |= (1 << (k - 6)) - 1
                a2 = a - n + r + k - 6
                b2 = b + 6
        v = 0
        if b2 == 0 or s2 > half or (s2 == half and t == half):
            v = (s2 + a2 - t - b2) * _SCALE
        elif a2 == 0:
            return ((bv + 32768) << 8) | (pit << 5) | (used << 2) | _FR_STOPPED | cut
        else:
            v = (s2 - t) * _SCALE + (a2 - b2) * w
            if ew:
                v += (pc[(ep & ~filled) | taken] - pc[(eo & ~sown) | (1 << pit)]) * ew
            if xw:
                nr = 0
                if n > r:
                    nr = n - r
                v += (xp + pc[filled & gp] - xc - xo - pc[sown & go] + nr) * xw
            cut = _FR_CUT
        used += 1
        if v > bv:
            bv = v
            if v > alpha:
                alpha = v
                if v >= beta:
                    break
    return ((bv + 32768) << 8) | (7 << 5) | (used << 2) | cut


FRONTIERS = {"kalah": frontier_kalah, "oware": frontier_oware}


def keep_only(name):
    """The board plays one variant (mancala.rules.keep_only, at each engine built after
    the old one was released): the other variants' flat paths go (876 bytes each: a
    session through the four variants kept them all, 2.6 KB grown by its last game)."""
    global _KP, _MP, _RP, _OP
    if name != "kalah":
        _KP = None
    if name != "mangala":
        _MP = None
    if name != "ranok":
        _RP = None
    if name != "oware":
        _OP = None


def flat_paths(rules):
    """The flat sowing paths the kernels read for `rules` (made, or grown to its seeds)."""
    global _KP, _MP, _RP, _OP
    name = rules.name
    flat = {"kalah": _KP, "mangala": _MP, "ranok": _RP, "oware": _OP}[name]
    if flat is None:
        flat = bytearray(12 * STRIDE)
        if name == "kalah":
            _KP = flat
        elif name == "mangala":
            _MP = flat
        elif name == "ranok":
            _RP = flat
        else:
            _OP = flat
    for k in range(12):
        p = rules.paths[k]
        if len(p) <= STRIDE:
            flat[k * STRIDE:k * STRIDE + len(p)] = p
    return flat


# -- the search: mancala.search_loop.run and quiesce, step for step ---------------
# The same states, the same move order, the same node counting and table writes
# (so the same tree, scores and node counts at equal nodes).  The engine's stacks
# are read in place: alpha/beta/oalpha/best/bias are array("h") (16 bits, read
# unsigned through ptr16, so sign-extended: (x ^ 0x8000) - 0x8000), the table and
# the keys array("i")/("H") of values below 2**30 (ptr32 reads them alike on 32-
# and 64-bit ports).  Positions stay the engine's bytearrays (node[] / kids[]).
# Python is called for the move (a viper function above), the frontier, the
# quiescence, the endgame table; the rest runs as machine code.

_QLEFT = const(0)  # slots of the quiescence's int array (Engine._qstate)
_QPLIES = const(1)
_QW = const(2)
_QEW = const(3)
_QXW = const(4)
_QOWARE = const(5)
_QKALAH = const(6)


@micropython.viper
def quiesce(pos, alpha: int, beta: int, qp: int, move, qkids, qs, path) -> int:
    """search_loop.quiesce: the value of leaf `pos` for its side to move."""
    p = ptr8(pos)
    st = ptr32(qs)
    pa = ptr8(path)
    side = p[14]
    v = (p[6] - p[13]) * _SCALE
    w = st[_QW]
    if w:
        v += (p[0] + p[1] + p[2] + p[3] + p[4] + p[5] - p[7] - p[8] - p[9] - p[10] - p[11]
              - p[12]) * w
    ew = st[_QEW]
    xw = st[_QXW]
    if xw:
        e = 0
        x = 0
        for i in range(6):
            if p[i] == 0:
                e += 1
            if p[7 + i] == 0:
                e -= 1
            if p[i] > 5 - i:
                x += p[i] - 5 + i
            if p[7 + i] > 5 - i:
                x -= p[7 + i] - 5 + i
        v -= e * ew + x * xw
    elif ew:
        e = 0
        for i in range(6):
            if p[i] == 0:
                e += 1
            if p[7 + i] == 0:
                e -= 1
        v -= e * ew
    if side:
        v = 0 - v
    if v >= beta or qp >= st[_QPLIES] or st[_QLEFT] <= 0:
        return v
    if v > alpha:
        alpha = v
    bv = v
    own0 = side * 7
    own = own0 + 6
    opp0 = 7 - own0
    oware = st[_QOWARE]
    mask = p[15]
    c = qkids[qp]
    cp = ptr8(c)
    for pit in range(6):
        if ((mask >> pit) & 1) == 0:
            continue
        cn = p[own0 + pit]
        last = pa[(side * 6 + pit) * STRIDE + cn - 1]
        if oware:
            if cn > 11 or not (opp0 <= last < opp0 + 6 and 0 < p[last] < 3):
                continue
        elif last == own:
            pass
        elif cn > 12 or not (own0 <= last < own) or p[last] or p[12 - last] == 0:
            continue
        if st[_QLEFT] <= 0:
            break
        st[_QLEFT] = st[_QLEFT] - 1
        for i in range(16):
            cp[i] = p[i]
        fl = 0
        if st[_QKALAH]:
            # move_kalah written out, as in run() (viper cannot inline a call; keep
            # the three in step: tests/test_native.py's parity runs through each)
            cp[own0 + pit] = 0
            pb = (side * 6 + pit) * STRIDE
            for i in range(cn):
                y = pa[pb + i]
                cp[y] = cp[y] + 1
            rb = own0
            if last == own:
                fl = _EXTRA
            else:
                if own0 <= last < own and cp[last] == 1 and cp[12 - last]:
                    cp[own] = cp[own] + cp[12 - last] + 1
                    cp[12 - last] = 0
                    cp[last] = 0
                    fl = (_CAPTURED << last) | (_CAPTURED << (12 - last))
                cp[14] = side ^ 1
                rb = opp0
            m = 0
            for i in range(6):
                if cp[rb + i]:
                    m |= 1 << i
            ro = 7 - rb
            if m == 0 or (cp[ro] | cp[ro + 1] | cp[ro + 2] | cp[ro + 3] | cp[ro + 4]
                          | cp[ro + 5]) == 0:
                _collect_rows(cp)
                m = 0
                fl |= _OVER | _SWEPT
            cp[15] = m
        else:
            fl = int(move(c, pit))
        x = 0
        if fl & _OVER:
            x = cp[6] - cp[13]
            if side:
                x = 0 - x
            x *= _SCALE
        elif cp[14] == side:
            x = int(quiesce(c, alpha, beta, qp + 1, move, qkids, qs, path))
        else:
            x = 0 - int(quiesce(c, 0 - beta, 0 - alpha, qp + 1, move, qkids, qs, path))
        if x > bv:
            bv = x
            if x > alpha:
                alpha = x
                if x >= beta:
                    break
    return bv


@micropython.viper
def evaluate(pos, side: int, w: int, ew: int, xw: int) -> int:
    """mancala.search_loop.evaluate without the threat term (tw = 0)."""
    p = ptr8(pos)
    a = p[0] + p[1] + p[2] + p[3] + p[4] + p[5]
    b = p[7] + p[8] + p[9] + p[10] + p[11] + p[12]
    v = (p[6] - p[13]) * _SCALE + (a - b) * w
    if ew:
        e = 0
        for i in range(6):
            if p[i] == 0:
                e += 1
            if p[7 + i] == 0:
                e -= 1
        v -= e * ew
    if xw:
        e = 0
        for i in range(6):
            if p[i] > 5 - i:
                e += p[i] - 5 + i
            if p[7 + i] > 5 - i:
                e -= p[7 + i] - 5 + i
        v -= e * xw
    if side:
        v = 0 - v
    return v


# -- the LED chain's buffer (mancala.hw.pixels.Pixels) -----------------------------

@micropython.viper
def leds_fill2(buf, i: int, n1: int, c1: int, n2: int, c2: int, table, order: int) -> int:
    """Pixels.run twice in one call: LEDs i .. i+n1-1 in colour c1, then n2 LEDs in
    c2 (a pit's count: its newest lap, then the lap under it or the background),
    each colour 0xRRGGBB at full intensity, scaled through `table` (256 bytes: the
    brightness level's) and stored at the byte offsets packed in `order` (2 bits
    each: red, green, blue).  Returns the channels' sum at full intensity (what
    Pixels.total adds up): at most 180 LEDs * 765, far from any word's limit."""
    p = ptr8(buf)
    t = ptr8(table)
    ro = order & 3
    go = (order >> 2) & 3
    bo = (order >> 4) & 3
    j = 3 * i
    total = 0
    c = c1
    n = n1
    for _ in range(2):  # (c1 over n1 LEDs, then c2 over n2)
        r0 = (c >> 16) & 0xFF
        g0 = (c >> 8) & 0xFF
        b0 = c & 0xFF
        r = t[r0]
        g = t[g0]
        b = t[b0]
        end = j + 3 * n
        while j < end:
            p[j + ro] = r
            p[j + go] = g
            p[j + bo] = b
            j += 3
        total += n * (r0 + g0 + b0)
        c = c2
        n = n2
    return total


@micropython.viper
def leds_remap(buf, n: int, table):
    """Each of the first n bytes of buf through a 256-byte table (Pixels.show's
    rescale of a frame over the current budget)."""
    p = ptr8(buf)
    t = ptr8(table)
    k = 0
    while k < n:
        p[k] = t[p[k]]
        k += 1


_MAXPLY = const(40)  # mancala.search._MAXPLY
_QNODES = const(8)  # mancala.search_loop._QNODES
_EXACT = const(1)
_LOWER = const(2)
_UPPER = const(3)


@micropython.viper
def run(eng, end: int) -> int:
    """search_loop.run(eng, end) (states, returns and side effects the same)."""
    move = eng._move
    path = ptr8(eng._kpaths)
    vcode = int(eng.vcode)
    kids = eng.kids
    node = eng.node
    alpha = ptr16(eng.alpha)
    beta = ptr16(eng.beta)
    oalpha = ptr16(eng.oalpha)
    best = ptr16(eng.best)
    bias = ptr16(eng.bias)
    dep = ptr8(eng.dep)
    bmove = ptr8(eng.bmove)
    cur = ptr8(eng.cur)
    cnt = ptr8(eng.cnt)
    order = ptr8(eng.order)
    same = ptr8(eng.same)
    scout = ptr8(eng.scout)
    keys = ptr8(eng.keys)
    hkey = ptr32(eng.hkey)
    ttc = ptr16(eng.ttc)
    ttd = ptr32(eng.ttd)
    z = ptr32(eng.z)
    tmask = int(eng.tmask)
    bits = int(eng.tt_bits)
    w = int(eng.w)
    ew = int(eng.ew)
    xw = int(eng.xw)
    frontier = eng.frontier
    usefr = int(eng._kfrontier)  # (viper compares no object with None)
    if xw and vcode == 0:
        usefr = 0
    quiet = int(eng._qplies)
    plain = 1
    if ew or xw:
        plain = 0
    if quiet:
        usefr = 0
    qkids = eng.qkids
    qs = eng._qstate
    qst = ptr32(qs)
    if quiet:
        qst[_QPLIES] = quiet
        qst[_QW] = w
        qst[_QEW] = int(eng.qew)
        qst[_QXW] = xw
        qst[_QOWARE] = 1 if vcode == 2 else 0
        qst[_QKALAH] = 1 if vcode == 0 else 0
    half = int(eng.half)
    limit = int(eng.limit)
    tseeds = int(eng._use_table)
    table = eng.table
    total = int(eng.rules.total)
    nodes = int(eng.nodes)
    p = int(eng._p)
    v = int(eng._ret)
    state = int(eng._state)
    cut = 1 if eng._cut else 0
    rootx = 1 if eng._rootx else 0
    fh = int(eng._fh)
    fhv = int(eng._fhv)
    first = int(eng.first_score)
    # the pits' input register (Search.step_for's watch): a level that differs from
    # the one last read ends the chunk at the next node (after one node at least, so
    # a call always makes progress); 0: no watch.  The word is read as 32 bits, the
    # mask keeps the pits' (GPIO 2..15 on a Pico): no sign, no overflow.
    waddr = int(eng._waddr)
    wmask = int(eng._wmask)
    wlevel = int(eng._wlevel)
    wreg = ptr32(waddr)
    n0 = nodes
    pending = -1
    h = 0
    i = 0
    k = 0
    pit = 0
    base = 0
    ret = -1
    while True:
        if state == 0:
            # ---- a new node at ply p: the table, then its moves in order
            if waddr:
                if nodes != n0 and (wreg[0] & wmask) != wlevel:
                    end = nodes  # a pit's level changed: the slice ends here
            if nodes >= end and pending < 0:
                state = 0
                ret = 0
                break
            pos = node[p]
            pp = ptr8(pos)
            d = dep[p]
            tm = 7
            e = 0
            if d > 1:
                h = (z[pp[0]] ^ z[80 + pp[1]] ^ z[160 + pp[2]] ^ z[240 + pp[3]]
                     ^ z[320 + pp[4]] ^ z[400 + pp[5]] ^ z[480 + pp[6]] ^ z[560 + pp[7]]
                     ^ z[640 + pp[8]] ^ z[720 + pp[9]] ^ z[800 + pp[10]] ^ z[880 + pp[11]]
                     ^ z[960 + pp[12]] ^ z[1040 + pp[13]])
                if pp[14]:
                    h ^= z[1120]
                hkey[p] = h
                i = h & tmask
                e = ttd[i]
            if e and ttc[i] == ((h >> bits) & 0xFFFF):
                tm = e >> 20
                if p and ((e >> 14) & 63) >= d:
                    s = (e & 4095) - 2048
                    f = (e >> 12) & 3
                    if f == _EXACT or (f == _LOWER and s >= ((beta[p] ^ 0x8000) - 0x8000)) or \
                            (f == _UPPER and s <= ((alpha[p] ^ 0x8000) - 0x8000)):
                        cut = 1
                        v = s
                        p -= 1
                        state = 1
                        continue
            if d <= 1 and p and usefr:
                r = 0
                if pending >= 0:
                    r = pending
                    pending = -1
                else:
                    r = int(frontier(pos, (alpha[p] ^ 0x8000) - 0x8000,
                                     (beta[p] ^ 0x8000) - 0x8000, limit - nodes, w, half, ew,
                                     xw))
                    nodes += (r >> 2) & 7
                    if r & _FR_CUT:
                        cut = 1
                v = (r >> 8) - 32768
                if not (r & _FR_STOPPED):
                    p -= 1
                    state = 1
                    continue
                sp = (r >> 5) & 7
                base = p * 6
                n = 0
                mask = pp[15]
                for q in range(sp, 6):
                    if (mask >> q) & 1:
                        order[base + n] = q
                        n += 1
                cnt[p] = n
                cur[p] = 0
                best[p] = v
                bmove[p] = sp
                if v > ((alpha[p] ^ 0x8000) - 0x8000):
                    alpha[p] = v
                oalpha[p] = alpha[p]
                state = 2
                continue
            if p == 0:
                tm = int(eng.force)
                if tm < 0:
                    tm = int(eng.best_move)
            side = pp[14]
            own0 = side * 7
            own = own0 + 6
            opp0 = 7 - own0
            mask = pp[15]
            base = p * 6
            n = 0
            for q in range(6):
                if ((mask >> q) & 1) == 0:
                    continue
                key = 0
                if q == tm:
                    key = 200
                else:
                    cn = pp[own0 + q]
                    pb = (side * 6 + q) * STRIDE
                    last = 0
                    if cn == 1 and vcode == 1:
                        last = path[pb + 1]
                    else:
                        last = path[pb + cn - 1]
                    if vcode <= 1:
                        if last == own:
                            key = 100
                        elif own0 <= last < own:
                            if pp[last] == 0 and cn < 13:
                                key = pp[12 - last] + 1
                        elif vcode == 1 and (pp[last] & 1):
                            key = pp[last] + 1
                    elif opp0 <= last < opp0 + 6 and 0 < pp[last] < 3:
                        key = pp[last] + 1
                keys[q] = key
                j = base + n
                while j > base and keys[order[j - 1]] < key:
                    order[j] = order[j - 1]
                    j -= 1
                order[j] = q
                n += 1
            cnt[p] = n
            cur[p] = 0
            best[p] = 0 - _INF
            bmove[p] = order[base]
            oalpha[p] = alpha[p]
            if p == 0:
                rootx = 1
            state = 2
            continue
        base = p * 6
        k = cur[p]
        if state == 1:
            pit = order[base + k]
            if same[p] == 0:
                v = 0 - v
        else:
            if k >= cnt[p]:
                # ---- node p is finished
                val = (best[p] ^ 0x8000) - 0x8000
                if p == 0:
                    eng._raw_best = val - ((bias[bmove[0]] ^ 0x8000) - 0x8000)
                    state = 2
                    ret = 1
                    break
                v = val
                p -= 1
                state = 1
                if dep[p + 1] <= 1:
                    continue
                f = _EXACT
                if val <= ((oalpha[p + 1] ^ 0x8000) - 0x8000):
                    f = _UPPER
                elif val >= ((beta[p + 1] ^ 0x8000) - 0x8000):
                    f = _LOWER
                h = hkey[p + 1]
                i = h & tmask
                ttc[i] = (h >> bits) & 0xFFFF
                ttd[i] = ((val + 2048) & 4095) | (f << 12) | (dep[p + 1] << 14) | \
                    (bmove[p + 1] << 20)
                continue
            # ---- play the next move of node p
            if nodes >= limit:
                state = 2
                ret = 2
                break
            if nodes >= end:
                state = 2
                ret = 0
                break
            pit = order[base + k]
            pp = ptr8(node[p])
            c = kids[p]
            cp = ptr8(c)
            for j in range(16):
                cp[j] = pp[j]
            if vcode == 0:
                # move_kalah written out (a call and two buffer lookups less a node:
                # viper cannot inline; quiesce() has the same copy, and
                # tests/test_native.py's parity goes through both)
                sd = cp[14]
                o0 = sd * 7
                cn = cp[o0 + pit]
                cp[o0 + pit] = 0
                pb = (sd * 6 + pit) * STRIDE
                for j in range(cn):
                    x = path[pb + j]
                    cp[x] = cp[x] + 1
                last = path[pb + cn - 1]
                fl = 0
                rb = o0
                if last == o0 + 6:
                    fl = _EXTRA
                else:
                    if o0 <= last < o0 + 6 and cp[last] == 1 and cp[12 - last]:
                        cp[o0 + 6] = cp[o0 + 6] + cp[12 - last] + 1
                        cp[12 - last] = 0
                        cp[last] = 0
                        fl = (_CAPTURED << last) | (_CAPTURED << (12 - last))
                    cp[14] = sd ^ 1
                    rb = 7 - o0
                m = 0
                for j in range(6):
                    if cp[rb + j]:
                        m |= 1 << j
                ro = 7 - rb
                if m == 0 or (cp[ro] | cp[ro + 1] | cp[ro + 2] | cp[ro + 3] | cp[ro + 4]
                              | cp[ro + 5]) == 0:
                    _collect_rows(cp)
                    m = 0
                    fl |= _OVER | _SWEPT
                cp[15] = m
            else:
                fl = int(move(c, pit))
            nodes += 1
            side = pp[14]
            q = p + 1
            if fl & _OVER:
                v = cp[6] - cp[13]
                if side:
                    v = 0 - v
                v *= _SCALE
            elif total - cp[6] - cp[13] <= tseeds and int(table.probe(c)) < 255:
                tv = int(table.last) - 128
                if cp[14]:
                    tv = 0 - tv
                v = cp[6] - cp[13] + tv
                if side:
                    v = 0 - v
                v *= _SCALE
            elif (fl & _EXTRA) and q + 1 < _MAXPLY:
                same[p] = 1
                a = (alpha[p] ^ 0x8000) - 0x8000
                b = (beta[p] ^ 0x8000) - 0x8000
                if p == 0:
                    a -= (bias[pit] ^ 0x8000) - 0x8000
                    b -= (bias[pit] ^ 0x8000) - 0x8000
                if k and b - a > 1:
                    b = a + 1
                    scout[p] = 1
                alpha[q] = a
                beta[q] = b
                dep[q] = dep[p]
                node[q] = c
                p = q
                state = 0
                continue
            elif dep[p] <= 1 or q + 1 >= _MAXPLY:
                cut = 1
                if quiet:
                    a = (alpha[p] ^ 0x8000) - 0x8000
                    b = (beta[p] ^ 0x8000) - 0x8000
                    if p == 0:
                        a -= (bias[pit] ^ 0x8000) - 0x8000
                        b -= (bias[pit] ^ 0x8000) - 0x8000
                    ql = limit - nodes
                    if ql > _QNODES:
                        ql = _QNODES
                    qst[_QLEFT] = ql
                    # the leaf's stand-pat value, as quiesce() begins: where it cuts
                    # (or no node is left) the call and its eight arguments are saved
                    sv = (cp[6] - cp[13]) * _SCALE
                    if w:
                        sv += (cp[0] + cp[1] + cp[2] + cp[3] + cp[4] + cp[5] - cp[7] - cp[8]
                               - cp[9] - cp[10] - cp[11] - cp[12]) * w
                    qew = qst[_QEW]
                    if xw:
                        sv = 0x7FFF  # (the export term: quiesce() values it)
                    elif qew:
                        e = 0
                        for j in range(6):
                            if cp[j] == 0:
                                e += 1
                            if cp[7 + j] == 0:
                                e -= 1
                        sv -= e * qew
                    cs = cp[14]
                    if cs:
                        sv = 0 - sv
                    sb = b  # the leaf's beta, from its side to move
                    if cs != side:
                        sb = 0 - a
                    done = 0
                    if xw == 0:
                        done = 1
                        if sv < sb and ql > 0:
                            # ... and a leaf without a capture or an extra turn to
                            # play is its stand-pat value too
                            co0 = cs * 7
                            cm = cp[15]
                            for j in range(6):
                                if ((cm >> j) & 1) == 0:
                                    continue
                                cn = cp[co0 + j]
                                last = path[(cs * 6 + j) * STRIDE + cn - 1]
                                if vcode == 2:
                                    if cn <= 11 and 7 - co0 <= last < 13 - co0 and \
                                            0 < cp[last] < 3:
                                        done = 0
                                        break
                                elif last == co0 + 6 or (cn <= 12 and co0 <= last < co0 + 6
                                                         and cp[last] == 0 and cp[12 - last]):
                                    done = 0
                                    break
                    if done:
                        v = sv
                        if cs != side:
                            v = 0 - sv
                    elif cs == side:
                        v = int(quiesce(c, a, b, 0, move, qkids, qs, path))
                    else:
                        v = 0 - int(quiesce(c, 0 - b, 0 - a, 0, move, qkids, qs, path))
                    nodes += ql - qst[_QLEFT]
                elif plain:
                    v = (cp[6] - cp[13]) * _SCALE + (cp[0] + cp[1] + cp[2] + cp[3] + cp[4]
                                                     + cp[5] - cp[7] - cp[8] - cp[9] - cp[10]
                                                     - cp[11] - cp[12]) * w
                    if side:
                        v = 0 - v
                else:
                    v = int(evaluate(c, side, w, ew, xw))
            else:
                a = (alpha[p] ^ 0x8000) - 0x8000
                b = (beta[p] ^ 0x8000) - 0x8000
                if p == 0:
                    a -= (bias[pit] ^ 0x8000) - 0x8000
                    b -= (bias[pit] ^ 0x8000) - 0x8000
                if k and b - a > 1:
                    b = a + 1
                    scout[p] = 1
                if cp[14] == side:
                    same[p] = 1
                    alpha[q] = a
                    beta[q] = b
                else:
                    same[p] = 0
                    alpha[q] = 0 - b
                    beta[q] = 0 - a
                dep[q] = dep[p] - 1
                node[q] = c
                if dep[q] == 1 and usefr and same[p] == 0 and nodes < end:
                    r = int(frontier(c, 0 - b, 0 - a, limit - nodes, w, half, ew, xw))
                    nodes += (r >> 2) & 7
                    if r & _FR_CUT:
                        cut = 1
                    if r & _FR_STOPPED:
                        pending = r
                        p = q
                        state = 0
                        continue
                    v = 32768 - (r >> 8)
                else:
                    p = q
                    state = 0
                    continue
        # ---- v: the value of move `pit` of node p, from p's side to move
        if p == 0:
            if k == 0:
                first = v
            v += (bias[pit] ^ 0x8000) - 0x8000
            fh = -1
        if scout[p]:
            scout[p] = 0
            if ((alpha[p] ^ 0x8000) - 0x8000) < v < ((beta[p] ^ 0x8000) - 0x8000):
                if p == 0:
                    fh = pit
                    fhv = v
                q = p + 1
                a = (alpha[p] ^ 0x8000) - 0x8000
                b = (beta[p] ^ 0x8000) - 0x8000
                if p == 0:
                    a -= (bias[pit] ^ 0x8000) - 0x8000
                    b -= (bias[pit] ^ 0x8000) - 0x8000
                if same[p]:
                    alpha[q] = a
                    beta[q] = b
                    dep[q] = dep[p]
                else:
                    alpha[q] = 0 - b
                    beta[q] = 0 - a
                    dep[q] = dep[p] - 1
                node[q] = kids[p]
                p = q
                state = 0
                continue
        if v > ((best[p] ^ 0x8000) - 0x8000):
            best[p] = v
            bmove[p] = pit
            if v > ((alpha[p] ^ 0x8000) - 0x8000):
                alpha[p] = v
                if v >= ((beta[p] ^ 0x8000) - 0x8000):
                    k = cnt[p] - 1
        cur[p] = k + 1
        state = 2
    eng._p = p
    eng._state = state
    eng.nodes = nodes
    eng._cut = cut != 0
    eng._rootx = rootx != 0
    eng._fh = fh
    eng._fhv = fhv
    eng.first_score = first
    return ret
