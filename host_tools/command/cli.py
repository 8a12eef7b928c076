"""The `mancala` command: rules, engine, simulator and board tools in one place.

Each subcommand is a function taking argv; commands of other areas are imported
only when used, so one broken area never hides the others.
"""

import importlib
import json
import sys
import time

from host_tools.argkit import (  # noqa: F401  (the argument kit: re-exported for the commands)
    Parser,
    SetupError,
    UsageError,
    bounded,
    int_type,
    printable,
    run_command,
    split_lines,
    stdin_lines,
)
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
    p = Parser(prog="mancala show", description="Draw a position or the end of a game record.")
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
    p = Parser(prog="mancala legal", description="List the legal moves (pits 1..6 of the side to move).")
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


def _error_line(message, as_json):
    message = printable(message)
    return json.dumps({"error": message}) if as_json else "error: %s" % message


def _play_line(line, as_json):
    try:
        game = parse_any(line)
    except NotationError as e:
        return _error_line(e, as_json)
    return json.dumps(_result(game)) if as_json else format_position(game.rules, game.pos)


def cmd_play(argv):
    p = Parser(
        prog="mancala play",
        description="Play a record and print the final position. `mancala play -` reads one record "
                    "per line from stdin and answers one line each (a bad one: `error: ...`, "
                    "and the exit status is 1).")
    p.add_argument("text", nargs="+", help="VARIANT MOVE... | RECORD | -")
    p.add_argument("--json", action="store_true")
    p.add_argument("--record", action="store_true", help="also print the normalised record")
    a = p.parse_args(argv)
    if a.text == ["-"]:
        out = sys.stdout
        errors = 0
        for line in stdin_lines():  # one answer per line, a blank one too
            if line is None:
                answer = _error_line("the line is not UTF-8 text", a.json)
            else:
                answer = _play_line(line, a.json)
            errors += answer.startswith("error") or answer.startswith('{"error"')
            out.write(answer + "\n")
        return 1 if errors else 0  # every line answered; 1: some were errors
    game = parse_any(_join(a.text))
    if a.json:
        print(json.dumps(_result(game)))
    else:
        print(format_position(game.rules, game.pos))
    if a.record:
        print(format_record(game))
    return 0


PERFT_PROGRESS_DEPTH = 9  # from here a count takes seconds to minutes: progress on stderr


def cmd_perft(argv):
    p = Parser(prog="mancala perft", description="Count move sequences; the count is the last line.")
    p.add_argument("text", nargs="+", help="POSITION or VARIANT, then DEPTH")
    p.add_argument("--divide", action="store_true", help="also the count below each first move")
    a = p.parse_args(argv)
    if len(a.text) < 2:
        raise UsageError("perft needs a position or variant and a depth")
    depth = bounded("depth", a.text[-1], 0, 12)
    rules, pos = parse_position(_join(a.text[:-1]))
    if not (a.divide or depth >= PERFT_PROGRESS_DEPTH) or depth == 0:
        print(perft(rules, pos, depth))
        return 0
    # Counted first move by first move, so a deep count says how far it is (it
    # runs minutes from depth 10 on) and --divide prints each one as it is known.
    moves = [pit for pit in range(6) if pos[MASK] >> pit & 1]
    total = 0
    t0 = time.monotonic()
    for k, pit in enumerate(moves):
        child = bytearray(pos)
        rules.move(child, pit)
        n = perft(rules, child, depth - 1)
        total += n
        if a.divide:
            print("%d: %d" % (pit + 1, n), flush=True)
        if depth >= PERFT_PROGRESS_DEPTH:
            print("perft: %d of %d first moves counted, %.0f s" % (k + 1, len(moves),
                  time.monotonic() - t0), file=sys.stderr, flush=True)
    print(total)
    return 0


COMMANDS = {
    "show": cmd_show,
    "legal": cmd_legal,
    "play": cmd_play,
    "perft": cmd_perft,
}

# Commands of other areas: name -> (module, function).
LAZY = {
    "bench": ("host_tools.command.analysis", "bench_main"),
    "engine": ("host_tools.command.protocol", "engine_main"),
    "best": ("host_tools.command.analysis", "best_main"),
    "match": ("host_tools.command.match", "match_main"),
    "sim": ("host_tools.simulators.sim", "main"),
    "deploy": ("host_tools.link.deploy", "deploy_main"),
    "pull": ("host_tools.link.board_games", "pull_games_main"),
    "wifi": ("host_tools.command.wifi", "wifi_main"),
    "online": ("host_tools.command.online", "online_main"),
    "analyse": ("host_tools.command.game_analysis", "analyse_main"),
    "flash": ("host_tools.link.flash_micropython", "flash_main"),
    "tablebase": ("host_tools.generators.tablebase", "main"),
    "puzzles": ("host_tools.generators.puzzles", "main"),
    "book": ("host_tools.generators.book", "main"),
}

HELP = """usage: mancala COMMAND ...

rules:   show POS|RECORD [--json]      the board drawn, plus the position text
         legal POS|RECORD [--json]     the legal moves
         play VARIANT MOVE... | RECORD | -  [--json]   the final position
         perft POS|VARIANT DEPTH       move-sequence count (last line)
engine:  engine                        the engine's line protocol (docs/ENGINE.md)
         best POS|RECORD... [--level L|--nodes N]   the best move of each
         match A B [--variant V] [--games N]   a match between two players
         bench                         node rates, heap, seconds per move on a Pico
         tablebase build|verify|probe|perfect|bench   endgame tables (make tablebase)
         puzzles generate|verify|show  the board's puzzles (make puzzles)
         book build|verify|show        Master's opening book (make book)
board:   sim [--headless]              the simulated board (make play)
         deploy | pull | analyse RECORD|FILE|- | flash   update a board, grade its games
         wifi --ssid NET --broker HOST:PORT | --show | --clear   the board's online settings
online:  online create|join CODE|resume|leave --broker HOST[:PORT]   a game from the terminal
Every error is one line on stderr, `mancala COMMAND: error: ...`; the exit status is
2 for bad input, 1 for an outside failure (a file, a board, a part of the set-up
`make setup` installs), 0 otherwise.
Run `mancala COMMAND --help` for a command's options."""


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:  # no command: a usage error (stderr, 2), as any other
        print(HELP, file=sys.stderr)
        return 2
    if argv[0] in ("-h", "--help", "help"):
        print(HELP)
        return 0
    name, rest = argv[0], argv[1:]
    fn = COMMANDS.get(name)
    if fn is None and name in LAZY:
        module, attr = LAZY[name]
        try:
            fn = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as e:
            print("mancala: error: %s is not available in this build (%s)" % (name, e), file=sys.stderr)
            return 2
    if fn is None:
        print("mancala: error: unknown command %r; try `mancala --help`" % name,
              file=sys.stderr)
        return 2
    return run_command(name, fn, rest)


if __name__ == "__main__":
    sys.exit(main())

