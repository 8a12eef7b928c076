# mypy: disable-error-code="attr-defined"
# (a mixin: its methods run on an Engine, whose search state Search.__init__ makes)
"""Grading a move (the coach): how much worse it is than the best move, in stones.

The part of Engine (mancala.engine) that grades: the graded move is searched first at
the root with a full window, then the others as in any search (mancala.search), so
its score and the best score come from the same iteration; the loss in stones
falls into one of GRADES by GRADE_LIMITS (docs/ENGINE.md, "Grades").  A blunder also
gives the threat: the opponent's best reply to it.
"""

from mancala.rules import MASK, POS_LEN, SIDE
from mancala.search import SCALE

GRADES = ("best", "excellent", "good", "inaccuracy", "mistake", "blunder")
# Grade thresholds: the largest loss (stones vs the best move) of each grade after
# "best" (loss 0); anything above the last is a blunder.  docs/ENGINE.md.
GRADE_LIMITS = (1, 2, 4, 7)
GRADE_NODES = 6000  # default grading budget (~3.5 s on a Pico, begun at the tap)
# The leaves' weight per stone of one's own row while grading (quarter stones), where it
# differs from play's (search.ROW_WEIGHT): a loss is measured in stones at the end, and
# in a kalah endgame a row mostly ends in its owner's store.  Chosen on one sample of
# 16-24-seed positions, measured on another (docs/ENGINE.md, "The coach on every legal move").
GRADE_ROW_WEIGHT = {"kalah": 2}
# Variants whose every stone ends in a store: a final store difference is even (2 x a store
# - all the stones), so is every loss, and a loss is rounded to the nearest even stones.
EVEN_LOSSES = ("kalah",)
# Both from this budget on (the kernels' coach, 48,000): measured there.  The bytecode
# coach's 6,000 nodes keep the plain grading, under which it never called a loss of 5+
# stones good on the exact sets; with both it did (2 of 39, tests/test_engine_grades.py).
REFINED_NODES = 20000


class Grading:
    """Engine's grading methods (a mixin: the search's state is Engine's own)."""

    def __init__(self):
        # Grading a move a slice at a time (start_grade / grade_result).
        self._grade_pos = bytearray(POS_LEN)
        self._grade_child = bytearray(POS_LEN)
        self._grade_pit = -1
        self._grade_nodes = GRADE_NODES
        self._play_w = -1  # play's row weight while grading with GRADE_ROW_WEIGHT's
        self._refined = False  # this grade's budget takes REFINED_NODES's grading

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
        self._refined = self._grade_nodes >= REFINED_NODES
        gw = GRADE_ROW_WEIGHT.get(self.rules.name, -1) if self._refined else -1
        if gw >= 0 and gw != self.w:  # type: ignore[has-type]
            self._play_w = self.w  # type: ignore[has-type]
            self.w = gw

    def _end_grade_weights(self):
        """Play's weights again after a grade (done or abandoned: Engine.start calls it);
        the table, whose scores were the grade's, is emptied, so no play search reads them."""
        if self._play_w >= 0:
            self.w = self._play_w
            self._play_w = -1
            self.clear()

    def grade_result(self):
        """The grade of the search begun by start_grade() (see grade())."""
        r = self._grade_of()
        self._end_grade_weights()
        return r

    def _grade_of(self):
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
        if self._refined and self.rules.name in EVEN_LOSSES:
            stones = (loss + SCALE) // (2 * SCALE) * 2
        else:
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
                if threat < 0:  # (a search with play's weights)
                    self._end_grade_weights()
                    threat = self.search(child, nodes=self._grade_nodes // 4 + 1)
        return g, stones, threat
