"""Machine-code kernels of the engine's hot path (`@micropython.viper`).

The same functions as the bytecode ones, move for move and bit for bit: each
variant's sowing (`Rules.move`), ranok's legal mask, and the frontiers
(`frontier_kalah`, `frontier_oware` of mancala.engine).  The engine takes them
where this module imports (a port with a native emitter: rp2 armv6m, ESP32
xtensawin, the Pico 2's armv7emsp, the unix port's x64) and keeps the bytecode
ones everywhere else: CPython has no `micropython`, the WebAssembly VM rejects
native code when it compiles this file, so the import fails and
`mancala.engine` catches it.  The bytecode functions stay the reference: tests
run both in the unix port over positions of real play (tests/test_native.py).

On a board this file must be compiled for its CPU: host_tools/deploy.py gives
mpy-cross the `-march` the board reports (sys.implementation._mpy >> 10).

Viper ints are machine words (32 bits on the chips, 64 in the unix port), not
Python's 31-bit small ints: nothing here overflows, every value is a count of
stones (< 256, a byte), a bit mask (< 2**14) or a packed frontier result
(< 2**24).  What crosses back into Python (a move's flags, a frontier's packed
result) is below 2**30, so it stays a small int on every port.

Sowing paths: one flat buffer per variant, STRIDE bytes per (side, pit); the
paths of kalah3..kalah6 are prefixes of the same cycle, so kalah6's serve all.
"""

import micropython
from micropython import const

from mancala.rules import POPCOUNT, Kalah, Mangala, Oware, Ranok

STRIDE = const(73)  # stones a path holds: kalah6's 72 seeds + 1

_EXTRA = const(1)
_OVER = const(2)
_SWEPT = const(4)
_CAPTURED = const(8)
_SCALE = const(4)
_INF = const(30000)
_FR_CUT = const(1)
_FR_STOPPED = const(2)


def _flat_paths(rules):
    out = bytearray(12 * STRIDE)
    for k in range(12):
        p = rules.paths[k]
        out[k * STRIDE:k * STRIDE + len(p)] = p
    return out


_KP = _flat_paths(Kalah(6))
_MP = _flat_paths(Mangala(4))
_RP = _flat_paths(Ranok(4))
_OP = _flat_paths(Oware(4))
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
    flat = {"kalah": _KP, "mangala": _MP, "ranok": _RP, "oware": _OP}[rules.name]
    for k in range(12):
        p = rules.paths[k]
        if flat[k * STRIDE:k * STRIDE + len(p)] != p:
            return None
    return fn


# -- the frontiers (mancala.engine.frontier_kalah / frontier_oware, same packing) --

@micropython.viper
def frontier_kalah(pos, alpha: int, beta: int, left: int, w: int, half: int, ew: int,
                   xw: int) -> int:
    """mancala.engine.frontier_kalah in machine code."""
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
    """mancala.engine.frontier_oware in machine code."""
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
