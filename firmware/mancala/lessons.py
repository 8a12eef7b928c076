"""The course: short lessons for a first-time player of each variant.

Each lesson (mancala/data/lessons_<variant>.txt) is a position (South to move: the
person's seat) and a task the board checks when the person has chosen a pit and sown it.  The check is the rule itself
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

from mancala import puzzles as PZ
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


def data_path(variant):
    """The variant's lessons: mancala/data/lessons_<variant>.txt, one a line
    (KIND TARGET COUNTS TITLE, TARGET 1..6 or -), read a line at a time like the puzzles."""
    return PZ.data_path(variant).replace("puzzles_", "lessons_")


def parse_line(variant, number, text):
    f = text.split(None, 3)
    if len(f) < 3 or f[0] not in KIND_NAMES:
        raise ValueError("lesson %d: not KIND TARGET COUNTS TITLE" % number)
    counts = bytes(int(x) for x in f[2].split(","))
    if len(counts) != 14:
        raise ValueError("lesson %d: %d counts, want 14" % (number, len(counts)))
    target = int(f[1]) - 1 if f[1] != "-" else -1
    return Lesson(variant, number, f[3].strip() if len(f) > 3 else "",
                  KIND_NAMES.index(f[0]), target, counts)


def count(variant, opener=open):
    try:
        with opener(data_path(variant)) as f:
            return PZ.count_in(f)
    except OSError:
        return 0


def get(variant, number, opener=open):
    """Lesson `number` (1..) of `variant`, or None."""
    try:
        with opener(data_path(variant)) as f:
            n = 0
            for ln in PZ.lines_of(f):
                n += 1
                if n == number:
                    return parse_line(variant, number, ln)
    except OSError:
        pass
    return None


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
