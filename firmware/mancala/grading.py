# mypy: disable-error-code="attr-defined"
# (a mixin: its methods run on an Engine, whose search state Search.__init__ makes)
"""Grading a move (the coach): how much worse it is than the best move, in stones.

The part of Engine (mancala.engine) that grades: the graded move is searched first at
the root with a full window, then the others as in any search (mancala.search), so
its score and the best score come from the same iteration; the loss in stones
falls into one of GRADES by GRADE_LIMITS (docs/ENGINE.md, "Grades").  A blunder also
gives the threat: the opponent's best reply to it.
"""

from mancala.evaluation import SCALE
from mancala.rules import MASK, POS_LEN, SIDE

GRADES = ("best", "excellent", "good", "inaccuracy", "mistake", "blunder")
# Grade thresholds: the largest loss (stones vs the best move) of each grade after
# "best" (loss 0); anything above the last is a blunder.  docs/ENGINE.md.
GRADE_LIMITS = (1, 2, 4, 7)
GRADE_NODES = 6000  # default grading budget (~3.5 s on a Pico, begun at the tap)


class Grading:
    """Engine's grading methods (a mixin: the search's state is Engine's own)."""

    def __init__(self):
        # Grading a move a slice at a time (start_grade / grade_result).
        self._grade_pos = bytearray(POS_LEN)
        self._grade_child = bytearray(POS_LEN)
        self._grade_pit = -1
        self._grade_nodes = GRADE_NODES

    def grade(self, pos, pit, nodes=None):
        """(grade index, loss in stones vs the best move, threat pit or -1).

        The move is searched first at the root with a full window, so its score
        and the best score come from the same iteration and are both exact.
        A blunder also gives the threat: the opponent's best reply to it.
        """
        self.start_grade(pos, pit, nodes)
        try:
            while not self.step(1024):
                pass
        finally:
            self.force = -1
        return self.grade_result()

    def start_grade(self, pos, pit, nodes=None, clock=None):
        """Begin grading `pit` in `pos` a slice at a time: run step() until it
        returns True, then grade_result().  (The board keeps its pits live.)"""
        self._grade_nodes = self.grade_nodes if nodes is None else nodes
        self._grade_pit = pit
        self._grade_pos[:] = pos
        self.force = pit
        self.start(pos, nodes=self._grade_nodes, clock=clock)
        self._qplies = 0  # the frontier's depth grades better than quiescence (docs/ENGINE.md)

    def grade_result(self):
        """The grade of the search begun by start_grade() (see grade())."""
        self.force = -1
        pos = self._grade_pos
        pit = self._grade_pit
        if self.best_move == pit or self.depth == 0 and not self._bound:
            return 0, 0, -1
        if self._pbest and not self._bound:  # the unfinished iteration found it
            loss = self.qscore - self.first_score  # (both from that iteration)
        else:  # both from the last finished iteration
            loss = self._done_q - self._done_first if self.depth else 0
            if self._bound:
                # stopped in a re-search: the better move's score is a lower bound,
                # the graded move's (searched first) exact: never report less
                low = self.qscore - self.first_score
                if low > loss:
                    loss = low
        if loss <= 0:
            return 0, 0, -1
        stones = (loss + SCALE // 2) // SCALE
        if stones <= 0:  # loses no stone (rounded): as good as the best (docs/ENGINE.md)
            return 0, 0, -1
        g = 5
        for i in range(4):
            if stones <= GRADE_LIMITS[i]:
                g = i + 1
                break
        threat = -1
        if g == 5:
            child = self._grade_child
            child[:] = pos
            self.rules.move(child, pit)
            if child[MASK] and child[SIDE] != pos[SIDE]:
                threat = self._tt_move(child)
                if threat < 0:
                    threat = self.search(child, nodes=self._grade_nodes // 4 + 1)
        return g, stones, threat
