"""The search loop in bytecode: Search's alpha-beta over its explicit stack, a slice
at a time, and the quiescence at its horizon (mancala.search has the design).

`run(eng, end)` advances the search of `eng` (a mancala.engine.Engine) to `end`
nodes; mancala.native.run is the same loop in machine code, node for node.  This is
the reference, and it runs where the kernels do not (CPython, the WebAssembly VM, a
port without a native emitter, an evaluation with a threat term): Search imports
this module only there, so a board running the kernels keeps its code off the heap.
"""

from mancala.compat import const
from mancala.evaluation import evaluate
from mancala.rules import EXTRA, MASK, OVER, SIDE

# (MicroPython folds a const() only in the module that defines it, and a private one
# costs no room: copies of mancala.search's and mancala.evaluation's)
_SCALE = const(4)  # score units per stone (evaluation.SCALE)
_INF = const(30000)  # (evaluation.INF)
_FR_CUT = const(1)  # the frontier's packed result (evaluation.FR_CUT, FR_STOPPED)
_FR_STOPPED = const(2)
_MAXPLY = const(40)  # deepest ply of the stack (search._MAXPLY)
# The nodes one leaf's quiescence may make (it runs at once, not in slices): 98.6%
# of Master's kalah leaves need at most 8, the most seen was 38 (35 ms of a Pico).
_QNODES = const(8)

_EXACT = const(1)  # the transposition table's bounds
_LOWER = const(2)
_UPPER = const(3)


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
                    if r & _FR_CUT:
                        eng._cut = True
                v = (r >> 8) - 32768
                if not r & _FR_STOPPED:
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
                    if r & _FR_CUT:
                        eng._cut = True
                    if r & _FR_STOPPED:  # enter it; it goes on from the stop
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
