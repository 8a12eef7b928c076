"""The course: short lessons for a first-time player of each variant.

Each lesson is a position (South to move: the person's seat) and a task the board
checks when the person has chosen a pit and sown it.  The check is the rule itself
applied to a copy of the position (never a stored answer), except for the first
tactic, whose answer was found by the engine on the PC (tests/test_lessons.py
checks it is the single best move).  Lessons come in the order a beginner needs
them: how sowing goes, the extra turn (where the rule has one), each capture rule,
the end rules, a first tactic.  docs/PLAYER_GUIDE.md describes them for players.

A task kind says what a right move does:

  SOW     play the lit pit (sowing: the board guides each stone)
  EXTRA   the last stone lands in your store: you move again
  TAKE    capture from the opponent's row by the last stone (2/3, even counts)
  EMPTY   capture through your own empty pit (your stone and the opposite ones)
  CHAIN   capture from two or more of the opponent's pits in one move
  FEED    every pit with stones is lit; pick one the rules allow (feeding,
          no starving): a wrong one is refused by the rule
  END     end the game with this move and win it
  BEST    the lit position has one best move: find it (a first tactic)
"""

from mancala.compat import const
from mancala.rules import CAPTURED, EXTRA, MASK, N_STORE, OVER, POS_LEN, S_STORE

SOW = const(0)
EXTRA_TURN = const(1)
TAKE = const(2)
EMPTY = const(3)
CHAIN = const(4)
FEED = const(5)
END = const(6)
BEST = const(7)
KIND_NAMES = ("sow", "extra", "take", "empty", "chain", "feed", "end", "best")

# (title, kind, target pit 0..5 for SOW/BEST else -1, the 14 counts in board order)
COURSE = {
    "kalah": (
        ("Sowing: one stone into each next pit", SOW, 0,
         (4, 4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4, 4, 0)),
        ("A long sowing: your store yes, theirs never", SOW, 5,
         (4, 4, 4, 3, 2, 9, 0, 4, 4, 4, 3, 3, 4, 0)),
        ("The extra turn: end in your store", EXTRA_TURN, -1,
         (2, 1, 4, 0, 3, 5, 8, 3, 2, 4, 5, 1, 3, 7)),
        ("Capture: end in your own empty pit", EMPTY, -1,
         (1, 0, 0, 3, 0, 0, 20, 2, 4, 1, 0, 5, 2, 10)),
        ("The end: an empty row ends the game", END, -1,
         (1, 0, 5, 2, 0, 0, 18, 0, 0, 0, 0, 3, 0, 19)),
        ("First tactic: which extra turn first?", BEST, 5,
         (2, 0, 4, 0, 3, 1, 10, 3, 3, 0, 6, 2, 1, 13)),
    ),
    "mangala": (
        ("Sowing: the first stone goes back into its pit", SOW, 4,
         (4, 4, 4, 4, 5, 3, 0, 4, 4, 4, 4, 4, 4, 0)),
        ("A single stone moves on to the next pit", SOW, 1,
         (5, 1, 5, 4, 4, 5, 0, 4, 4, 4, 4, 4, 4, 0)),
        ("The extra turn: end in your store", EXTRA_TURN, -1,
         (4, 4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4, 4, 0)),
        ("Capture: make an opponent's pit even", TAKE, -1,
         (2, 1, 0, 3, 0, 3, 12, 3, 1, 2, 0, 4, 2, 15)),
        ("Capture: end in your own empty pit", EMPTY, -1,
         (1, 1, 0, 0, 0, 2, 10, 3, 2, 1, 5, 2, 3, 18)),
        ("The end: 25 stones in a store win at once", END, -1,
         (0, 2, 0, 3, 0, 1, 23, 1, 3, 0, 1, 0, 2, 12)),
        ("First tactic: capture now, before the extra turn", BEST, 1,
         (0, 2, 0, 0, 0, 1, 14, 1, 0, 3, 4, 2, 1, 20)),
    ),
    "oware": (
        ("Sowing: one stone into each next pit", SOW, 0,
         (4, 4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4, 4, 0)),
        ("A long sowing skips the pit it came from", SOW, 2,
         (3, 2, 12, 1, 2, 3, 0, 4, 5, 2, 3, 6, 5, 0)),
        ("Capture: make an opponent's pit 2 or 3", TAKE, -1,
         (3, 1, 4, 0, 3, 2, 6, 2, 1, 5, 4, 2, 3, 12)),
        ("A chain: 2s and 3s behind the last pit too", CHAIN, -1,
         (0, 4, 0, 3, 0, 2, 10, 2, 1, 2, 4, 0, 3, 17)),
        ("Feeding: an empty row must get stones", FEED, -1,
         (2, 0, 1, 0, 4, 0, 20, 0, 0, 0, 0, 0, 0, 21)),
        ("The end: more than 24 stones win", END, -1,
         (0, 3, 1, 0, 2, 0, 23, 1, 1, 3, 0, 2, 2, 10)),
        ("First tactic: capture a chain, not a pit", BEST, 4,
         (0, 1, 0, 0, 3, 1, 14, 1, 1, 1, 2, 3, 5, 16)),
    ),
    "ranok": (
        ("Sowing: one stone into each next pit", SOW, 0,
         (4, 4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4, 4, 0)),
        ("A long sowing: your store yes, theirs and its own pit never", SOW, 5,
         (3, 2, 3, 3, 2, 13, 0, 3, 4, 3, 3, 4, 5, 0)),
        ("Capture: make an opponent's pit 2 or 3", TAKE, -1,
         (3, 1, 4, 0, 3, 1, 6, 1, 4, 4, 5, 2, 4, 10)),
        ("Capture the neighbours too", CHAIN, -1,
         (1, 0, 0, 0, 0, 3, 0, 1, 1, 2, 3, 1, 0, 0)),
        ("No starving: leave your opponent a stone", FEED, -1,
         (0, 1, 0, 0, 1, 2, 20, 1, 0, 0, 0, 0, 0, 23)),
        ("The end: 25 stones in a store win", END, -1,
         (0, 1, 3, 0, 1, 2, 23, 1, 4, 1, 4, 0, 3, 5)),
        ("First tactic: a triple capture", BEST, 5,
         (2, 0, 1, 0, 0, 3, 16, 1, 1, 2, 4, 5, 3, 10)),
    ),
}


class Lesson:
    def __init__(self, variant, number, title, kind, target, counts):
        self.variant = variant
        self.number = number  # 1..
        self.title = title
        self.kind = kind
        self.target = target
        self.counts = counts

    def position(self, rules):
        return rules.new_position(self.counts, 0)


def count(variant):
    return len(COURSE.get(variant, ()))


def get(variant, number):
    """Lesson `number` (1..) of `variant`, or None."""
    course = COURSE.get(variant, ())
    if not 1 <= number <= len(course):
        return None
    t = course[number - 1]
    return Lesson(variant, number, t[0], t[1], t[2], t[3])


def offered(lesson, pos):
    """The pits (a 6-bit mask of South's pits) the board lights for the task."""
    if lesson.kind == SOW:
        return 1 << lesson.target
    if lesson.kind == FEED:
        m = 0
        for k in range(6):
            if pos[k]:
                m |= 1 << k
        return m
    return pos[MASK]


def check(rules, lesson, pos, pit, scratch=None):
    """True if playing `pit` in `pos` (South to move) does what the task asks."""
    if not pos[MASK] >> pit & 1:
        return False  # not legal (FEED: starves or does not feed)
    kind = lesson.kind
    if kind == SOW or kind == BEST:
        return pit == lesson.target
    if kind == FEED:
        return True
    after = scratch if scratch is not None else bytearray(POS_LEN)
    after[:] = pos
    fl = rules.move(after, pit)
    taken = fl // CAPTURED  # captured board indices, bit i = index i
    theirs = taken >> 7 & 0x3F
    if kind == EXTRA_TURN:
        return bool(fl & EXTRA)
    if kind == TAKE:
        return theirs != 0 and not taken & 0x3F
    if kind == EMPTY:
        return bool(taken & 0x3F)
    if kind == CHAIN:
        n = 0
        for k in range(6):
            if theirs >> k & 1:
                n += 1
        return n >= 2
    if kind == END:
        return bool(fl & OVER) and after[S_STORE] > after[N_STORE]
    return False


def right_pits(rules, lesson):
    """Every pit that passes the task (the tests; the board's hint)."""
    pos = lesson.position(rules)
    m = 0
    for k in range(6):
        if offered(lesson, pos) >> k & 1 and check(rules, lesson, pos, k):
            m |= 1 << k
    return m
