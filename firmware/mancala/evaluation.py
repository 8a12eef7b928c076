"""What a position is worth to the search: the static evaluation and the frontier.

`evaluate` scores a leaf; the frontiers (kalah, oware) value all the children of a
depth-1 node from the parent's counts without making them.  Both take the same
weights per variant (the tables below) and give the same values.  Scores are in
quarter stones (SCALE); the search (mancala.search) and the machine-code kernels
(mancala.native, the same functions in viper) use them.  Pure functions: no state,
nothing allocated per call.
"""

from mancala.compat import const
from mancala.rules import POPCOUNT, SIDE

SCALE = const(4)  # score units per stone
INF = const(30000)

# Evaluation: stones of the side to move's own row, in quarter stones, per variant.
# In kalah and mangala the row is likely to end up in its owner's store (sweeps);
# docs/ENGINE.md has the match that decided each weight.
ROW_WEIGHT = {"kalah": 0, "mangala": 1, "oware": 1, "ranok": 1}
# ... and per stone of the side to move's best capture at once (kalah, mangala).
THREAT_WEIGHT = {"kalah": 0, "mangala": 0, "oware": 0, "ranok": 0}
# ... and per empty pit of the opponent's row, minus per empty pit of one's own.
EMPTY_WEIGHT = {"kalah": 5, "oware": 5}
# ... and per stone of one's own row that its pit's move would sow into the
# opponent's row, against (oware: such stones feed the opponent).
EXPORT_WEIGHT = {"oware": 1}
# ... and at the leaves of a search with quiescence (Master's: they are quiet, the
# side to move's captures and extra turns played out), if not EMPTY_WEIGHT.  (Kalah 6
# won 53.8% engine against engine but not against MCTS-20000: docs/ENGINE.md.)
QUIESCE_EMPTY_WEIGHT = {}  # type: dict


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
    v = (pos[6] - pos[13]) * SCALE + (a - b) * w
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
    bv = -INF
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
            v = (s2 - t) * SCALE + (a2 - b2) * w
            if ew:  # empty pits after the move: theirs count for us
                v += (POPCOUNT[(ep & ~filled) | taken >> 6]
                      - POPCOUNT[(eo & ~sown) | (1 << pit) | (taken & 63)]) * ew
            cut = FR_CUT
        else:  # a row is empty: each side takes its own row
            v = (s2 + a2 - t - b2) * SCALE
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
    bv = -INF
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
            v = (s2 + a2 - t - b2) * SCALE  # over: each side takes its own row
        elif not a2:  # the opponent must feed us: a real move decides
            return ((bv + 32768) << 8) | (pit << 5) | (used << 2) | FR_STOPPED | cut
        else:
            v = (s2 - t) * SCALE + (a2 - b2) * w
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
