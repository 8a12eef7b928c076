"""Finished games: pull them from the board, analyse them on the PC.

    python -m host_tools.link.board_games pull [--port PORT] [--dest games/]
    python -m host_tools.link.board_games analyse RECORD|FILE|- [--nodes N] [--html F] [--png F]

The board keeps its finished games in /data/games/gNNNNN.txt, one game record
(docs/RULES*.md, "Notation") a file, after its checksum line (`sum XXXXXXXX`,
mancala.hw.storage.game_text).  `pull` copies the ones the PC
does not have yet (checked by sha256 on the board), never changing the board; a
damaged game (its checksum does not match) is said and left out.
`analyse` replays a record and grades every move with the engine, searched
with many more nodes than the board can afford.
"""

import hashlib
import os
import sys

from host_tools.command.cli import Parser, UsageError, int_type, printable, run_command
from host_tools.link.board_transport import BOARD_HASH, Board, DeployError, find_port
from mancala.hw.storage import game_number_ok, game_record
from mancala.notation import NotationError

GAMES_DIR = "/data/games"
# The board grades with engine.GRADE_NODES (about 3 s on a Pico); the PC can
# search this many times deeper.
PC_DEPTH_FACTOR = 25


def game_name_ok(name):
    """True for a name the board gives a finished game: exactly "g%05d.txt" of a
    game number (1..2**30-1; ASCII digits), as mancala.hw.storage.Storage.history_name
    writes it (g00001.txt, g123456.txt; not g1.txt, g000001.txt, g00000.txt).
    Anything else -- ../x.txt, /x.txt, sub/g00001.txt -- is no game of the board's,
    and joined onto the destination folder it could name a file outside it."""
    if not (name[:1] == "g" and name[-4:] == ".txt"):
        return False
    digits = name[1:-4]
    if not (digits.isascii() and digits.isdigit()):
        return False
    number = int(digits)
    return game_number_ok(number) and name == "g%05d.txt" % number


def listed_games(listing):
    """The board's listing (`NAME SHA256` lines) as ({name: sha256}, [refused]): a
    line that is not a game's name and a sha256 is refused (its name, or the line
    when it is not NAME SHA256)."""
    remote, refused = {}, []
    for line in listing.splitlines():
        if not line.strip():
            continue
        words = line.split(" ")
        digest = words[-1] if len(words) == 2 else ""
        if (game_name_ok(words[0]) and len(digest) == 64 and
                all(c in "0123456789abcdef" for c in digest)):
            remote[words[0]] = digest
        else:
            refused.append(words[0] if len(words) == 2 else line)
    return remote, refused


def pull_games(port=None, dest="games", out=None):
    """Copy new finished games from the board into `dest`.  Returns (new, known) names."""
    out = out if out is not None else sys.stdout
    port = find_port(port)
    board = Board(port)
    try:
        board.raw(soft_reset=False)
        listing = board.exec(
            BOARD_HASH + "import os\ntry:\n es = list(os.ilistdir(%r))\nexcept OSError:\n es = []\n"
            "for e in es:\n if not e[1] & 0x4000 and e[0].endswith('.txt'):\n  print(e[0], _h(%r + '/' + e[0])[0])\n"
            % (GAMES_DIR, GAMES_DIR))
        remote, refused = listed_games(listing)
        for name in refused:  # a name the board never writes: nothing written for it
            print("%s on the board is not a game's name (gNNNNN.txt): not pulled"
                  % printable(repr(name)), file=out)
        os.makedirs(dest, exist_ok=True)
        new, known, damaged = [], [], []
        for name in sorted(remote):
            local = os.path.join(dest, name)
            if os.path.exists(local):
                with open(local, "rb") as f:
                    if hashlib.sha256(f.read()).hexdigest() == remote[name]:
                        known.append(name)
                        continue
                # a different game under the same name (the board's list wrapped around)
                base, ext = os.path.splitext(name)
                k = 1
                while os.path.exists(os.path.join(dest, "%s-%d%s" % (base, k, ext))):
                    k += 1
                local = os.path.join(dest, "%s-%d%s" % (base, k, ext))
            try:
                data = bytes(board.t.fs_readfile(GAMES_DIR + "/" + name, chunk_size=512))
            except Exception as e:
                raise DeployError("could not read %s from the board: %s" % (name, e)) from None
            if hashlib.sha256(data).hexdigest() != remote[name]:
                raise DeployError("%s changed while it was read; pull again" % name)
            if game_record(data)[0] is None:
                print("%s on the board is damaged (its checksum does not match): not pulled"
                      % printable(name), file=out)
                damaged.append(name)
                continue
            tmp = local + ".part"
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, local)
            new.append(os.path.basename(local))
        print("pulled %d new game(s) into %s (%d already there%s%s)"
              % (len(new), dest, len(known),
                 ", %d damaged left out" % len(damaged) if damaged else "",
                 ", %d refused" % len(refused) if refused else ""), file=out)
        return new, known
    finally:
        board.close()


def analyse_record(text, nodes=None, tables=None):
    """Grade every move of a game record.  Returns a list of dicts:
    ply (1-based), side ("S"/"N"), move (1..6), best (1..6), grade (name),
    loss (stones lost against the best move), threat (1..6 or None),
    eval (the position before the move, in stones of advantage for South).
    tables: a folder of endgame tables (`make tablebase`): endgames graded exactly."""
    try:
        from mancala import engine as eng_mod
        from mancala.notation import parse_record
        from mancala.rules import SIDE
    except ImportError as e:
        raise DeployError("the engine is not available (%s)" % e) from None
    game = parse_record(text)
    if nodes is None:
        nodes = default_analyse_nodes()
    engine = eng_mod.Engine(game.rules, tt_bits=16)
    if tables:
        from host_tools.generators.tablebase import open_built

        engine.set_table(open_built(game.rules.id, tables))
    rows = []
    moves = game.moves()
    for i, pit in enumerate(moves):
        pos = game.position_at(i)
        g, loss, threat = engine.grade(pos, pit, nodes=nodes)
        # The best move of the same search; a blunder's threat search replaced it.
        best = pit if g == 0 else engine.best_move if g < len(eng_mod.GRADES) - 1 \
            else engine.search(pos, nodes=nodes)
        rows.append({
            "ply": i + 1, "side": "SN"[pos[SIDE]], "move": pit + 1,
            "best": best + 1 if best >= 0 else None, "grade": eng_mod.GRADES[g],
            "loss": loss, "threat": threat + 1 if threat >= 0 else None,
            # the position's value, in stones for South (reports' graph): the best score
            # of the deepest finished iteration (an unfinished one proves no score)
            "eval": (1 - 2 * pos[SIDE]) * engine._done_q / eng_mod.SCALE,
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


class BoardError(OSError):
    """The board could not be reached or read: exit status 1."""


def pull_games_main(argv=None):
    """`mancala pull`; every failure is one line and a non-zero status (cli.run_command)."""
    return run_command("pull", _pull, argv)


def _pull(argv):
    ap = Parser(prog="mancala pull", description="Copy the board's finished games to the PC.")
    ap.add_argument("--port", default=None, help="serial port of the board (default: $PORT, else found by USB id)")
    ap.add_argument("--dest", default="games", help="folder for the game records (default: games/)")
    a = ap.parse_args(argv)
    try:
        pull_games(a.port, a.dest)
    except DeployError as e:
        raise BoardError(str(e)) from None
    return 0


# --nodes of analyse: the board's budget is 2000; an hour of CPython at most
MAX_ANALYSE_NODES = 10000000


def _record_text(words):
    """`analyse`'s argument: a file, - (stdin), or the record itself."""
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
    return run_command("analyse", _analyse, argv)


def _analyse(argv):
    ap = Parser(prog="mancala analyse", description=(
        "Grade every move of a game record with the engine: a record file (as pulled "
        "from the board), - for stdin, or the record itself (mancala analyse kalah 3 1 6)."))
    ap.add_argument("record", nargs="+", help="FILE | - | VARIANT [C1,...,C14 S|N] MOVES...")
    ap.add_argument("--nodes", type=int_type("--nodes", 1, MAX_ANALYSE_NODES), default=None,
                    help="search budget per move (default: %dx the board's)" % PC_DEPTH_FACTOR)
    ap.add_argument("--tables", nargs="?", const="build/tables", metavar="DIR",
                    help="grade endgames exactly with the largest table built in DIR "
                         "(default build/tables; make tablebase)")
    ap.add_argument("--html", metavar="FILE", help="also write a self-contained HTML report")
    ap.add_argument("--png", metavar="FILE", help="also write the evaluation graph as PNG")
    a = ap.parse_args(argv)
    for path in (a.html, a.png):  # before minutes of analysis, not after them
        folder = os.path.dirname(os.path.abspath(path)) if path else None
        if folder and not (os.path.isdir(folder) and os.access(folder, os.W_OK)):
            raise BoardError("the report could not be written: %s: no such folder, or "
                             "not writable" % printable(folder))
    text, where = _record_text(a.record)
    if a.nodes is None:
        a.nodes = default_analyse_nodes()
    try:
        rows = analyse_record(text, a.nodes, a.tables)
    except DeployError as e:
        raise BoardError(str(e)) from None
    except NotationError as e:
        raise UsageError("%s: %s" % (printable(where), e)) from None
    for line in format_analysis(rows):
        print(line)
    print(budget_note(a.nodes))
    return _write_report(text, rows, a)


def default_analyse_nodes():
    from mancala.engine import GRADE_NODES

    return GRADE_NODES * PC_DEPTH_FACTOR


def budget_note(nodes):
    """Which budget graded the moves, against the board's coach: a deeper search here
    can grade a move otherwise than the board did (issue 26: "blunder (10 stones)" on
    the board, "blunder 8" in the report)."""
    from mancala.engine import GRADE_NODES

    return ("graded with %d nodes a move (%s the board's coach, which grades with %d: "
            "a grade or a loss may differ from the board's)"
            % (nodes, "%gx" % round(nodes / GRADE_NODES, 2) if nodes != GRADE_NODES else "as",
               GRADE_NODES))


def _write_report(text, rows, a):
    """--html / --png: the report (host_tools/command/report.py)."""
    if not (a.html or a.png):
        return 0
    from host_tools.command import report

    try:
        report.write(text, rows, a.html, a.png, nodes=a.nodes)
    except (OSError, RuntimeError) as e:
        raise BoardError("the report could not be written: %s" % e) from None
    for path in (a.html, a.png):
        if path:
            print("wrote %s" % path)
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in ("pull", "analyse"):
        print("usage: python -m host_tools.link.board_games pull|analyse ...", file=sys.stderr)
        return 2
    return (pull_games_main if argv[0] == "pull" else analyse_main)(argv[1:])


if __name__ == "__main__":
    sys.exit(main())
