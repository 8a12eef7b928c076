"""Writing positions and game records (the reading, and the format: mancala/notation.py,
docs/RULES.en.md "Notation").  Apart so that a board in a game holds only this: it saves
the record after every move, and reads one only at boot (the boot drops notation.py)."""

from mancala.game import END_AGREEMENT
from mancala.rules import SIDE

AGREED = "agreed"


def format_position(rules, pos):
    return "%s %s %s" % (rules.id, ",".join(str(pos[i]) for i in range(14)), "SN"[pos[SIDE]])


def format_record(game):
    rules = game.rules
    start = game.start_position()
    words = [rules.id]
    if start != bytes(rules.start()):
        words.append(format_position(rules, start).split(" ", 1)[1])
    words.extend(str(m + 1) for m in game.moves())
    if game.end == END_AGREEMENT:
        words.append(AGREED)
    return " ".join(words)
