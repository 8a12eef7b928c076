"""The search loop in bytecode: Search's alpha-beta over its explicit stack, a slice
at a time, the quiescence at its horizon (mancala.search has the design), and what a
position is worth at its leaves: the static evaluation and the frontiers (their weights:
mancala.search).

`run(eng, end)` advances the search of `eng` (a mancala.engine.Engine) to `end`
nodes; mancala.native.run is the same loop in machine code, node for node.  This is
the reference, and it runs where the kernels do not (CPython, the WebAssembly VM, a
port without a native emitter, an evaluation with a threat term): Search imports
this module only there, so a board running the kernels keeps its code off the heap.
The evaluation: `evaluate` scores a leaf; the frontiers (kalah, oware) value all the
children of a depth-1 node from the parent's counts without making them.  Both take the
same weights per variant and give the same values as mancala.native's; pure functions,
nothing allocated per call.
"""

from mancala.compat import const
from mancala.rules import EXTRA, MASK, OVER, POPCOUNT, SIDE

# (MicroPython folds a const() only in the module that defines it, and a private one
# costs no room: copies of mancala.search's)
_SCALE = const(4)  # score units per stone (search.SCALE)
_INF = const(30000)  # (search.INF)
_MAXPLY = const(40)  # deepest ply of the stack (search._MAXPLY)
# The nodes one leaf's quiescence may make (it runs at once, not in slices): 98.6%
# of Master's kalah leaves need at most 8, the most seen was 38 (35 ms of a Pico).
_QNODES = const(8)

_EXACT = const(1)  # the transposition table's bounds
_LOWER = const(2)
_UPPER = const(3)


# -- what a position is worth, in bytecode (the weights: mancala/search.py; the same
# functions in viper: mancala/native.py) ------------------------------------------------

def evaluate(pos, side, w, tw, paths, ew=0, xw=0):
    """Static value of `pos` for `side` in quarter stones (any side to move).

    Store difference, plus `w` per stone of one's own row, plus `ew` per empty pit
    of the opponent's row minus per empty pit of one's own, minus `xw` per stone of
    one's row that its pit's move would sow into the opponent's row (a stone beyond
    5 - pit: in oware it feeds the opponent), plus `tw` per stone of the best capture
    the side to move could make at once (kalah's capture rule, for kalah and
    mangala: a one-ply look at the threat the horizon would otherwise hide; off,
    docs/ENGINE.md).  The frontiers
    take the same weights and give the same values without making the child."""
    a = pos[0] + pos[1] + pos[2] + pos[3] + pos[4] + pos[5]
    b = pos[7] + pos[8] + pos[9] + pos[10] + pos[11] + pos[12]
    v = (pos[6] - pos[13]) * _SCALE + (a - b) * w
    if ew:
        e = 0
        for i in range(6):
            if not pos[i]:
                e += 1
            if not pos[7 + i]:
                e -= 1
        v -= e * ew
    if xw:
        e = 0
        for i in range(6):
            if pos[i] > 5 - i:
                e += pos[i] - 5 + i
            if pos[7 + i] > 5 - i:
                e -= pos[7 + i] - 5 + i
        v -= e * xw
    if side:
        v = -v
    if tw:
        stm = pos[SIDE]
        own0 = stm * 7
        best = 0
        for pit in range(6):
            c = pos[own0 + pit]
            if c and c < 13:
                last = paths[stm * 6 + pit][c - 1]
                if own0 <= last < own0 + 6 and not pos[last]:
                    g = pos[12 - last]
                    if g > best:
                        best = g
        if best:
            best += 1
            v += best * tw if stm == side else -best * tw
    return v


# -- the frontier -----------------------------------------------------------------
# At a node of depth 1 every child is a leaf, and a leaf's value (store difference
# plus row weight, or the final difference when the game ends) follows from the
# parent's stores and row sums and from where the move's stones fall: for fewer
# stones than a lap, a sowing from a pit is a fixed run of own pits, the store,
# the opponent's pits, own pits again.  So the frontier values its children
# without copying and sowing them, about 4x cheaper per child in MicroPython.  A
# child it cannot value that way (an extra turn, a lap, a row left empty that the
# opponent must feed) stops it; the search makes the rest of the children as usual.
# Each child valued counts as one node, as one made would.
#
# The result is packed in one small int (no tuple allocated per node):
# (best + 32768) << 8 | stop pit << 5 | children valued << 2 | stopped << 1 | cut,
# where "cut" says a leaf was scored by the evaluation (the depth limit mattered).

FR_CUT = const(1)
FR_STOPPED = const(2)


def frontier_kalah(pos, alpha, beta, left, w, half, ew, xw):
    """Kalah: the best child value of `pos` for its side to move (packed, above)."""
    side = pos[14]
    own0 = side * 7
    opp0 = 7 - own0
    a = pos[own0] + pos[own0 + 1] + pos[own0 + 2] + pos[own0 + 3] + pos[own0 + 4] \
        + pos[own0 + 5]
    b = pos[opp0] + pos[opp0 + 1] + pos[opp0 + 2] + pos[opp0 + 3] + pos[opp0 + 4] \
        + pos[opp0 + 5]
    s = pos[own0 + 6]
    t = pos[opp0 + 6]
    eo = ep = 0  # empty pits of each row, as bit masks
    if ew:
        for i in range(6):
            if not pos[own0 + i]:
                eo |= 1 << i
            if not pos[opp0 + i]:
                ep |= 1 << i
    mask = pos[15]
    bv = -_INF
    used = 0
    cut = 0
    for pit in range(6):
        if not mask >> pit & 1:
            continue
        n = pos[own0 + pit]
        r = 5 - pit  # stones before the store
        if n == r + 1 or n > 12 or used >= left:  # extra turn, a lap, the node limit
            return ((bv + 32768) << 8) | (pit << 5) | (used << 2) | FR_STOPPED | cut
        used += 1
        taken = 0  # own pit | the opponent's pit << 6 emptied by a capture (bit masks)
        if n <= r:  # within the own row
            s2 = s
            a2 = a
            b2 = b
            sown = ((1 << n) - 1) << (pit + 1)  # own pits that get a stone
            filled = 0  # ... and the opponent's
            last = own0 + pit + n
            if not pos[last] and pos[12 - last]:  # lands in an empty pit: capture
                g = pos[12 - last]
                s2 = s + g + 1
                a2 = a - 1
                b2 = b - g
                taken = (1 << (pit + n)) | (1 << (11 - pit - n))
        else:
            k = n - r - 1  # stones past the store
            s2 = s + 1
            sown = ((1 << r) - 1) << (pit + 1)
            if k <= 6:
                filled = (1 << k) - 1
                a2 = a - n + r
                b2 = b + k
            else:  # round into the own row again, up to the pit before the origin
                filled = 63
                sown |= (1 << (k - 6)) - 1
                a2 = a - n + r + k - 6
                b2 = b + 6
                last = own0 + k - 7
                if not pos[last]:  # empty before: capture (its opposite was sown)
                    g = pos[12 - last] + 1
                    s2 += g + 1
                    a2 -= 1
                    b2 -= g
                    taken = (1 << (k - 7)) | (1 << (18 - k))
        if a2 and b2:
            v = (s2 - t) * _SCALE + (a2 - b2) * w
            if ew:  # empty pits after the move: theirs count for us
                v += (POPCOUNT[(ep & ~filled) | taken >> 6]
                      - POPCOUNT[(eo & ~sown) | (1 << pit) | (taken & 63)]) * ew
            cut = FR_CUT
        else:  # a row is empty: each side takes its own row
            v = (s2 + a2 - t - b2) * _SCALE
        if v > bv:
            bv = v
            if v > alpha:
                alpha = v
                if v >= beta:
                    break
    return ((bv + 32768) << 8) | (7 << 5) | (used << 2) | cut


def frontier_oware(pos, alpha, beta, left, w, half, ew, xw):
    """Oware: the best child value of `pos` for its side to move (packed, above)."""
    # (The opening lines repeat frontier_kalah's: a shared helper would hand back
    # a tuple, an allocation per node.)
    side = pos[14]
    own0 = side * 7
    opp0 = 7 - own0
    a = pos[own0] + pos[own0 + 1] + pos[own0 + 2] + pos[own0 + 3] + pos[own0 + 4] \
        + pos[own0 + 5]
    b = pos[opp0] + pos[opp0 + 1] + pos[opp0 + 2] + pos[opp0 + 3] + pos[opp0 + 4] \
        + pos[opp0 + 5]
    s = pos[own0 + 6]
    t = pos[opp0 + 6]
    eo = ep = 0  # empty pits of each row, as bit masks
    if ew:
        for i in range(6):
            if not pos[own0 + i]:
                eo |= 1 << i
            if not pos[opp0 + i]:
                ep |= 1 << i
    xo = xp = go = gp = 0  # stones each row would export; pits one more stone adds to
    if xw:
        for i in range(6):
            c = pos[own0 + i] + i - 5
            if c >= 0:
                xo += c
                go |= 1 << i
            c = pos[opp0 + i] + i - 5
            if c >= 0:
                xp += c
                gp |= 1 << i
    mask = pos[15]
    bv = -_INF
    used = 0
    cut = 0
    for pit in range(6):
        if not mask >> pit & 1:
            continue
        n = pos[own0 + pit]
        r = 5 - pit  # stones that stay in the own row
        if n > 11 or used >= left:  # a lap (skips the origin), the node limit
            return ((bv + 32768) << 8) | (pit << 5) | (used << 2) | FR_STOPPED | cut
        s2 = s
        xc = 0  # export of the opponent's pits captured
        if n <= r:
            a2 = a
            b2 = b
            sown = ((1 << n) - 1) << (pit + 1)  # own pits that get a stone
            filled = 0  # ... and the opponent's
            taken = 0  # the opponent's pits captured
        else:
            k = n - r  # stones into the opponent's row
            sown = ((1 << r) - 1) << (pit + 1)
            taken = 0
            if k <= 6:
                filled = (1 << k) - 1
                a2 = a - n + r
                b2 = b + k
                # the chain of 1s and 2s (2s and 3s once sown) ending at the last pit
                last = opp0 + k - 1
                g = 0
                j = last
                while j >= opp0 and 0 < pos[j] < 3:
                    g += pos[j] + 1
                    if pos[j] + j - opp0 > 4:  # it exported once sown
                        xc += pos[j] + j - opp0 - 4
                    j -= 1
                if g:
                    # the pits taken: after j up to the last (bit masks of the row)
                    taken = filled & ~((1 << (j - opp0 + 1)) - 1) if j >= opp0 else filled
                    if j < opp0:  # from the first pit: a grand slam unless stones lie beyond
                        j = last + 1
                        while j < opp0 + 6 and not pos[j]:
                            j += 1
                        if j == opp0 + 6:
                            g = 0  # taking every stone of the opponent captures nothing
                            taken = 0
                            xc = 0
                    s2 = s + g
                    b2 -= g
            else:  # round into the own row again
                filled = 63
                sown |= (1 << (k - 6)) - 1
                a2 = a - n + r + k - 6
                b2 = b + 6
        if not b2 or s2 > half or (s2 == half and t == half):
            v = (s2 + a2 - t - b2) * _SCALE  # over: each side takes its own row
        elif not a2:  # the opponent must feed us: a real move decides
            return ((bv + 32768) << 8) | (pit << 5) | (used << 2) | FR_STOPPED | cut
        else:
            v = (s2 - t) * _SCALE + (a2 - b2) * w
            if ew:  # empty pits after the move: theirs count for us
                v += (POPCOUNT[(ep & ~filled) | taken]
                      - POPCOUNT[(eo & ~sown) | (1 << pit)]) * ew
            if xw:  # exporting stones after the move: theirs count for us
                v += (xp + POPCOUNT[filled & gp] - xc - xo - POPCOUNT[sown & go]
                      + (n - r if n > r else 0)) * xw
            cut = FR_CUT
        used += 1
        if v > bv:
            bv = v
            if v > alpha:
                alpha = v
                if v >= beta:
                    break
    return ((bv + 32768) << 8) | (7 << 5) | (used << 2) | cut


FRONTIERS = {"kalah": frontier_kalah, "oware": frontier_oware}


def run(eng, end):
    """Advance the search.  0: `end` nodes reached (resumable), 1: the iteration
    finished, 2: the node limit was hit (the search is over).

    States: 0 enter node p (table, order its moves); 1 the child at cur[p]
    returned v (from its own side to move's view); 2 play the next move of
    node p.  Children are made one at a time, so a cutoff saves the rest.
    """
    move = eng._move  # (a bound method made once: `eng.rules.move` here
    # would make one at every call, 16 bytes of garbage a slice)
    paths = eng.rules.paths
    vcode = eng.vcode
    kids = eng.kids
    node = eng.node
    alpha = eng.alpha
    beta = eng.beta
    best = eng.best
    dep = eng.dep
    bmove = eng.bmove
    cur = eng.cur
    cnt = eng.cnt
    order = eng.order
    same = eng.same
    scout = eng.scout
    keys = eng.keys
    bias = eng.bias
    ttc = eng.ttc
    ttd = eng.ttd
    tmask = eng.tmask
    bits = eng.tt_bits
    z = eng.z
    w = eng.w
    tw = eng.tw
    ew = eng.ew
    xw = eng.xw
    static = evaluate
    frontier = eng.frontier
    if tw or (xw and vcode == 0):  # weights kalah's frontier cannot value
        frontier = None
    quiet = eng._qplies
    plain = not (tw or ew or xw)  # the evaluation is stores and rows only
    if quiet:  # leaves are searched on (quiescence): the frontier cannot
        frontier = None
    half = eng.half
    limit = eng.limit
    tseeds = eng._use_table
    table = eng.table
    total = eng.rules.total
    nodes = eng.nodes
    p = eng._p
    v = eng._ret
    state = eng._state
    pending = -1  # a frontier result for the node being entered
    while True:
        if state == 0:
            # ---- a new node at ply p: the table, then its moves in order
            if nodes >= end and pending < 0:
                eng._p = p
                eng._state = 0
                eng.nodes = nodes
                return 0
            pos = node[p]
            d = dep[p]
            tm = 7
            e = 0
            if d > 1:  # frontier nodes do without the table (cheaper than hashing)
                # (the Zobrist key of _hash, written out: a call less per node)
                h = z[pos[0]] ^ z[80 + pos[1]] ^ z[160 + pos[2]] ^ z[240 + pos[3]] \
                    ^ z[320 + pos[4]] ^ z[400 + pos[5]] ^ z[480 + pos[6]] \
                    ^ z[560 + pos[7]] ^ z[640 + pos[8]] ^ z[720 + pos[9]] \
                    ^ z[800 + pos[10]] ^ z[880 + pos[11]] ^ z[960 + pos[12]] \
                    ^ z[1040 + pos[13]]
                if pos[SIDE]:
                    h ^= z[1120]
                eng.hkey[p] = h
                i = h & tmask
                e = ttd[i]
            if e and ttc[i] == (h >> bits) & 0xFFFF:
                tm = e >> 20
                if p and (e >> 14) & 63 >= d:
                    s = (e & 4095) - 2048
                    f = (e >> 12) & 3
                    if f == _EXACT or (f == _LOWER and s >= beta[p]) or \
                            (f == _UPPER and s <= alpha[p]):
                        eng._cut = True
                        v = s
                        p -= 1
                        state = 1
                        continue
            if d <= 1 and p and frontier is not None:
                if pending >= 0:  # valued up to a stop by the parent
                    r = pending
                    pending = -1
                else:
                    r = frontier(pos, alpha[p], beta[p], limit - nodes, w, half, ew, xw)
                    nodes += (r >> 2) & 7
                    if r & FR_CUT:
                        eng._cut = True
                v = (r >> 8) - 32768
                if not r & FR_STOPPED:
                    p -= 1
                    state = 1
                    continue
                # a child it could not value: make the rest, from that pit on
                sp = (r >> 5) & 7
                base = p * 6
                n = 0
                mask = pos[MASK]
                for pit in range(sp, 6):
                    if mask >> pit & 1:
                        order[base + n] = pit
                        n += 1
                cnt[p] = n
                cur[p] = 0
                best[p] = v
                bmove[p] = sp
                if v > alpha[p]:
                    alpha[p] = v
                eng.oalpha[p] = alpha[p]
                state = 2
                continue
            if p == 0:
                tm = eng.force
                if tm < 0:
                    tm = eng.best_move
            side = pos[SIDE]
            own0 = side * 7
            own = own0 + 6
            opp0 = 7 - own0
            mask = pos[MASK]
            base = p * 6
            n = 0
            for pit in range(6):
                if not mask >> pit & 1:
                    continue
                # a guess at the move's worth without playing it: where the
                # last stone lands (extra turn, capture)
                if pit == tm:
                    key = 200
                else:
                    cn = pos[own0 + pit]
                    path = paths[side * 6 + pit]
                    last = path[1] if cn == 1 and vcode == 1 else path[cn - 1]
                    key = 0
                    if vcode <= 1:
                        if last == own:
                            key = 100
                        elif own0 <= last < own:
                            if not pos[last] and cn < 13:
                                key = pos[12 - last] + 1
                        elif vcode == 1 and pos[last] & 1:
                            key = pos[last] + 1
                    elif opp0 <= last < opp0 + 6 and 0 < pos[last] < 3:
                        key = pos[last] + 1
                keys[pit] = key
                j = base + n
                while j > base and keys[order[j - 1]] < key:
                    order[j] = order[j - 1]
                    j -= 1
                order[j] = pit
                n += 1
            cnt[p] = n
            cur[p] = 0
            best[p] = -_INF
            bmove[p] = order[base]
            eng.oalpha[p] = alpha[p]
            if p == 0:
                eng._rootx = True
            state = 2
            continue
        base = p * 6
        k = cur[p]
        if state == 1:
            pit = order[base + k]
            if not same[p]:
                v = -v
        else:
            if k >= cnt[p]:
                # ---- node p is finished
                val = best[p]
                if p == 0:
                    eng._raw_best = val - bias[bmove[0]]
                    eng.nodes = nodes
                    eng._state = 2
                    return 1
                v = val
                p -= 1
                state = 1
                if dep[p + 1] <= 1:
                    continue
                if val <= eng.oalpha[p + 1]:
                    f = _UPPER
                elif val >= beta[p + 1]:
                    f = _LOWER
                else:
                    f = _EXACT
                h = eng.hkey[p + 1]
                i = h & tmask
                ttc[i] = (h >> bits) & 0xFFFF
                ttd[i] = ((val + 2048) & 4095) | (f << 12) | (dep[p + 1] << 14) | \
                    (bmove[p + 1] << 20)
                continue
            # ---- play the next move of node p
            if nodes >= limit:
                eng._p = p
                eng._state = 2
                eng.nodes = nodes
                return 2
            if nodes >= end:  # the slice is used up (a depth-1 node's leaves, the
                eng._p = p  # levels of an extra-turn chain: no longer all at once)
                eng._state = 2
                eng.nodes = nodes
                return 0
            pit = order[base + k]
            pos = node[p]
            c = kids[p]
            c[:] = pos
            fl = move(c, pit)
            nodes += 1
            side = pos[SIDE]
            q = p + 1
            if fl & OVER:
                v = c[6] - c[13]
                if side:
                    v = -v
                v *= _SCALE
            elif total - c[6] - c[13] <= tseeds and table.probe(c) < 255:
                # an endgame in the table: its exact final difference
                tv = table.last - 128
                v = c[6] - c[13] + (-tv if c[SIDE] else tv)
                if side:
                    v = -v
                v *= _SCALE
            elif fl & EXTRA and q + 1 < _MAXPLY:
                # the same side moves again: same window, no depth used
                same[p] = 1
                a = alpha[p]
                b = beta[p]
                if p == 0:
                    a -= bias[pit]
                    b -= bias[pit]
                if k and b - a > 1:  # after the first move: a null window
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
                eng._cut = True
                if quiet:
                    a = alpha[p]
                    b = beta[p]
                    if p == 0:
                        a -= bias[pit]
                        b -= bias[pit]
                    ql = limit - nodes
                    if ql > _QNODES:  # a leaf's quiescence makes at most _QNODES:
                        ql = _QNODES  # a slice ends at most that late
                    eng._qleft = ql
                    if c[SIDE] == side:
                        v = quiesce(eng, c, a, b, 0)
                    else:
                        v = -quiesce(eng, c, -b, -a, 0)
                    nodes += ql - eng._qleft
                elif plain:  # evaluate() written out (mangala, ranok): a call less
                    v = (c[6] - c[13]) * _SCALE + (c[0] + c[1] + c[2] + c[3] + c[4] + c[5]
                                                  - c[7] - c[8] - c[9] - c[10] - c[11]
                                                  - c[12]) * w
                    if side:
                        v = -v
                else:
                    v = static(c, side, w, tw, paths, ew, xw)
            else:
                a = alpha[p]
                b = beta[p]
                if p == 0:
                    a -= bias[pit]
                    b -= bias[pit]
                if k and b - a > 1:  # after the first move: a null window
                    b = a + 1
                    scout[p] = 1
                if c[SIDE] == side:
                    same[p] = 1
                    alpha[q] = a
                    beta[q] = b
                else:
                    same[p] = 0
                    alpha[q] = -b
                    beta[q] = -a
                dep[q] = dep[p] - 1
                node[q] = c
                if dep[q] == 1 and frontier is not None and not same[p] and nodes < end:
                    # the child is a frontier node: value it here, no push
                    # (unless the slice is used up: then it is entered, and
                    # the slice ends there)
                    r = frontier(c, -b, -a, limit - nodes, w, half, ew, xw)
                    nodes += (r >> 2) & 7
                    if r & FR_CUT:
                        eng._cut = True
                    if r & FR_STOPPED:  # enter it; it goes on from the stop
                        pending = r
                        p = q
                        state = 0
                        continue
                    v = 32768 - (r >> 8)  # negated: node p's view
                else:
                    p = q
                    state = 0
                    continue
        # ---- v: the value of move `pit` of node p, from p's side to move
        if p == 0:
            if k == 0:
                eng.first_score = v
            v += bias[pit]
            eng._fh = -1
        if scout[p]:
            scout[p] = 0
            if alpha[p] < v < beta[p]:
                # the null window failed high inside (alpha, beta): this move
                # may be the best, search it again with the full window
                if p == 0:
                    eng._fh = pit
                    eng._fhv = v
                q = p + 1
                a = alpha[p]
                b = beta[p]
                if p == 0:
                    a -= bias[pit]
                    b -= bias[pit]
                if same[p]:
                    alpha[q] = a
                    beta[q] = b
                    dep[q] = dep[p]
                else:
                    alpha[q] = -b
                    beta[q] = -a
                    dep[q] = dep[p] - 1
                node[q] = kids[p]
                p = q
                state = 0
                continue
        if v > best[p]:
            best[p] = v
            bmove[p] = pit
            if v > alpha[p]:
                alpha[p] = v
                if v >= beta[p]:
                    k = cnt[p] - 1  # cutoff
        cur[p] = k + 1
        state = 2


def quiesce(eng, pos, alpha, beta, qp):
    """The value of leaf `pos` for its side to move: its static value (stand
    pat), or better by one of its captures or extra turns, searched the same
    way up to `qdepth` plies on (fail-soft alpha-beta).  Each child made is a
    node, taken from `_qleft` (the node limit stays exact).  Buffers: qkids."""
    side = pos[SIDE]
    # evaluate(pos, side, ...) written out (a call less per leaf; no threat term:
    # the quiescence plays the captures themselves), each term only if weighed
    v = (pos[6] - pos[13]) * _SCALE
    w = eng.w
    if w:
        v += (pos[0] + pos[1] + pos[2] + pos[3] + pos[4] + pos[5] - pos[7] - pos[8]
              - pos[9] - pos[10] - pos[11] - pos[12]) * w
    ew = eng.qew
    xw = eng.xw
    if xw:
        e = 0
        x = 0
        for i in range(6):
            if not pos[i]:
                e += 1
            if not pos[7 + i]:
                e -= 1
            if pos[i] > 5 - i:
                x += pos[i] - 5 + i
            if pos[7 + i] > 5 - i:
                x -= pos[7 + i] - 5 + i
        v -= e * ew + x * xw
    elif ew:  # (a sum of truth values: no loop)
        v -= ((not pos[0]) + (not pos[1]) + (not pos[2]) + (not pos[3]) + (not pos[4])
              + (not pos[5]) - (not pos[7]) - (not pos[8]) - (not pos[9])
              - (not pos[10]) - (not pos[11]) - (not pos[12])) * ew
    if side:
        v = -v
    if v >= beta or qp >= eng._qplies or eng._qleft <= 0:
        return v
    if v > alpha:
        alpha = v
    bv = v
    own0 = side * 7
    own = own0 + 6
    opp0 = 7 - own0
    paths = eng.rules.paths
    oware = eng.vcode == 2
    mask = pos[MASK]
    c = eng.qkids[qp]
    move = eng._move
    for pit in range(6):
        if not mask >> pit & 1:
            continue
        cn = pos[own0 + pit]
        last = paths[side * 6 + pit][cn - 1]
        if oware:
            if cn > 11 or not (opp0 <= last < opp0 + 6 and 0 < pos[last] < 3):
                continue
        elif last == own:
            pass  # an extra turn: the same side plays on
        elif cn > 12 or not own0 <= last < own or pos[last] or not pos[12 - last]:
            continue
        if eng._qleft <= 0:
            break
        eng._qleft -= 1
        c[:] = pos
        fl = move(c, pit)
        if fl & OVER:
            x = c[6] - c[13]
            if side:
                x = -x
            x *= _SCALE
        elif c[SIDE] == side:
            x = quiesce(eng, c, alpha, beta, qp + 1)
        else:
            x = -quiesce(eng, c, -beta, -alpha, qp + 1)
        if x > bv:
            bv = x
            if x > alpha:
                alpha = x
                if x >= beta:
                    break
    return bv
