"""A plain implementation of the four rule sets, written straight from RULES.md.

Deliberately naive: a position is a list of 14 counts plus the side to move, every
move returns a new list, sowing walks the board with modular arithmetic.  It is the
baseline the fast core is benchmarked against and a second, independent oracle for
the tests (OpenSpiel covers only kalah and oware).  MicroPython-compatible, so the
benchmark can run it in the MicroPython VM too.
"""


class ReferenceRules:
    def __init__(self, variant, seeds=4):
        self.variant = variant
        self.seeds = seeds
        self.total = 12 * seeds

    def start(self, side=0):
        b = [self.seeds] * 14
        b[6] = 0
        b[13] = 0
        return b + [side]

    # A position is [c0..c13, side].

    def _next(self, i, side, origin):
        while True:
            i = (i + 1) % 14
            if i == 13 - 7 * side:  # the opponent's store
                continue
            if self.variant == "oware" and i == 6 + 7 * side:  # oware: no stores at all
                continue
            if self.variant in ("ranok", "oware") and i == origin:
                continue
            return i

    def _play_raw(self, pos, pit):
        """Sow and capture; returns (new position, last index)."""
        b = list(pos)
        side = b[14]
        origin = 7 * side + pit
        n = b[origin]
        b[origin] = 0
        i = origin
        if self.variant == "mangala":
            if n == 1:
                i = self._next(origin, side, origin)
                b[i] += 1
            else:
                b[origin] += 1
                for _ in range(n - 1):
                    i = self._next(i, side, origin)
                    b[i] += 1
        else:
            for _ in range(n):
                i = self._next(i, side, origin)
                b[i] += 1
        last = i
        own = range(7 * side, 7 * side + 6)
        opp = range(7 - 7 * side, 13 - 7 * side)
        store = 7 * side + 6
        v = self.variant
        if v in ("kalah", "mangala") and last in own and b[last] == 1 and b[12 - last] > 0:
            b[store] += b[12 - last] + 1
            b[last] = 0
            b[12 - last] = 0
        elif v == "mangala" and last in opp and b[last] % 2 == 0:
            b[store] += b[last]
            b[last] = 0
        elif v == "ranok" and last in opp and b[last] in (2, 3):
            got = b[last]
            b[last] = 0
            for j in (last - 1, last + 1):
                if j in opp and b[j] in (2, 3):
                    got += b[j]
                    b[j] = 0
            b[store] += got
        elif v == "oware" and last in opp:
            j = last
            chain = []
            while j in opp and b[j] in (2, 3):
                chain.append(j)
                j -= 1
            left = sum(b[k] for k in opp) - sum(b[k] for k in chain)
            if chain and left > 0:  # capturing every opponent stone captures nothing
                for k in chain:
                    b[store] += b[k]
                    b[k] = 0
        return b, last

    def legal(self, pos):
        """Legal pits (0..5) of the side to move; [] when the game is over."""
        if self.over_now(pos):
            return []
        return self._legal(pos)

    def _legal(self, pos):
        side = pos[14]
        own = range(7 * side, 7 * side + 6)
        opp = range(7 - 7 * side, 13 - 7 * side)
        out = []
        for pit in range(6):
            if pos[own[pit]] == 0:
                continue
            if self.variant == "ranok":
                after, _ = self._play_raw(pos, pit)
                if sum(after[k] for k in opp) == 0:
                    continue
            if self.variant == "oware" and sum(pos[k] for k in opp) == 0:
                after, _ = self._play_raw(pos, pit)
                if sum(after[k] for k in opp) == 0:
                    continue
            out.append(pit)
        return out

    def over_now(self, pos):
        s, n = pos[6], pos[13]
        v = self.variant
        if v in ("ranok", "mangala") and (s >= 25 or n >= 25):
            return True
        south = sum(pos[0:6])
        north = sum(pos[7:13])
        if v in ("kalah", "mangala") and (south == 0 or north == 0):
            return True
        if v == "oware":
            half = self.total // 2
            if s > half or n > half or (s == half and n == half):
                return True
        return not self._legal(pos)

    def play(self, pos, pit):
        """The position after `pit`, end-of-game rules applied."""
        side = pos[14]
        b, last = self._play_raw(pos, pit)
        v = self.variant
        extra = v in ("kalah", "mangala") and last == 7 * side + 6
        b[14] = side if extra else 1 - side
        if self.over_now(b):
            south = sum(b[0:6])
            north = sum(b[7:13])
            if v in ("kalah", "oware"):
                b[6] += south
                b[13] += north
                b[0:6] = [0] * 6
                b[7:13] = [0] * 6
            elif v == "mangala" and b[6] < 25 and b[13] < 25:
                if south == 0:
                    b[6] += north
                else:
                    b[13] += south
                b[0:6] = [0] * 6
                b[7:13] = [0] * 6
        return b

    def perft(self, pos, depth):
        if depth == 0:
            return 1
        total = 0
        for pit in self.legal(pos):
            total += self.perft(self.play(pos, pit), depth - 1)
        return total
