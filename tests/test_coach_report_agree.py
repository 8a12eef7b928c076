"""The board's coach and `mancala analyse` give the same grade to the same move (issue 43,
item 3).

They did not: the report graded with 25x the bytecode coach's budget in a table of 2**16
entries, and the board's coach, against Master, graded from the table pondering had left
(deeper or shallower by chance of what pondering had reached: history, not the position).
Now the coach grades from an empty table against every level, and the report grades as
the board the command stands for (a Pico whose kernels run: its coach's kalah budget, its
table of 2**12).  A person's game against Master with pondering is played on the
simulated Pico (the deployed board's engine, `native=True`) and its record analysed: every
grade the board showed is the report's, loss included.
"""

import random

from board_helpers import SETTINGS, settled, start, to_select

from host_tools.command.game_analysis import analyse_record, default_analyse_nodes
from host_tools.fakes import machine, neopixel
from host_tools.fakes.board import SimBoard
from host_tools.fakes.memfs import MemFs
from mancala import app as A
from mancala.engine import GRADES, NATIVE_BUDGETS
from mancala.hw.storage import Storage
from mancala.notation import format_record
from mancala.rules import MASK


def test_the_board_and_the_report_grade_alike():
    fs = MemFs()
    settings = dict(SETTINGS)
    settings.update(variant="oware", opponent=4, coaching=1, quick=1)  # Master: it ponders
    Storage(fs).save("settings.json", settings)
    b = SimBoard("pico_buttons", machine, neopixel, fs=fs, seed=5, native=True)
    # (oware: its coach's 48,000 nodes; kalah's 200,000 would cost this test 4x the time,
    # and its budget is the same path, tests/test_pc_budgets.py)
    assert b.app.engine.grade_nodes == NATIVE_BUDGETS["armv6m"][1]["oware"] == default_analyse_nodes("oware")
    start(b)
    shown = {}  # ply of the graded move -> (grade, loss) the board showed

    def on_frame(app):
        if app.mode == A.GRADE:
            shown[app.game.ply] = app.grade[:2]

    b.app.on_frame = on_frame
    rng = random.Random(3)
    pondered = 0
    for _ in range(7):
        to_select(b)
        g = b.app.game
        if g.over:
            break
        pondered += b.app.pondering
        b.play_move(rng.choice([k for k in range(6) if g.pos[MASK] >> k & 1]))
        settled(b)
    assert len(shown) >= 6 and pondered  # graded moves, and Master pondered before them
    rows = analyse_record(format_record(b.app.game), tables=False)
    board = {ply: (GRADES[g], loss) for ply, (g, loss) in shown.items()}
    report = {ply: (rows[ply - 1]["grade"], rows[ply - 1]["loss"]) for ply in shown}
    assert board == report
    assert len(set(board.values())) >= 3  # (not all "best": the grades say something)
