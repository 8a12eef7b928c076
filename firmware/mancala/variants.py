"""Mangala, ranok and oware (docs/RULES.en.md): the rule sets besides kalah, whose
move is mancala/rules.py's with what they all share.  Imported when get_rules() first
asks for one of them, so a board playing kalah holds none of this code (its code is
heap: .mpy modules are not frozen); rules.keep_only() drops it again.  (One module, not
three: each module takes whole 4 KiB blocks of flash in both slots, and a Pico's flash
has no more room: docs/TABLEBASE.md.)"""

from mancala.compat import const
from mancala.rules import Rules, collect_rows, row_empty, sweep_to_empty_row

# rules.py's, private here so that the hot move() reads them as constants (an imported
# name is a global lookup at every use)
_S_STORE = const(6)
_N_STORE = const(13)
_SIDE = const(14)
_MASK = const(15)
_POS_LEN = const(16)
_EXTRA = const(1)
_OVER = const(2)
_SWEPT = const(4)
_CAPTURED = const(8)


class Mangala(Rules):
    name = "mangala"
    win_threshold = 25

    def _first(self, origin):
        return origin  # the first stone goes back into the pit it came from

    def finish_if_over(self, pos):
        decided = pos[_S_STORE] >= 25 or pos[_N_STORE] >= 25
        s_empty = row_empty(pos, 0)
        n_empty = row_empty(pos, 7)
        if pos[_MASK] and not (decided or s_empty or n_empty):
            return False
        if not decided:
            sweep_to_empty_row(pos, s_empty)
        pos[_MASK] = 0
        return True

    def move(self, pos, pit):
        side = pos[_SIDE]
        own = side * 7
        origin = own + pit
        n = pos[origin]
        pos[origin] = 0
        path = self.paths[side * 6 + pit]
        if n == 1:  # a single stone moves on to the next pit
            last = path[1]
            pos[last] += 1
        else:
            for i in range(n):
                pos[path[i]] += 1
            last = path[n - 1]
        store = own + 6
        flags = 0
        if last == store:
            flags = _EXTRA
        elif own <= last < store:
            if pos[last] == 1 and pos[12 - last]:
                pos[store] += pos[12 - last] + 1
                pos[12 - last] = 0
                pos[last] = 0
                flags = (_CAPTURED << last) | (_CAPTURED << (12 - last))
        elif not pos[last] & 1:  # opponent's pit now even
            pos[store] += pos[last]
            pos[last] = 0
            flags = _CAPTURED << last
        if flags & _EXTRA:
            b = own  # row of the side to move next
        else:
            pos[_SIDE] = side ^ 1
            b = 7 - own
        if pos[_S_STORE] >= 25 or pos[_N_STORE] >= 25:
            pos[_MASK] = 0
            return flags | _OVER
        # legal_mask() and row_empty() inlined (see Kalah.move)
        m = 0
        if pos[b]:
            m = 1
        if pos[b + 1]:
            m |= 2
        if pos[b + 2]:
            m |= 4
        if pos[b + 3]:
            m |= 8
        if pos[b + 4]:
            m |= 16
        if pos[b + 5]:
            m |= 32
        if not m:  # the next mover's row is empty (if both are, the sweep moves 0)
            sweep_to_empty_row(pos, b == 0)
            pos[_MASK] = 0
            return flags | _OVER | _SWEPT
        o = 7 - b
        if not (pos[o] or pos[o + 1] or pos[o + 2] or pos[o + 3] or pos[o + 4] or pos[o + 5]):
            sweep_to_empty_row(pos, o == 0)
            pos[_MASK] = 0
            return flags | _OVER | _SWEPT
        pos[_MASK] = m
        return flags


class Ranok(Rules):
    name = "ranok"
    skips_origin = True
    win_threshold = 25

    def __init__(self, seeds=4):
        Rules.__init__(self, seeds)
        self._scratch = bytearray(_POS_LEN)

    def _sow(self, pos, side, pit):
        """Sow and capture; no end-of-game rule.  Returns the capture flags.
        (move() has it written out; this serves the legal mask's trial sowing.)"""
        own = side * 7
        origin = own + pit  # the sowing, written out (see Kalah.move)
        n = pos[origin]
        pos[origin] = 0
        path = self.paths[side * 6 + pit]
        for i in range(n):
            pos[path[i]] += 1
        last = path[n - 1]
        opp = 7 - own
        if not opp <= last < opp + 6:
            return 0
        c = pos[last]
        if c != 2 and c != 3:
            return 0
        pos[last] = 0
        flags = _CAPTURED << last
        if last > opp:
            c2 = pos[last - 1]
            if c2 == 2 or c2 == 3:
                c += c2
                pos[last - 1] = 0
                flags |= _CAPTURED << (last - 1)
        if last < opp + 5:
            c2 = pos[last + 1]
            if c2 == 2 or c2 == 3:
                c += c2
                pos[last + 1] = 0
                flags |= _CAPTURED << (last + 1)
        pos[own + 6] += c
        return flags

    def legal_mask(self, pos):
        """Non-empty pits whose move leaves the opponent at least one stone."""
        side = pos[_SIDE]
        own = side * 7
        opp = 7 - own
        # Unrolled, as this runs after every move: m gets the non-empty pits whose
        # stones stop short of the opponent's row (n < 7 - pit), reach the others.
        m = 0
        reach = 0
        n = pos[own]
        if n:
            if n < 7:
                m = 1
            else:
                reach = 1
        n = pos[own + 1]
        if n:
            if n < 6:
                m |= 2
            else:
                reach |= 2
        n = pos[own + 2]
        if n:
            if n < 5:
                m |= 4
            else:
                reach |= 4
        n = pos[own + 3]
        if n:
            if n < 4:
                m |= 8
            else:
                reach |= 8
        n = pos[own + 4]
        if n:
            if n < 3:
                m |= 16
            else:
                reach |= 16
        n = pos[own + 5]
        if n:
            if n < 2:
                m |= 32
            else:
                reach |= 32
        # Stopping short captures nothing, so it is legal iff the opponent has stones.
        if m and not (pos[opp] or pos[opp + 1] or pos[opp + 2] or pos[opp + 3]
                      or pos[opp + 4] or pos[opp + 5]):
            m = 0
        if reach:
            paths = self.paths
            for pit in range(6):
                if reach >> pit & 1:
                    n = pos[own + pit]
                    last = paths[side * 6 + pit][n - 1]
                    c = pos[last] + 1
                    if not opp <= last < opp + 6 or (n <= 12 and c != 2 and c != 3):
                        m |= 1 << pit  # stones reach the opponent, nothing is captured
                    elif n <= 12:
                        # One lap at most: the sowing put one stone in each of the
                        # opponent's pits up to `last`, so what the capture of
                        # last-1, last, last+1 leaves follows from the counts (this
                        # case is frequent, a trial sowing would cost a lot).
                        empties = last == opp or (last == opp + 1
                                                  and (pos[opp] == 1 or pos[opp] == 2))
                        if empties and last < opp + 5:
                            c = pos[last + 1]
                            empties = c == 0 or c == 2 or c == 3
                            i = last + 2
                            while empties and i < opp + 6:
                                if pos[i]:
                                    empties = False
                                i += 1
                        if not empties:
                            m |= 1 << pit
                    else:  # several laps: try it
                        t = self._scratch
                        t[:] = pos
                        self._sow(t, side, pit)
                        if not row_empty(t, opp):
                            m |= 1 << pit
        return m

    def move(self, pos, pit):
        # _sow written out (a call less per move: the engine's hot path; calls
        # with big frames are dear on the rp2 port, docs/ENGINE.md)
        side = pos[_SIDE]
        own = side * 7
        origin = own + pit
        n = pos[origin]
        pos[origin] = 0
        path = self.paths[side * 6 + pit]
        for i in range(n):
            pos[path[i]] += 1
        last = path[n - 1]
        opp = 7 - own
        flags = 0
        if opp <= last < opp + 6:
            c = pos[last]
            if c == 2 or c == 3:
                pos[last] = 0
                flags = _CAPTURED << last
                if last > opp:
                    c2 = pos[last - 1]
                    if c2 == 2 or c2 == 3:
                        c += c2
                        pos[last - 1] = 0
                        flags |= _CAPTURED << (last - 1)
                if last < opp + 5:
                    c2 = pos[last + 1]
                    if c2 == 2 or c2 == 3:
                        c += c2
                        pos[last + 1] = 0
                        flags |= _CAPTURED << (last + 1)
                pos[own + 6] += c
        pos[_SIDE] = side ^ 1
        if pos[_S_STORE] >= 25 or pos[_N_STORE] >= 25:
            pos[_MASK] = 0
            return flags | _OVER
        m = self.legal_mask(pos)
        pos[_MASK] = m
        if not m:  # the side to move cannot move: stones left count for nobody
            return flags | _OVER
        return flags


class Oware(Rules):
    name = "oware"
    skips_origin = True
    sows_stores = False

    def legal_mask(self, pos):
        side = pos[_SIDE]
        own = side * 7
        if not row_empty(pos, 7 - own):
            return Rules.legal_mask(self, pos)
        # The opponent has no stones: only moves that reach their row.
        m = 0
        for pit in range(6):
            if pos[own + pit] > 5 - pit:
                m |= 1 << pit
        return m

    def __init__(self, seeds=4):
        Rules.__init__(self, seeds)
        self.half = self.total // 2

    def move(self, pos, pit):
        # the sowing and the legal mask are written out (see Kalah.move)
        side = pos[_SIDE]
        own = side * 7
        origin = own + pit
        n = pos[origin]
        pos[origin] = 0
        path = self.paths[side * 6 + pit]
        for i in range(n):
            pos[path[i]] += 1
        last = path[n - 1]
        opp = 7 - own
        flags = 0
        if opp <= last < opp + 6:
            # The chain of 2s and 3s ending at the last pit, going backwards.
            low = last
            got = 0
            while low >= opp:
                c = pos[low]
                if c != 2 and c != 3:
                    break
                got += c
                low -= 1
            if got:
                grand_slam = low < opp
                i = last + 1
                while grand_slam and i < opp + 6:
                    if pos[i]:
                        grand_slam = False
                    i += 1
                if not grand_slam:  # taking every stone of the opponent captures nothing
                    for i in range(low + 1, last + 1):
                        pos[i] = 0
                        flags |= _CAPTURED << i
                    pos[own + 6] += got
        pos[_SIDE] = side ^ 1
        # The next mover's (row opp) legal pits: its non-empty ones while the
        # mover (row own) has stones, else only those that reach the mover's row.
        m = 0
        if pos[own] or pos[own + 1] or pos[own + 2] or pos[own + 3] or pos[own + 4] or pos[own + 5]:
            if pos[opp]:
                m = 1
            if pos[opp + 1]:
                m |= 2
            if pos[opp + 2]:
                m |= 4
            if pos[opp + 3]:
                m |= 8
            if pos[opp + 4]:
                m |= 16
            if pos[opp + 5]:
                m |= 32
        else:
            for k in range(6):
                if pos[opp + k] > 5 - k:
                    m |= 1 << k
        s = pos[_S_STORE]
        t = pos[_N_STORE]
        half = self.half
        if not m or s > half or t > half or (s == half and t == half):
            collect_rows(pos)
            pos[_MASK] = 0
            return flags | _OVER | _SWEPT
        pos[_MASK] = m
        return flags

    def finish_if_over(self, pos):
        half = self.half
        s, t = pos[_S_STORE], pos[_N_STORE]
        if pos[_MASK] and not (s > half or t > half or (s == half and t == half)):
            return False
        collect_rows(pos)
        pos[_MASK] = 0
        return True
