"""`mancala analyse`: every move of a game graded, as the board's coach grades it.

    mancala analyse RECORD|FILE|- [--nodes N] [--tables [DIR] | --no-tables] [--html F] [--png F]

A record (the board's archived game `gNNNNN.txt` as `mancala pull` copies it, `-` for
stdin, or the record itself) is replayed and each move graded by the engine as the
board the command stands for grades it (a Pico whose kernels run: `match.board_engine`):
the coach's budget (engine.NATIVE_BUDGETS: kalah 200,000 nodes, the others 48,000), its table size, the endgame
table deploy sends it (where built), each grade from an empty table as the coach's.  So
the report says what the board said of each move (docs/ENGINE.md, "The board and the
report"); `--nodes N` grades deeper, and then says how its budget compares.

The analysis and its budget live here; the report (report.py) only draws what it is
given, and this module writes it (report.write) when asked: neither imports the other
both ways (tests/test_import_graph.py).
"""

import os
import sys

from host_tools.argkit import Parser, SetupError, UsageError, int_type, printable, run_command

# --nodes of analyse: an hour of CPython at most
MAX_ANALYSE_NODES = 10000000


def coach_nodes(variant="kalah"):
    """The board's coach's budget for a variant (its rules' name): what a Pico whose
    kernels run grades a move with."""
    from host_tools.command.match import BOARD_CPU
    from mancala.engine import GRADE_NODES, NATIVE_BUDGETS

    budgets = NATIVE_BUDGETS.get(BOARD_CPU)
    return budgets[1].get(variant, GRADE_NODES) if budgets else GRADE_NODES


def default_analyse_nodes(variant="kalah"):
    """The default budget: the board's coach's, so the grades are the board's."""
    return coach_nodes(variant)


def budget_note(nodes, variant="kalah"):
    """Which budget graded the moves, against the board's coach: at its budget the
    grades are the board's; a deeper search here can grade a move otherwise (issue 26:
    "blunder (10 stones)" on the board, "blunder 8" in the report)."""
    coach = coach_nodes(variant)
    if nodes == coach:
        return ("graded with %d nodes a move, as the board's coach grades (a Pico's; "
                "the same grades the board gave)" % nodes)
    return ("graded with %d nodes a move (%gx the board's coach, which grades with %d: "
            "a grade or a loss may differ from the board's)"
            % (nodes, round(nodes / coach, 2), coach))


def analyse_record(text, nodes=None, tables=True):
    """Grade every move of a game record as the board's coach does.  Returns a list
    of dicts: ply (1-based), side ("S"/"N"), move (1..6), best (1..6), grade (name),
    loss (stones lost against the best move), threat (1..6 or None), eval (the
    position before the move, in stones of advantage for South).
    tables: True for the endgame table the board carries (where built here), a folder
    for the largest table built there (`make tablebase`), False for none."""
    try:
        from host_tools.command.match import board_engine
        from mancala import engine as eng_mod
        from mancala.notation import parse_record
        from mancala.rules import SIDE
    except ImportError as e:
        raise SetupError("the engine is not available (%s)" % e) from None
    game = parse_record(text)
    engine = board_engine(game.rules, book=False, tables=tables is True)
    if tables and tables is not True:
        from host_tools.generators.tablebase import open_built

        engine.set_table(open_built(game.rules.id, tables))
    if nodes is None:
        nodes = engine.grade_nodes
    rows = []
    moves = game.moves()
    for i, pit in enumerate(moves):
        pos = game.position_at(i)
        engine.keep = False  # the coach grades from an empty table (modes/coach.py)
        g, loss, threat = engine.grade(pos, pit, nodes=nodes)
        # The best move of the same search; a blunder's threat search replaced it.
        best = pit if g == 0 else engine.best_move if g < len(eng_mod.GRADES) - 1 \
            else engine.search(pos, nodes=nodes)
        # the position's value, in stones for South (reports' graph): the best score
        # of the deepest finished iteration (an unfinished one proves no score)
        value = (1 - 2 * pos[SIDE]) * engine._done_q / eng_mod.SCALE
        rows.append({
            "ply": i + 1, "side": "SN"[pos[SIDE]], "move": pit + 1,
            "best": best + 1 if best >= 0 else None, "grade": eng_mod.GRADES[g],
            "loss": loss, "threat": threat + 1 if threat >= 0 else None, "eval": value,
        })
    return rows


def format_analysis(rows):
    lines = ["ply side move best  grade       loss"]
    for r in rows:
        note = " (threat: %d)" % r["threat"] if r["threat"] else ""
        lines.append("%3d  %s    %d    %s   %-10s %4d%s" % (
            r["ply"], r["side"], r["move"], r["best"] if r["best"] else "-", r["grade"], r["loss"], note))
    by = {}
    for r in rows:
        by.setdefault(r["side"], []).append(r["loss"])
    for side in ("S", "N"):
        if side in by:
            lines.append("%s: %d moves, %d stones lost against best play" % (side, len(by[side]), sum(by[side])))
    return lines


class ReportError(OSError):
    """The report could not be written: exit status 1."""


def record_text(words):
    """`analyse`'s argument: a file, - (stdin), or the record itself."""
    from mancala.hw.storage import game_record

    if words == ["-"]:
        data = sys.stdin.buffer.read()
        where = "stdin"
    elif len(words) == 1 and (os.path.exists(words[0]) or "/" in words[0] or
                              words[0].endswith(".txt")):
        with open(words[0], "rb") as f:  # an OSError names the file (exit status 1)
            data = f.read()
        where = words[0]
        if data.startswith(b"sum "):  # an archived game, with its checksum
            record = game_record(data)[0]
            if record is None:
                raise UsageError("%s is damaged: its checksum does not match (torn or changed)"
                                 % printable(where))
            return record, where
    else:
        return " ".join(words), "the record"
    try:
        return data.decode("utf-8"), where
    except UnicodeDecodeError:
        raise UsageError("%s is not a game record (not UTF-8 text)" % printable(where)) from None


def analyse_main(argv=None):
    """`mancala analyse`; every failure is one line and a non-zero status."""
    return run_command("analyse", _analyse, sys.argv[1:] if argv is None else argv)


def _analyse(argv):
    from mancala.notation import NotationError, parse_record

    ap = Parser(prog="mancala analyse", description=(
        "Grade every move of a game record as the board's coach does: a record file (as "
        "pulled from the board), - for stdin, or the record itself (mancala analyse "
        "kalah 3 1 6)."))
    ap.add_argument("record", nargs="+", help="FILE | - | VARIANT [C1,...,C14 S|N] MOVES...")
    ap.add_argument("--nodes", type=int_type("--nodes", 1, MAX_ANALYSE_NODES), default=None,
                    help="search budget per move (default: the board's coach's, kalah "
                         "%d, the others %d: the board's grades)"
                         % (coach_nodes("kalah"), coach_nodes("oware")))
    t = ap.add_mutually_exclusive_group()
    t.add_argument("--tables", nargs="?", const="build/tables", metavar="DIR",
                   help="grade endgames exactly with the largest table built in DIR "
                        "(default: the table a Pico carries, where built in build/tables)")
    t.add_argument("--no-tables", action="store_true",
                   help="no endgame table (as a board that was not sent one)")
    ap.add_argument("--html", metavar="FILE", help="also write a self-contained HTML report")
    ap.add_argument("--png", metavar="FILE", help="also write the evaluation graph as PNG")
    a = ap.parse_args(argv)
    for path in (a.html, a.png):  # before minutes of analysis, not after them
        folder = os.path.dirname(os.path.abspath(path)) if path else None
        if folder and not (os.path.isdir(folder) and os.access(folder, os.W_OK)):
            raise ReportError("the report could not be written: %s: no such folder, or "
                              "not writable" % printable(folder))
    text, where = record_text(a.record)
    try:
        variant = parse_record(text).rules.name
    except NotationError as e:
        raise UsageError("%s: %s" % (printable(where), e)) from None
    if a.nodes is None:
        a.nodes = default_analyse_nodes(variant)
    try:
        rows = analyse_record(text, a.nodes, a.tables or not a.no_tables)
    except NotationError as e:
        raise UsageError("%s: %s" % (printable(where), e)) from None
    for line in format_analysis(rows):
        print(line)
    note = budget_note(a.nodes, variant)
    print(note)
    return _write_report(text, rows, a, note)


def _write_report(text, rows, a, note):
    """--html / --png: the report (report.py)."""
    if not (a.html or a.png):
        return 0
    from host_tools.command import report

    try:
        report.write(text, rows, a.html, a.png, nodes=a.nodes, note=note)
    except (OSError, RuntimeError) as e:
        raise ReportError("the report could not be written: %s" % e) from None
    for path in (a.html, a.png):
        if path:
            print("wrote %s" % path)
    return 0


if __name__ == "__main__":
    sys.exit(analyse_main())
