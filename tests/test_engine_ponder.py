"""A pondered table: after searching the position the person faces (keeping the
table), the search of the position after their reply plays what a fresh search of
at least the same depth plays (hand-made positions with a clear answer)."""

import pytest

from mancala.engine import Engine, level_nodes
from mancala.notation import parse_position

# (position the person faces, their reply): the computer then has a clear best move
CASES = [
    ("kalah 4,4,4,4,4,4,0,4,4,4,4,4,4,0 S", 2),  # the opening; S3 ends in the store
    ("kalah 1,0,3,0,5,2,10,2,0,6,1,0,4,14 S", 4),
    ("kalah 0,3,0,2,1,6,12,3,1,0,4,2,0,14 S", 1),
    ("kalah 3,0,0,1,8,0,15,0,5,2,0,1,3,10 S", 3),
    ("oware 1,2,0,3,4,1,12,2,1,2,5,0,3,12 S", 4),
    ("oware 2,1,0,5,3,0,10,1,2,2,0,6,1,15 S", 3),
    ("oware 0,2,2,1,4,0,14,3,0,1,2,5,2,12 S", 4),
]


def fresh_to_depth(rules, pos, depth):
    e = Engine(rules)
    e.start(pos, nodes=10 ** 6)
    while e.depth < depth and not e.step(1):
        pass
    return e


@pytest.mark.parametrize("text,reply", CASES)
def test_pondered_table_plays_like_a_fresh_search_as_deep(text, reply):
    rules, pos = parse_position(text)
    assert pos[15] >> reply & 1
    child = bytearray(pos)
    rules.move(child, reply)
    assert child[15]
    master = level_nodes(rules, 3)
    warm = Engine(rules)
    warm.keep = True
    warm.start(pos, nodes=3 * master)  # the person's turn
    while not warm.step(8):
        pass
    warm.search(child, nodes=master)  # the computer's think, warm
    cold = Engine(rules)
    cold.search(child, nodes=master)
    assert warm.depth >= cold.depth  # the ponder bought depth
    fresh = fresh_to_depth(rules, child, warm.depth)
    assert fresh.depth == warm.depth
    assert warm.best_move == fresh.best_move, (warm.depth, warm.score, fresh.score)
