"""Position text and game records (docs/RULES.en.md, "Notation").

  position:  kalah 4,4,4,4,4,4,0,4,4,4,4,4,4,0 S
  record:    mangala 4 1 6 3            (moves from the standard start, South first)
             ranok 4,4,4,4,4,4,0,4,4,4,4,4,4,0 N 3 2 5 agreed
A move is the mover's pit 1..6; it may carry the mover's letter (S3, N5).
Every error is a NotationError with a one-line message naming what is wrong.
"""

from mancala.game import Game, IllegalMove
from mancala.record import AGREED, format_position, format_record  # noqa: F401 - the writing
from mancala.rules import get_rules

BOARD_NAMES = ("S1", "S2", "S3", "S4", "S5", "S6", "S store",
               "N1", "N2", "N3", "N4", "N5", "N6", "N store")


class NotationError(ValueError):
    pass


def _rules(variant):
    try:
        return get_rules(variant)
    except ValueError as e:
        raise NotationError(str(e)) from None


def _counts(rules, text):
    parts = text.split(",")
    if len(parts) != 14:
        raise NotationError(
            "expected 14 counts separated by commas (S1..S6, S store, N1..N6, N store), got %d"
            % len(parts))
    counts = []
    for i, part in enumerate(parts):
        part = part.strip()
        try:
            c = int(part)
        except ValueError:
            raise NotationError("count of %s is not a number: %r" % (BOARD_NAMES[i], part)) from None
        if c < 0:
            raise NotationError("count of %s is negative: %d" % (BOARD_NAMES[i], c))
        counts.append(c)
    total = sum(counts)
    # A study position may have stones put aside, never more than the set has.
    if total > rules.total:
        raise NotationError("the counts add up to %d stones, more than the %d of %s"
                            % (total, rules.total, rules.id))
    if total == 0:
        raise NotationError("the counts add up to 0 stones: there is nothing to play")
    return counts


def _side(text):
    if text in ("S", "s"):
        return 0
    if text in ("N", "n"):
        return 1
    raise NotationError("side to move must be S or N, got %r" % text)


def _looks_like_counts(token):
    return "," in token


def parse_position(text):
    """'VARIANT C0,...,C13 S|N' -> (rules, position bytearray)."""
    tokens = text.split()
    if not tokens:
        raise NotationError("empty position: expected 'VARIANT C1,...,C14 S|N'")
    rules = _rules(tokens[0])
    if len(tokens) == 1:
        return rules, rules.start()
    if len(tokens) != 3:
        raise NotationError("a position is 'VARIANT C1,...,C14 S|N' (3 words), got %d words"
                            % len(tokens))
    counts = _counts(rules, tokens[1])
    return rules, rules.new_position(counts, _side(tokens[2]))


def parse_move(token, side):
    """'3' or 'S3' -> pit 0..5 for `side`; NotationError if it is not a pit of the mover."""
    t = token
    if t[:1] in ("S", "N", "s", "n"):
        owner = 0 if t[0] in "Ss" else 1
        if owner != side:
            raise NotationError("%s is not a pit of the side to move (%s)"
                                % (t, ("South", "North")[side]))
        t = t[1:]
    if len(t) != 1 or t not in "123456":
        raise NotationError("%r is not a pit number 1..6" % token)
    return int(t) - 1


def parse_record(text):
    """A game record -> Game with every move played (and checked)."""
    tokens = text.split()
    if not tokens:
        raise NotationError("empty record: expected 'VARIANT [C1,...,C14 S|N] MOVES...'")
    rules = _rules(tokens[0])
    i = 1
    start = None
    if len(tokens) > 1 and _looks_like_counts(tokens[1]):
        if len(tokens) < 3:
            raise NotationError("the start position needs the side to move (S or N)")
        start = rules.new_position(_counts(rules, tokens[1]), _side(tokens[2]))
        i = 3
    game = Game(rules, start)
    for k in range(i, len(tokens)):
        tok = tokens[k]
        number = k - i + 1
        if tok == AGREED:
            if k != len(tokens) - 1:
                raise NotationError("'agreed' must be the last word of a record")
            try:
                game.agree()
            except IllegalMove as e:
                raise NotationError("agreed: %s" % e) from None
            break
        try:
            pit = parse_move(tok, game.side)
        except NotationError as e:
            raise NotationError("move %d: %s" % (number, e)) from None
        try:
            game.play(pit)
        except IllegalMove as e:
            raise NotationError("move %d (%s%d): %s" % (number, "SN"[game.side], pit + 1, e)) from None
    return game


def parse_any(text):
    """A position or a record -> Game (a position is a record with no moves)."""
    tokens = text.split()
    if len(tokens) == 3 and _looks_like_counts(tokens[1]):
        rules, pos = parse_position(text)
        return Game(rules, pos)
    return parse_record(text)
