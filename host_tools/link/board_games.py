"""Finished games: pull them from the board (`mancala pull`).

    python -m host_tools.link.board_games pull [--port PORT] [--dest games/]

The board keeps its finished games in /data/games/gNNNNN.txt, one game record
(docs/RULES*.md, "Notation") a file, after its checksum line (`sum XXXXXXXX`,
mancala.hw.storage.game_text).  `pull` copies the ones the PC
does not have yet (checked by sha256 on the board), never changing the board; a
damaged game (its checksum does not match) is said and left out.
`mancala analyse` grades them (host_tools/command/game_analysis.py).
"""

import hashlib
import os
import sys

from host_tools.argkit import Parser, printable, run_command
from host_tools.link.board_transport import BOARD_HASH, Board, DeployError, find_port
from mancala.hw.storage import game_number_ok, game_record

GAMES_DIR = "/data/games"


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


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] != "pull":
        print("usage: python -m host_tools.link.board_games pull [--port PORT] [--dest DIR]"
              " (a game's analysis: mancala analyse)", file=sys.stderr)
        return 2
    return pull_games_main(argv[1:])


if __name__ == "__main__":
    sys.exit(main())
