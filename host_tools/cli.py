"""The `mancala` command: rules, engine, simulator and board tools in one place.

Each subcommand is a function taking argv; commands of other areas are imported
only when used, so one broken area never hides the others.
"""

import argparse
import importlib
import json
import sys

from host_tools.board_text import draw
from mancala.game import END_AGREEMENT, END_REPETITION
from mancala.notation import (
    NotationError,
    format_position,
    format_record,
    parse_any,
    parse_position,
)
from mancala.rules import MASK, N_STORE, S_STORE, perft

END_NOTES = {END_REPETITION: "repetition", END_AGREEMENT: "agreement"}


class UsageError(Exception):
    pass


def _result(game):
    pos = game.pos
    w = game.winner()
    return {
        "position": format_position(game.rules, pos),
        "over": game.over,
        "scores": [pos[S_STORE], pos[N_STORE]],
        "winner": None if w is None else ("S", "N", "draw")[w],
    }


def _join(words):
    return " ".join(words)


def cmd_show(argv):
    p = argparse.ArgumentParser(prog="mancala show", description="Draw a position or the end of a game record.")
    p.add_argument("text", nargs="+", help="a position ('kalah 4,4,...,0 S') or a record ('kalah 3 1 6')")
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    game = parse_any(_join(a.text))
    if a.json:
        print(json.dumps(_result(game)))
        return 0
    for line in draw(game.rules, game.pos, END_NOTES.get(game.end)):
        print(line)
    print(format_position(game.rules, game.pos))
    return 0


def cmd_legal(argv):
    p = argparse.ArgumentParser(prog="mancala legal", description="List the legal moves (pits 1..6 of the side to move).")
    p.add_argument("text", nargs="+")
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    game = parse_any(_join(a.text))
    mask = game.legal_mask()
    moves = [k + 1 for k in range(6) if mask >> k & 1]
    if a.json:
        out = _result(game)
        out["legal"] = moves
        print(json.dumps(out))
    else:
        print(" ".join(str(m) for m in moves) if moves else "(none: the game is over)")
    return 0


def _play_line(line, as_json):
    try:
        game = parse_any(line)
    except NotationError as e:
        return json.dumps({"error": str(e)}) if as_json else "error: %s" % e
    return json.dumps(_result(game)) if as_json else format_position(game.rules, game.pos)


def cmd_play(argv):
    p = argparse.ArgumentParser(
        prog="mancala play",
        description="Play a record and print the final position. `mancala play -` reads one record "
                    "per line from stdin and answers one line each.")
    p.add_argument("text", nargs="+", help="VARIANT MOVE... | RECORD | -")
    p.add_argument("--json", action="store_true")
    p.add_argument("--record", action="store_true", help="also print the normalised record")
    a = p.parse_args(argv)
    if a.text == ["-"]:
        out = sys.stdout
        for line in sys.stdin:
            line = line.strip()
            if line:
                out.write(_play_line(line, a.json) + "\n")
        return 0
    game = parse_any(_join(a.text))
    if a.json:
        print(json.dumps(_result(game)))
    else:
        print(format_position(game.rules, game.pos))
    if a.record:
        print(format_record(game))
    return 0


def cmd_perft(argv):
    p = argparse.ArgumentParser(prog="mancala perft", description="Count move sequences; the count is the last line.")
    p.add_argument("text", nargs="+", help="POSITION or VARIANT, then DEPTH")
    p.add_argument("--divide", action="store_true", help="also the count below each first move")
    a = p.parse_args(argv)
    if len(a.text) < 2:
        raise UsageError("perft needs a position or variant and a depth")
    try:
        depth = int(a.text[-1])
    except ValueError:
        raise UsageError("depth must be a whole number, got %r" % a.text[-1]) from None
    if not 0 <= depth <= 12:
        raise UsageError("depth must be 0..12, got %d" % depth)
    rules, pos = parse_position(_join(a.text[:-1]))
    if a.divide and depth > 0:
        for pit in range(6):
            if pos[MASK] >> pit & 1:
                child = bytearray(pos)
                rules.move(child, pit)
                print("%d: %d" % (pit + 1, perft(rules, child, depth - 1)))
    print(perft(rules, pos, depth))
    return 0


COMMANDS = {
    "show": cmd_show,
    "legal": cmd_legal,
    "play": cmd_play,
    "perft": cmd_perft,
}

# Commands of other areas: name -> (module, function).
LAZY = {
    "bench": ("host_tools.engine_cli", "bench_main"),
    "engine": ("host_tools.engine_cli", "engine_main"),
    "best": ("host_tools.engine_cli", "best_main"),
    "match": ("host_tools.engine_cli", "match_main"),
    "sim": ("host_tools.sim", "main"),
    "deploy": ("host_tools.deploy", "deploy_main"),
    "pull": ("host_tools.board_games", "pull_games_main"),
    "analyse": ("host_tools.board_games", "analyse_main"),
    "flash": ("host_tools.flash_micropython", "flash_main"),
    "tablebase": ("host_tools.tablebase", "main"),
}

HELP = """usage: mancala COMMAND ...

rules:   show POS|RECORD [--json]      the board drawn, plus the position text
         legal POS|RECORD [--json]     the legal moves
         play VARIANT MOVE... | RECORD | -  [--json]   the final position
         perft POS|VARIANT DEPTH       move-sequence count (last line)
engine:  engine | best POS [--level L|--nodes N] | match A B --variant V --games N | bench
         tablebase build|verify|probe|bench   endgame tables (make tablebase)
board:   sim [--headless]              the simulated board (make play)
         deploy | pull | analyse RECORD | flash   update a board, bring back its games
Run `mancala COMMAND --help` for a command's options."""


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(HELP)
        return 0
    name, rest = argv[0], argv[1:]
    fn = COMMANDS.get(name)
    if fn is None and name in LAZY:
        module, attr = LAZY[name]
        try:
            fn = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as e:
            print("mancala: %s is not available in this build (%s)" % (name, e), file=sys.stderr)
            return 2
    if fn is None:
        print("mancala: unknown command %r; try `mancala --help`" % name, file=sys.stderr)
        return 2
    try:
        return fn(rest) or 0
    except (NotationError, UsageError) as e:
        print("mancala %s: error: %s" % (name, e), file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())

