"""A plain alpha-beta over list copies: the baseline the engine's node rate is
compared with (`mancala bench`).

Textbook recursive negamax on host_tools.references.reference_rules (every move returns a
new list), fixed depth, the same scoring as the engine (final store difference;
store difference at the horizon; extra turns keep the sign), no table, no
ordering.  One node = one `play` call, as in the engine.  MicroPython-compatible.
"""


class PlainSearch:
    def __init__(self, rules):
        self.rules = rules
        self.nodes = 0
        self.best = -1

    def search(self, pos, depth):
        """Best pit of `pos` ([c0..c13, side]) at a fixed depth; returns (pit, score)."""
        self.nodes = 0
        side = pos[14]
        best, best_v = -1, -100000
        alpha = -100000
        for pit in self.rules.legal(pos):
            child = self.rules.play(pos, pit)
            self.nodes += 1
            if child[14] == side:
                v = self._value(child, depth - 1, alpha, 100000)
            else:
                v = -self._value(child, depth - 1, -100000, -alpha)
            if v > best_v:
                best, best_v = pit, v
                alpha = max(alpha, v)
        self.best = best
        return best, best_v

    def _value(self, pos, depth, alpha, beta):
        """Value of `pos` for its side to move."""
        side = pos[14]
        moves = self.rules.legal(pos)
        diff = pos[6] - pos[13] if side == 0 else pos[13] - pos[6]
        if not moves or depth <= 0:
            return diff
        best = -100000
        for pit in moves:
            child = self.rules.play(pos, pit)
            self.nodes += 1
            if child[14] == side:
                v = self._value(child, depth - 1, alpha, beta)
            else:
                v = -self._value(child, depth - 1, -beta, -alpha)
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if v >= beta:
                        break
        return best
