"""Puzzles on the board: a position from the variant's puzzle file with one best move
(mancala/puzzles.py, docs/PUZZLES.md); set it up, find the move (modes/trainer.py).

Right: the solution line follows, the puzzle is marked solved and the next unsolved one
comes; wrong: the opponent's refutation blinks, the miss is remembered and the same
puzzle comes again (the North store at the verdict: skip it).  The score, puzzles solved
of this variant, shows in the South store at each verdict.
"""

from mancala import puzzles as PZ
from mancala.modes import put
from mancala.modes.activities import PUZZLE
from mancala.modes.trainer import Trainer


class Puzzle(Trainer):
    name = "puzzle"
    kind = "puzzle"
    puzzle = None

    def count(self):
        return PZ.count(self.variant)

    def first(self):
        return PZ.next_number(self.prog, self.variant, self.total)

    def load(self, number):
        self.puzzle = None  # the old one's room first
        p = PZ.read(self.variant, number)
        if p is None:
            return False
        self.puzzle = p
        self.pos[:] = p.position(self.rules)
        return True

    def judge(self, pit):
        p = self.puzzle
        right = p.is_right(pit)
        if right:
            self.set_line(self.after, p.line[1:])
        else:
            self.set_line(self.after, p.refutation(pit))
        return right

    def record(self):
        PZ.record(self.prog, self.variant, self.number, self.total, self.right)

    def after_verdict(self, skip):
        if self.right or skip:
            return PZ.next_number(self.prog, self.variant, self.total, self.number)
        return self.number

    def score(self):
        return PZ.score(self.prog, self.variant, self.total)[0]


put(PUZZLE, Puzzle())
