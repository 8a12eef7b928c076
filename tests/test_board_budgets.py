"""The board spends the budgets of the CPU its engine runs on (issue 22, "Spend it"):
Master's node cap, the coach's grading budget and the pondering cap are the engine's
(engine.NATIVE_BUDGETS where the machine-code kernels run), not numbers of the App's
own.  CPython has no kernels, so a CPU's budgets are given to the engine here."""

from board_helpers import board, start, to_select

from host_tools.fakes.board import index
from mancala.engine import Engine
from mancala.rules import MASK

STARTS = []


class ChipEngine(Engine):
    """The real engine with a chip's budgets (as NATIVE_BUDGETS gives them)."""

    def __init__(self, rules, tt_bits=12, seed=0):
        super().__init__(rules, tt_bits=tt_bits, seed=seed)
        self.master_cap = 777
        self.grade_nodes = 555
        self.ponder_nodes = 333

    def start(self, pos, level=None, nodes=None, deadline_ms=None, clock=None):
        STARTS.append((level, nodes, deadline_ms is not None))
        super().start(pos, level=level, nodes=nodes, deadline_ms=deadline_ms, clock=clock)


def test_master_ponder_and_coach_use_the_engines_budgets():
    STARTS.clear()
    b = board(variant="kalah", opponent=4, coaching=1, engine_cls=ChipEngine)
    start(b)
    to_select(b)
    b.play_move(index("S1"))  # the coach grades it, then Master thinks
    for _ in range(3):
        to_select(b)
        b.play_move(next(i for i in range(6) if b.app.game.pos[MASK] >> i & 1))
    masters = [s for s in STARTS if s[2]]  # Master's think: by the clock
    assert masters and {s[1] for s in masters} == {777}, STARTS
    assert (None, 555, False) in STARTS  # the coach's grade (start_grade -> start)
    assert any(s[1] == 333 for s in STARTS if not s[2]), STARTS  # pondering
