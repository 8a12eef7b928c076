from mancala.game import Game
from mancala.rules import MASK, get_rules


def position(variant, counts, side="S"):
    rules = get_rules(variant)
    return rules, rules.new_position(counts, "SN".index(side))


def play(variant, counts, side, *pits):
    """Play pits (1..6) from a hand-made position; returns (counts list, side, over, flags)."""
    rules, pos = position(variant, counts, side)
    flags = 0
    for p in pits:
        assert pos[MASK] >> (p - 1) & 1, "pit %d not legal" % p
        flags = rules.move(pos, p - 1)
    return list(pos[:14]), "SN"[pos[14]], pos[MASK] == 0, flags


def legal(variant, counts, side="S"):
    rules, pos = position(variant, counts, side)
    return [k + 1 for k in range(6) if pos[MASK] >> k & 1]


def game(variant, counts=None, side="S"):
    rules = get_rules(variant)
    start = None if counts is None else rules.new_position(counts, "SN".index(side))
    return Game(rules, start)
